#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mpidbg/Error.hpp"
#include "mpidbg/SessionKey.hpp"  // kSessionKeyBytes, toHex, fromHex: the key's size and text form

namespace mpidbg::ccs {

/// `n` cryptographically random bytes (OpenSSL RAND_bytes). Error if the
/// generator fails.
Expected<std::vector<std::uint8_t>> randomBytes(std::size_t n);

/// Lowercase hex of HMAC-SHA256(key, message) (OpenSSL).
std::string hmacSha256Hex(std::span<const std::uint8_t> key, std::span<const std::uint8_t> message);

/// Constant-time comparison of two strings of equal length (false otherwise).
bool constantTimeEqual(std::string_view a, std::string_view b);

}  // namespace mpidbg::ccs
