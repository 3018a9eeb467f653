#pragma once

// Messages from one description (issue 25, item 2): a message type lists its
// fields once, as `static constexpr auto fields()` returning a std::tuple of
// field(...) descriptions, in wire order; ccs/proto/Message.hpp derives the
// key=value encoder and decoder (ccs/proto/TextRecord.hpp) from that list.

#include <cstdint>
#include <string_view>
#include <tuple>

namespace mpidbg::ccs::proto {

/// How an integer field is written: decimal ("rank=3") or 0x hex
/// ("comm=0x44000000"). Both decode either way (Record::integer).
enum class Spelling : std::uint8_t { Decimal, Hex };

/// One field of a message: the key on the wire and the member it fills.
/// Member types: bool (written 0 or 1, decoded by Record::flag), integers
/// (Record::integer of that type, so out-of-range values are errors) and
/// std::string (escaped text). The decoder's checks are part of the field:
/// `optional` (an absent key keeps the member's default; the encoder still
/// writes it), `min`/`max` (inclusive bounds of an integer; Error "key 'K'
/// must be between MIN and MAX", or "key 'K' must be > 0" for positive()).
template <typename T, typename M>
struct Field {
  std::string_view key;
  M T::*member;
  Spelling spelling = Spelling::Decimal;
  bool optional = false;
  bool bounded = false;
  std::int64_t min = 0;
  std::int64_t max = 0;

  /// The same field written as 0x hex.
  constexpr Field hex() const {
    Field f = *this;
    f.spelling = Spelling::Hex;
    return f;
  }
  /// The same field, allowed to be absent when decoding.
  constexpr Field orDefault() const {
    Field f = *this;
    f.optional = true;
    return f;
  }
  /// The same field, decoded only within [lo, hi].
  constexpr Field between(std::int64_t lo, std::int64_t hi) const {
    Field f = *this;
    f.bounded = true;
    f.min = lo;
    f.max = hi;
    return f;
  }
  /// The same field, decoded only when > 0.
  constexpr Field positive() const { return between(1, INT64_MAX); }
};

/// The description of member `member` under key `key`.
template <typename T, typename M>
constexpr Field<T, M> field(std::string_view key, M T::*member) {
  return Field<T, M>{key, member};
}

/// A message type with a field list (see the top of this file).
template <typename T>
concept Described = requires { T::fields(); };

/// Requests that carry no data (status, thread levels, record state, ...):
/// the handler ignores whatever bytes arrive, as before typed handlers.
struct NoData {
  /// The message in errors.
  static constexpr std::string_view kName = "request";
  /// No fields.
  static constexpr auto fields() { return std::tuple{}; }
};

}  // namespace mpidbg::ccs::proto
