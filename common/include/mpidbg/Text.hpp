#pragma once

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <optional>
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

/// The whole of `text` read as hexadecimal digits, without a 0x prefix
/// ("7f3c1b2e" -> 0x7f3c1b2e); nullopt when empty, not all hex digits, or
/// past 64 bits.
inline std::optional<std::uint64_t> parseHex(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/// One byte as 0x and two lower-case hex digits ("0x05"), for messages about
/// a byte on the wire.
inline std::string hexByte(std::uint8_t value) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", value);
  return text;
}

/// Levenshtein distance between `a` and `b` (insertions, deletions and
/// substitutions of one character each cost 1), for "did you mean"
/// suggestions; `ignoreCase` compares characters as std::tolower sees them.
inline std::size_t editDistance(std::string_view a, std::string_view b, bool ignoreCase = false) {
  auto same = [ignoreCase](char x, char y) {
    return ignoreCase ? std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y))
                      : x == y;
  };
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// The bytes of `text`, for a CCS reply or request body.
inline std::vector<std::uint8_t> bytesOf(std::string_view text) { return {text.begin(), text.end()}; }

}  // namespace mpidbg
