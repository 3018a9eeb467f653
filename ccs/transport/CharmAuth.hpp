#pragma once

// Charm++'s SHA-1 authenticated CCS mode: wire constants, the hash H and the
// secure reply frame (../shared/protocols/ccs.md, "Charm++'s authenticated
// mode (SHA-1)"; byte-exact captures 08a-08h and 10 in ../shared/vectors/ccs/).
// The per-connection state machines are CharmAuthClient and CharmAuthServer;
// keys come from CharmKeyFile.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// First byte of every stream in the SHA-1 mode (a plain request starts below 0x20).
inline constexpr std::uint8_t kCharmAuthMarker = 0x80;
/// Second byte: protocol version; Charm++ knows only 0.
inline constexpr std::uint8_t kCharmAuthVersion = 0x00;
/// Third byte: a regular authenticated request (08b).
inline constexpr std::uint8_t kCharmAuthKindRequest = 0x00;
/// Third byte: "create salt", the handshake (08a).
inline constexpr std::uint8_t kCharmAuthKindHandshake = 0x01;
/// Bytes of the mode prefix `80 00 kind level`.
inline constexpr std::size_t kCharmAuthPrefixBytes = 4;
/// Bytes of a security key.
inline constexpr std::size_t kCharmKeyBytes = 16;
/// Bytes of a SHA-1 hash on the wire.
inline constexpr std::size_t kCharmHashBytes = 20;
/// Leading bytes of the 40-byte request header covered by the request hash:
/// length, PE and the first 8 characters of the handler name (08b notes).
inline constexpr std::size_t kCharmHashedHeaderBytes = 16;
/// Highest security level (Charm++'s key file accepts 0 <= level < 255).
inline constexpr int kMaxCharmSecurityLevel = 254;

/// One security level's key: 16 raw bytes.
using CharmKey = std::array<std::uint8_t, kCharmKeyBytes>;
/// A SHA-1 hash as sent on the wire.
using CharmHash = std::array<std::uint8_t, kCharmHashBytes>;

/// H(salt, header): SHA-1 (OpenSSL) over exactly 52 bytes, key (16) | salt (4,
/// big-endian) | the first 16 bytes of `header` or 16 zero bytes when `header`
/// is empty | 16 zero bytes. A non-empty `header` shorter than 16 bytes is
/// zero-padded; bytes past 16 are ignored. Error only if OpenSSL cannot
/// compute SHA-1.
Expected<CharmHash> charmAuthHash(const CharmKey& key, std::uint32_t salt,
                                  std::span<const std::uint8_t> header = {});

/// True when `received` (exactly 20 bytes) equals H(salt, header) under `key`.
/// Constant-time comparison; false when the hash cannot be computed.
bool charmAuthHashMatches(const CharmKey& key, std::uint32_t salt,
                          std::span<const std::uint8_t> header,
                          std::span<const std::uint8_t> received);

/// The mode prefix `80 00 kind level` that opens a SHA-1 stream.
std::array<std::uint8_t, kCharmAuthPrefixBytes> charmAuthPrefix(std::uint8_t kind,
                                                                std::uint8_t level);

/// Reads a big-endian unsigned 32-bit value from the first 4 bytes of `bytes`
/// (which must hold at least 4). Salts and challenges are unsigned.
std::uint32_t readBigEndianU32(std::span<const std::uint8_t> bytes);
/// Appends `value` as 4 big-endian bytes.
void appendBigEndianU32(std::vector<std::uint8_t>& out, std::uint32_t value);

/// The secure reply to a request that carried reply salt `replySalt`:
/// H(replySalt, none) (20) | data length (4, big-endian) | data (08b). Error if
/// the hash cannot be computed or `data` is 2 GiB or more.
Expected<std::vector<std::uint8_t>> encodeCharmSecureReply(const CharmKey& key,
                                                           std::uint32_t replySalt,
                                                           std::span<const std::uint8_t> data);

}  // namespace mpidbg::ccs
