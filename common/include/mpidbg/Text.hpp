#pragma once

#include <cctype>
#include <string_view>

namespace mpidbg {

/// `s` without leading and trailing white space (as std::isspace sees it).
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace mpidbg
