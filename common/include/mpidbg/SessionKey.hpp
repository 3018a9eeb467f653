#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg {

/// Size of a session key in bytes (256 bits, DESIGN.md "Security"): the TLS
/// pre-shared key between front end and ranks (ccs/transport/TlsContext.hpp),
/// the registration MAC key, and the key of an attach file
/// (ccs/proto/AttachProtocol.hpp).
inline constexpr std::size_t kSessionKeyBytes = 32;

/// Lowercase hex of `bytes` (two digits a byte): how a session key is written
/// in files and environment variables.
inline std::string toHex(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (std::uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 0x0f];
  }
  return out;
}

/// Parses hex (upper or lower case, even length) into bytes. Errors: an odd
/// number of digits, a non-hex character (its position named).
inline Expected<std::vector<std::uint8_t>> fromHex(std::string_view hex) {
  if (hex.size() % 2 != 0)
    return fail("hex text has an odd number of digits (" + std::to_string(hex.size()) + ")");
  auto digit = [](char ch) -> int {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
  };
  std::vector<std::uint8_t> bytes;
  bytes.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int high = digit(hex[i]);
    const int low = digit(hex[i + 1]);
    if (high < 0 || low < 0)
      return fail("hex text has a non-hex character at position " + std::to_string(high < 0 ? i : i + 1));
    bytes.push_back(static_cast<std::uint8_t>(high << 4 | low));
  }
  return bytes;
}

}  // namespace mpidbg
