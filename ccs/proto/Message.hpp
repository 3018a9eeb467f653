#pragma once

// Encoders and decoders derived from a message's field list
// (ccs/proto/Field.hpp) over the key=value records of
// ccs/proto/TextRecord.hpp. Byte-compatible with the hand-written encoders
// they replace: keys in the listed order, bools as 0/1, integers decimal or
// 0x hex, text escaped; errors "bad NAME: ..." naming the key.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ccs/proto/Field.hpp"
#include "ccs/proto/TextRecord.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::proto {

/// A message sent once per rank and followed by a `--` line, so the replies
/// of many ranks concatenate (MergeRule::Concatenate in the forwarding tree):
/// its type says `static constexpr bool kListItem = true`.
template <typename T>
concept ListItem = Described<T> && T::kListItem;

namespace detail {

template <typename T, typename M>
void putField(std::string& out, const Field<T, M>& f, const T& value) {
  const M& v = value.*f.member;
  if constexpr (std::is_same_v<M, bool>) {
    putFlag(out, f.key, v);
  } else if constexpr (std::is_same_v<M, std::string>) {
    put(out, f.key, v);
  } else {
    static_assert(std::is_integral_v<M>, "a described field is a bool, an integer or a std::string");
    if (f.spelling == Spelling::Hex) putHex(out, f.key, static_cast<std::uint64_t>(v));
    else putInt(out, f.key, v);
  }
}

template <typename M>
Expected<void> checkBounds(std::string_view key, M v, std::int64_t min, std::int64_t max) {
  if (std::cmp_greater_equal(v, min) && std::cmp_less_equal(v, max)) return {};
  if (min == 1 && max == INT64_MAX) return fail("key '" + std::string(key) + "' must be > 0");
  return fail("key '" + std::string(key) + "' must be between " + std::to_string(min) + " and " + std::to_string(max));
}

template <typename T, typename M>
Expected<void> getField(const Record& r, const Field<T, M>& f, T& value) {
  if (f.optional && !r.has(f.key)) return {};
  M& target = value.*f.member;
  if constexpr (std::is_same_v<M, bool>) {
    auto v = r.flag(f.key);
    if (!v) return std::unexpected(v.error());
    target = *v;
  } else if constexpr (std::is_same_v<M, std::string>) {
    auto v = r.text(f.key);
    if (!v) return std::unexpected(v.error());
    target = std::move(*v);
  } else {
    auto v = r.integer<M>(f.key);
    if (!v) return std::unexpected(v.error());
    if (f.bounded) {
      auto inside = checkBounds(f.key, *v, f.min, f.max);
      if (!inside) return inside;
    }
    target = *v;
  }
  return {};
}

}  // namespace detail

/// Appends one line per field of `value`, in the listed order (no separator).
template <Described T>
void putFields(std::string& out, const T& value) {
  std::apply([&](const auto&... f) { (detail::putField(out, f, value), ...); }, T::fields());
}

/// Fills `value`'s fields from `r`, in the listed order. Errors (without a
/// prefix): a missing required key, a bad number or flag, a value out of
/// its field's bounds. Keys not described are ignored.
template <Described T>
Expected<void> getFields(const Record& r, T& value) {
  Expected<void> result;
  std::apply([&](const auto&... f) { (void)((result = detail::getField(r, f, value), result.has_value()) && ...); },
             T::fields());
  return result;
}

/// One record of `value`; followed by a `--` line when T is a ListItem.
template <Described T>
std::string encodeRecord(const T& value) {
  std::string out;
  putFields(out, value);
  if constexpr (ListItem<T>) {
    out += kRecordSeparator;
    out += '\n';
  }
  return out;
}

/// A reply's bytes: its protocol's own `encode(const T&)` (found by
/// argument-dependent lookup) when it declares one, as a reply with an error
/// form does (GdbServerReply); encodeRecord otherwise.
template <Described T>
std::string encodeReply(const T& value) {
  if constexpr (requires { encode(value); }) return encode(value);
  else return encodeRecord(value);
}

/// Every record of `values`, each followed by a `--` line.
template <Described T>
std::string encodeRecords(std::span<const T> values) {
  std::string out;
  for (const T& v : values) {
    putFields(out, v);
    out += kRecordSeparator;
    out += '\n';
  }
  return out;
}

/// Exactly one record of T (T::kName names it in errors: "bad NAME: ...").
/// An empty text is a record with every key absent (a default request when
/// every field is optional).
template <Described T>
Expected<T> decodeRecord(std::string_view text) {
  auto record = parseOne(text, T::kName, /*emptyOk=*/true);
  if (!record) return std::unexpected(record.error());
  T value;
  auto filled = getFields(*record, value);
  if (!filled) return fail("bad " + std::string(T::kName) + ": " + filled.error().message);
  return value;
}

/// Every record of a (merged) reply: errors "bad REPLYNAME: ..." for the
/// text, "bad NAME N: ..." for the Nth record (T::kName, from 0).
template <Described T>
Expected<std::vector<T>> decodeRecords(std::string_view text, std::string_view replyName) {
  auto records = parseRecords(text);
  if (!records) return fail("bad " + std::string(replyName) + ": " + records.error().message);
  std::vector<T> out;
  out.reserve(records->size());
  for (std::size_t n = 0; n < records->size(); ++n) {
    T value;
    auto filled = getFields((*records)[n], value);
    if (!filled)
      return fail("bad " + std::string(T::kName) + " " + std::to_string(n) + ": " + filled.error().message);
    out.push_back(std::move(value));
  }
  return out;
}

}  // namespace mpidbg::ccs::proto
