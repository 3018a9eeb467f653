#pragma once

// The text record format shared by mpidbg's rank protocol (ccs/proto/RankProtocol.hpp)
// and its control protocol (ccs/proto/ControlProtocol.hpp): `key=value` lines,
// records separated by a line `--`, values escaped ('\\' -> "\\\\", newline ->
// "\\n", carriage return -> "\\r", since a line's trailing CR is dropped as CRLF), integers decimal or 0x hex. Internal to the ccs library.

#include <array>
#include <charconv>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::proto {

/// The line that separates records.
inline constexpr std::string_view kRecordSeparator = "--";

/// At most `maxChars` characters of `text` for an error message,
/// non-printable bytes shown as '?', "..." when cut.
std::string shorten(std::string_view text, std::size_t maxChars = 60);

/// The next line of `text` from `pos` (without its "\n" or "\r\n"),
/// advancing `pos` past it; the rest of the text when no newline follows.
std::string_view nextLine(std::string_view text, std::size_t& pos);

/// Appends the line `key=<escaped value>` to `out`.
void put(std::string& out, std::string_view key, std::string_view value);
/// Appends the line `key=<decimal value>` to `out`.
template <typename Int>
void putInt(std::string& out, std::string_view key, Int value) {
  put(out, key, std::to_string(value));
}

/// Appends the line `key=0x<hex value>` to `out`.
void putHex(std::string& out, std::string_view key, std::uint64_t value);
/// Appends the line `key=1` or `key=0` to `out`.
inline void putFlag(std::string& out, std::string_view key, bool value) { put(out, key, value ? "1" : "0"); }

/// The index of `value` in `names` (a field's wire spellings,
/// ccs/proto/Field.hpp names()); when it is not there, an error naming `key`
/// that lists the spellings when there are six or fewer ("key 'K' must be
/// A, B or C, not 'V'"), else "key 'K' has an unknown value 'V'" (V
/// shortened).
inline Expected<std::size_t> lookupName(std::span<const std::string_view> names, std::string_view key,
                                        std::string_view value) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == value) return i;
  const std::string prefix = "key '" + std::string(key) + "' ";
  if (names.empty() || names.size() > 6) return fail(prefix + "has an unknown value '" + shorten(value) + "'");
  std::string choices;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) choices += i + 1 == names.size() ? " or " : ", ";
    choices += names[i];
  }
  return fail(prefix + "must be " + choices + ", not '" + shorten(value) + "'");
}

/// One decoded record: key -> unescaped value. Errors name the key.
class Record {
 public:
  /// Adds one `key=value` line. Errors: no '=', empty key, bad escape,
  /// duplicate key.
  Expected<void> add(std::string_view line);
  bool empty() const { return values_.empty(); }
  bool has(std::string_view key) const { return values_.contains(key); }

  /// The value of a required key; Error "record is missing key 'K'".
  Expected<std::string> text(std::string_view key) const;
  /// The value of an optional key, or `fallback`.
  std::string text(std::string_view key, std::string_view fallback) const;
  /// A required integer key: decimal, or 0x hex; no sign on hex, no '+'.
  template <typename Int>
  Expected<Int> integer(std::string_view key) const {
    auto value = text(key);
    if (!value) return std::unexpected(value.error());
    return parseInt<Int>(key, *value);
  }
  /// A required 0/1 key; Error "key 'K' must be 0 or 1" otherwise.
  Expected<bool> flag(std::string_view key) const;

  /// Parses an integer value of key `key` (for lists inside one value).
  template <typename Int>
  static Expected<Int> parseInt(std::string_view key, std::string_view value) {
    Int result{};
    int base = 10;
    std::string_view digits = value;
    if (digits.starts_with("0x") || digits.starts_with("0X")) {
      digits.remove_prefix(2);
      base = 16;
    }
    if (digits.empty() || digits.front() == '+' || (base == 16 && digits.front() == '-'))
      return badInt(key, value);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), result, base);
    if (ec != std::errc{} || end != digits.data() + digits.size()) return badInt(key, value);
    return result;
  }

 private:
  static std::unexpected<Error> badInt(std::string_view key, std::string_view value);
  std::map<std::string, std::string, std::less<>> values_;
};

/// Every record of `text`; empty records (repeated or trailing separators,
/// blank lines) are skipped; "\r\n" line ends accepted.
Expected<std::vector<Record>> parseRecords(std::string_view text);

/// Exactly one record of `text`, errors prefixed "bad <what>: ". With
/// `emptyOk` an empty text is one empty record.
Expected<Record> parseOne(std::string_view text, std::string_view what, bool emptyOk = false);

/// Inside a decoder with a `prefix` string: assigns the value of `expr` to
/// `target`, or returns its error with the prefix.
#define MPIDBG_TRY_ASSIGN(target, expr)                                    \
  do {                                                                     \
    auto mpidbg_value = (expr);                                            \
    if (!mpidbg_value) return fail(prefix + mpidbg_value.error().message); \
    target = std::move(*mpidbg_value);                                     \
  } while (0)

}  // namespace mpidbg::ccs::proto
