// Authentication helpers; every primitive comes from OpenSSL.
#include "ccs/transport/Auth.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <climits>

namespace mpidbg::ccs {

Expected<std::vector<std::uint8_t>> randomBytes(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX))
    return fail("cannot generate " + std::to_string(n) + " random bytes at once");
  std::vector<std::uint8_t> bytes(n);
  if (n > 0 && RAND_bytes(bytes.data(), static_cast<int>(n)) != 1)
    return fail("the OpenSSL random generator failed (RAND_bytes)");
  return bytes;
}

std::string hmacSha256Hex(std::span<const std::uint8_t> key,
                          std::span<const std::uint8_t> message) {
  if (key.size() > static_cast<std::size_t>(INT_MAX)) return {};
  static const std::uint8_t kEmpty = 0;  // OpenSSL wants a non-null key pointer
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.empty() ? &kEmpty : key.data(), static_cast<int>(key.size()),
           message.empty() ? &kEmpty : message.data(), message.size(), digest, &length) == nullptr)
    return {};  // empty never matches a real MAC
  return toHex(std::span<const std::uint8_t>(digest, length));
}

bool constantTimeEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace mpidbg::ccs
