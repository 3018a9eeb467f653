#pragma once

// Charm++'s CCS authentication key file (`++server-auth <file>`; ccs.md,
// "Charm++'s authenticated mode (SHA-1)"; captures 08a-08h use the line
// `0 01020304050607080910111213141516`).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/transport/CharmAuth.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// How the characters of a key are read, two characters per key byte.
enum class KeyDigits {
  /// Each pair is read as Charm++'s server (charmrun, CcsSecMan) and its C
  /// client (libccs-client) read it, with C's sscanf("%d") on the two
  /// characters (src/conv-ccs/ccs-auth.C, CCS_AUTH_makeSecretKey): "10" ->
  /// 0x0a, "0a" -> 0 (the digits before the first non-digit), "-5" -> 0xfb;
  /// a pair with no leading digit ends the key, and the bytes after the end
  /// stay zero (a 16-character key is 8 bytes and 8 zeros); a last single
  /// character is padded with '0'; characters after the 32nd are not read.
  /// Every hash in the captures 08a-08h and 10 re-derives only with this
  /// reading.
  Decimal,
  /// Each pair is true hex 00..ff: "10" -> 0x10, exactly 32 characters.
  /// What Charm++'s Java client (CharmDebug) does.
  Hex,
};

/// The keys of one server or client: at most one key per security level
/// 0..254. A server with a level-0 key refuses plain requests (08e).
struct CharmKeyTable {
  /// Security level -> key.
  std::map<std::uint8_t, CharmKey> keys;
  /// The lines Charm++'s server skips or overrides, as notes naming the
  /// line: "line 3: 'x 0102...' is not '<level> <key>' with a level
  /// 0..254; Charm++ skips it", "line 4: level 0 again; this key replaces
  /// the one on line 1 (as in Charm++)".
  std::vector<std::string> notes;

  /// The key of `level`, or nullptr when the table has none (Charm++ then
  /// refuses SHA-1 requests at that level: close, no reply).
  const CharmKey* find(std::uint8_t level) const;
};

/// Parses one key read as `digits` (KeyDigits). Decimal: the key must start
/// with two hex digits, as Charm++'s server requires ("Cannot parse key"),
/// else an error; Hex: exactly 32 hex digits, errors naming the bad pair.
Expected<CharmKey> parseCharmKey(std::string_view text, KeyDigits digits);

/// Parses key-file text as Charm++'s server reads it: per line, a decimal
/// level and a key (C's sscanf("%d%s"), so blanks separate them and words
/// after the key are not read); lines without both, or with a level outside
/// 0..254 are skipped, and a level given twice takes its last key, each
/// noted in CharmKeyTable::notes (blank lines and '#' comments silently). Errors name the line: a
/// key parseCharmKey refuses, "OTP" keys (Charm++'s generated one-time keys,
/// not supported).
Expected<CharmKeyTable> parseCharmKeyFile(std::string_view text, KeyDigits digits);

/// Reads and parses the key file at `path` (at most 1 MiB). Errors name the
/// file and, for content errors, the line.
Expected<CharmKeyTable> loadCharmKeyFile(const std::string& path, KeyDigits digits);

}  // namespace mpidbg::ccs
