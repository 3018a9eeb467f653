#pragma once

// Charm++'s CCS authentication key file (`++server-auth <file>`; ccs.md,
// "Charm++'s authenticated mode (SHA-1)"; captures 08a-08h use the line
// `0 01020304050607080910111213141516`).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "ccs/CharmAuth.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// How the 32 characters of a key are read, two characters per key byte.
enum class KeyDigits {
  /// Each pair is a DECIMAL number 00..99: "10" -> 0x0a. What Charm++'s
  /// server (charmrun) and its C client libccs-client do; every hash in the
  /// captures 08a-08h and 10 re-derives only with this reading. Charm++ reads
  /// a pair with sscanf, so a pair that is not two decimal digits silently
  /// truncates or shortens the key (the bytes after it stay zero); mpidbg
  /// refuses such a pair with an error naming the line instead.
  Decimal,
  /// Each pair is true hex 00..ff: "10" -> 0x10. What Charm++'s Java client
  /// (CharmDebug) does.
  Hex,
};

/// The keys of one server or client: at most one key per security level
/// 0..254. A server with a level-0 key refuses plain requests (08e).
struct CharmKeyTable {
  /// Security level -> key.
  std::map<std::uint8_t, CharmKey> keys;

  /// The key of `level`, or nullptr when the table has none (Charm++ then
  /// refuses SHA-1 requests at that level: close, no reply).
  const CharmKey* find(std::uint8_t level) const;
};

/// Parses one key: exactly 32 characters read as `digits`. Errors say which
/// pair is bad and how it was read.
Expected<CharmKey> parseCharmKey(std::string_view text, KeyDigits digits);

/// Parses key-file text: one `<level> <key>` per line, separated by blanks;
/// level 0..254 in decimal; key as parseCharmKey. Blank lines and lines whose
/// first non-blank character is '#' are skipped, and a '#' comment may follow
/// the key. Errors name the line number: missing key, bad level, bad key,
/// extra words, the same level twice, "OTP" keys (Charm++'s generated
/// one-time keys, not supported).
Expected<CharmKeyTable> parseCharmKeyFile(std::string_view text, KeyDigits digits);

/// Reads and parses the key file at `path` (at most 1 MiB). Errors name the
/// file and, for content errors, the line.
Expected<CharmKeyTable> loadCharmKeyFile(const std::string& path, KeyDigits digits);

}  // namespace mpidbg::ccs
