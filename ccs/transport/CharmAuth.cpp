// Charm++'s SHA-1 CCS mode: the hash H and the secure reply frame. SHA-1 comes
// from OpenSSL; nothing here is hand-written crypto.
#include "ccs/transport/CharmAuth.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <limits>

#include "ccs/transport/Frame.hpp"

namespace mpidbg::ccs {
namespace {

/// Bytes hashed by H: key, salt, 16 header bytes, 16 zero bytes. Charm++'s
/// ccs-auth.c fills one 64-byte SHA-1 block by hand; that equals standard
/// SHA-1 of these 52 bytes.
constexpr std::size_t kHashedBytes = kCharmKeyBytes + 4 + kCharmHashedHeaderBytes + 16;

}  // namespace

std::uint32_t readBigEndianU32(std::span<const std::uint8_t> bytes) {
  return static_cast<std::uint32_t>(readBigEndian32(bytes));
}

void appendBigEndianU32(std::vector<std::uint8_t>& out, std::uint32_t value) {
  appendBigEndian32(out, static_cast<std::int32_t>(value));
}

Expected<CharmHash> charmAuthHash(const CharmKey& key, std::uint32_t salt,
                                  std::span<const std::uint8_t> header) {
  std::array<std::uint8_t, kHashedBytes> message{};
  std::copy(key.begin(), key.end(), message.begin());
  message[16] = static_cast<std::uint8_t>(salt >> 24);
  message[17] = static_cast<std::uint8_t>(salt >> 16);
  message[18] = static_cast<std::uint8_t>(salt >> 8);
  message[19] = static_cast<std::uint8_t>(salt);
  std::size_t headerBytes = std::min(header.size(), kCharmHashedHeaderBytes);
  std::copy_n(header.begin(), headerBytes, message.begin() + 20);

  CharmHash hash{};
  unsigned int length = 0;
  if (EVP_Digest(message.data(), message.size(), hash.data(), &length, EVP_sha1(), nullptr) != 1 ||
      length != hash.size())
    return fail("cannot compute the SHA-1 hash of Charm++'s CCS authentication (OpenSSL EVP_sha1)");
  return hash;
}

bool charmAuthHashMatches(const CharmKey& key, std::uint32_t salt,
                          std::span<const std::uint8_t> header,
                          std::span<const std::uint8_t> received) {
  if (received.size() != kCharmHashBytes) return false;
  auto expected = charmAuthHash(key, salt, header);
  if (!expected) return false;
  return CRYPTO_memcmp(expected->data(), received.data(), kCharmHashBytes) == 0;
}

std::array<std::uint8_t, kCharmAuthPrefixBytes> charmAuthPrefix(std::uint8_t kind,
                                                                std::uint8_t level) {
  return {kCharmAuthMarker, kCharmAuthVersion, kind, level};
}

Expected<std::vector<std::uint8_t>> encodeCharmSecureReply(const CharmKey& key,
                                                           std::uint32_t replySalt,
                                                           std::span<const std::uint8_t> data) {
  if (data.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    return fail("CCS reply of " + std::to_string(data.size()) +
                " bytes is too large for a 32-bit length");
  auto hash = charmAuthHash(key, replySalt);
  if (!hash) return std::unexpected(hash.error());
  std::vector<std::uint8_t> out;
  out.reserve(kCharmHashBytes + 4 + data.size());
  out.insert(out.end(), hash->begin(), hash->end());
  appendBigEndian32(out, static_cast<std::int32_t>(data.size()));
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace mpidbg::ccs
