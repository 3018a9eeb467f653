#pragma once

// Messages from one description (issue 25, item 2): a message type lists its
// fields once, as `static constexpr auto fields()` returning a std::tuple of
// field(...) descriptions, in wire order; ccs/proto/Message.hpp derives the
// key=value encoder and decoder (ccs/proto/TextRecord.hpp) from that list.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

namespace mpidbg::ccs::proto {

/// How an integer field is written: decimal ("rank=3") or 0x hex
/// ("comm=0x44000000"). Both decode either way (Record::integer).
enum class Spelling : std::uint8_t { Decimal, Hex };

/// One field of a message: the key on the wire and the member it fills.
/// Member types: bool (written 0 or 1, decoded by Record::flag), integers
/// (Record::integer of that type, so out-of-range values are errors),
/// std::string (escaped text), enums (with names()), std::array of
/// integers or bools (comma-separated, exactly N values: "counts=0,3,1"),
/// and std::vector of integers (comma-separated, possibly none; at most
/// atMost() values, Error "key 'K' has more than N values"). The decoder's checks are part of the field:
/// `optional` (an absent key keeps the member's default; the encoder still
/// writes it), `min`/`max` (inclusive bounds of an integer; Error "key 'K'
/// must be between MIN and MAX", or "key 'K' must be > 0" for positive()),
/// the length of a string (atMost(), notEmpty()). A message type may also
/// declare `static Expected<void> check(const T&)`, a rule across its fields
/// that the decoder applies last (a control reply's "an error reply has no
/// message").
template <typename T, typename M>
struct Field {
  std::string_view key;
  M T::*member;
  Spelling spelling = Spelling::Decimal;
  bool optional = false;
  bool bounded = false;
  std::int64_t min = 0;
  std::int64_t max = 0;
  /// When set, the key is written only when `present(message)` holds (see
  /// when()).
  bool (*present)(const T&) = nullptr;
  /// When set, the key is written only when this member is true, and
  /// decoding sets it to whether the key is there (see flaggedBy()).
  bool T::*flag = nullptr;
  /// For an enum or bool member: its wire spellings, indexed by the
  /// member's value (see names()); empty otherwise.
  std::span<const std::string_view> spellings{};
  /// A string member must not be empty (see notEmpty()).
  bool nonEmpty = false;

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
  /// The same vector field, decoded with at most `n` values; the same
  /// string field, decoded with at most `n` bytes (Error "key 'K' is longer
  /// than N bytes").
  constexpr Field atMost(std::int64_t n) const {
    Field f = *this;
    f.max = n;
    return f;
  }
  /// The same string field, decoded only when not empty (Error "key 'K' is
  /// empty").
  constexpr Field notEmpty() const {
    Field f = *this;
    f.nonEmpty = true;
    return f;
  }
  /// The same field, decoded only when > 0.
  constexpr Field positive() const { return between(1, INT64_MAX); }
  /// The same field, written only when `test(message)` holds ("stop" only
  /// while frozen, "thread.T.error" only when set). Decoding requires the
  /// key when `test` holds of the message decoded so far (the fields listed
  /// before it: an event's "code" for kind exited) and accepts its absence
  /// otherwise (the member keeps its default); orDefault() accepts it always.
  constexpr Field when(bool (*test)(const T&)) const {
    Field f = *this;
    f.present = test;
    return f;
  }
  /// The same field, written only when `*flag` is true ("call.tag" when the
  /// call has a tag); decoding sets `*flag` to whether the key is there.
  constexpr Field flaggedBy(bool T::*flagMember) const {
    Field f = *this;
    f.flag = flagMember;
    return f;
  }
  /// The same field for an enum member, written as `names[value]` ("unknown"
  /// for a value past the table), or for a bool member, written as
  /// `names[0]` (false) or `names[1]` (true): a reply's "result=ok|error".
  /// Decoding maps a name back to its index (Error "key 'K' must be A, B or
  /// C, not 'V'"; "key 'K' has an unknown value 'V'" past six names).
  constexpr Field names(std::span<const std::string_view> table) const {
    Field f = *this;
    f.spellings = table;
    return f;
  }
};

/// The description of member `member` under key `key`.
template <typename T, typename M>
constexpr Field<T, M> field(std::string_view key, M T::*member) {
  return Field<T, M>{key, member};
}

/// A sub-message whose fields are written at its parent's level, as if
/// listed there (a queue record's communicator keys "comm.I.handle", ...,
/// come from its CommState).
template <typename T, typename S>
struct Inline {
  S T::*member;
};

/// The description of sub-message `member` written inline (see Inline).
template <typename T, typename S>
constexpr Inline<T, S> inlined(S T::*member) {
  return Inline<T, S>{member};
}

/// A list of sub-messages or values under numbered keys (the stacks record:
/// "modules=2", "module.0.path=...", "module.1.path=..."). The count is
/// written under `countKey`; element I's keys start with `stem` "." I,
/// both under the enclosing prefix ("comm.0.sends=1", "comm.0.send.0.kind"):
/// a Described element writes its own fields under "STEM.I." (thread.0.tid),
/// a TextValue element one line "STEM.I=TEXT", a std::string element one
/// line "STEM.I=ESCAPED". With keyedByIndices(), element keys are not under
/// the enclosing prefix but carry the indices of the enclosing lists: stem
/// "frame" in thread 2 writes "frame.2.0", "frame.2.1", ... Decoding reads
/// the count (an unsigned integer; Error "key 'K' claims N NOUN (at most
/// MAX)" above `maxCount`, NOUN "elements" unless counting() says), then
/// every element, all required.
template <typename T, typename E>
struct Items {
  std::string_view countKey;
  std::string_view stem;
  std::vector<E> T::*member;
  std::size_t maxCount = 0;
  bool byIndices = false;
  bool optional = false;
  std::string_view noun = "elements";

  /// The same list with element keys "STEM.<indices>I" (see Items).
  constexpr Items keyedByIndices() const {
    Items f = *this;
    f.byIndices = true;
    return f;
  }
  /// The same list, written only when non-empty (count key included) and
  /// empty when its count key is absent: a list added after the others.
  constexpr Items whenNonEmpty() const {
    Items f = *this;
    f.optional = true;
    return f;
  }
  /// The same list, its elements called `what` in the count's error.
  constexpr Items counting(std::string_view what) const {
    Items f = *this;
    f.noun = what;
    return f;
  }
};

/// The description of list member `member` (see Items).
template <typename T, typename E>
constexpr Items<T, E> items(std::string_view countKey, std::string_view stem, std::vector<E> T::*member,
                            std::size_t maxCount) {
  return Items<T, E>{countKey, stem, member, maxCount};
}

/// An optional sub-message whose keys carry a prefix (a status's "call.*"
/// keys): written when the member holds a value; decoded when the record has
/// the sub-message's first listed key under the prefix ("call.function"),
/// std::nullopt otherwise.
template <typename T, typename S>
struct Sub {
  std::string_view prefix;
  std::optional<S> T::*member;
};

/// The description of optional sub-message `member` under `prefix` (see Sub).
template <typename T, typename S>
constexpr Sub<T, S> sub(std::string_view prefix, std::optional<S> T::*member) {
  return Sub<T, S>{prefix, member};
}

/// A value written as one line of text by its own two functions (a stack
/// frame's "M,0xOFFSET,E"): `T::toText(value)` and `T::fromText(key, text)`,
/// whose errors name `key`.
template <typename T>
concept TextValue = requires(const T& v, std::string_view s) {
  { T::toText(v) };
  { T::fromText(s, s) };
};

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
