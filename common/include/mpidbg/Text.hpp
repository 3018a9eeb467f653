#pragma once

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace mpidbg {

/// `s` without leading and trailing white space (as std::isspace sees it).
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// `value` in lower-case hex with a 0x prefix ("0x84000003"), the form every
/// report and record uses for handles, addresses and uids.
inline std::string hexText(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

/// One byte as 0x and two lower-case hex digits ("0x05"), for messages about
/// a byte on the wire.
inline std::string hexByte(std::uint8_t value) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", value);
  return text;
}

/// The bytes of `text`, for a CCS reply or request body.
inline std::vector<std::uint8_t> bytesOf(std::string_view text) { return {text.begin(), text.end()}; }

}  // namespace mpidbg
