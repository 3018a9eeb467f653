#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// Size of a session key in bytes (256 bits, DESIGN.md "Security").
inline constexpr std::size_t kSessionKeyBytes = 32;

/// `n` cryptographically random bytes (OpenSSL RAND_bytes). Error if the
/// generator fails.
Expected<std::vector<std::uint8_t>> randomBytes(std::size_t n);

/// Lowercase hex of HMAC-SHA256(key, message) (OpenSSL).
std::string hmacSha256Hex(std::span<const std::uint8_t> key, std::span<const std::uint8_t> message);

/// Constant-time comparison of two strings of equal length (false otherwise).
bool constantTimeEqual(std::string_view a, std::string_view b);

/// Lowercase hex of `bytes`.
std::string toHex(std::span<const std::uint8_t> bytes);
/// Parses hex (upper or lower case, even length). Error otherwise.
Expected<std::vector<std::uint8_t>> fromHex(std::string_view hex);

}  // namespace mpidbg::ccs
