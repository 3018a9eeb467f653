#pragma once

#include <unistd.h>

#include <string>

namespace mpidbg::rt {

/// This machine's host name (gethostname(2)), or `fallback` when it has none.
inline std::string thisHostName(const char* fallback) {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return fallback;
  return name;
}

}  // namespace mpidbg::rt
