#pragma once

// Encoders and decoders derived from a message's field list
// (ccs/proto/Field.hpp) over the key=value records of
// ccs/proto/TextRecord.hpp. Byte-compatible with the hand-written encoders
// they replace: keys in the listed order, bools as 0/1, integers decimal or
// 0x hex, text escaped; errors "bad NAME: ..." naming the key.

#include <algorithm>
#include <array>
#include <map>
#include <optional>
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
#include "mpidbg/Text.hpp"

namespace mpidbg::ccs::proto {

/// A message sent once per rank and followed by a `--` line, so the replies
/// of many ranks concatenate (MergeRule::Concatenate in the forwarding tree):
/// its type says `static constexpr bool kListItem = true`.
template <typename T>
concept ListItem = Described<T> && T::kListItem;

/// Where a (sub-)message's keys live: each of its keys is prefixed by
/// `prefix` ("thread.2."), and `indices` ("2.") goes into the element keys of
/// its numbered lists (Items: "frame.2.0"). The top level is Scope{}.
struct Scope {
  std::string prefix;
  std::string indices;
};

template <Described T>
void putFields(std::string& out, const T& value, const Scope& scope);
template <Described T>
Expected<void> getFields(const Record& r, T& value, const Scope& scope);

namespace detail {

/// std::array<E, N> members: comma-separated lists of exactly N values.
template <typename M>
struct ArrayOf : std::false_type {};
template <typename E, std::size_t N>
struct ArrayOf<std::array<E, N>> : std::true_type {
  using Element = E;
  static constexpr std::size_t kSize = N;
};

template <typename E, std::size_t N>
std::string joinValues(const std::array<E, N>& values) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += ',';
    if constexpr (std::is_same_v<E, bool>) out += values[i] ? '1' : '0';
    else out += std::to_string(values[i]);
  }
  return out;
}

/// Splits "a,b,c" into exactly N values of key `key` (bools as 0 or 1).
template <typename E, std::size_t N>
Expected<std::array<E, N>> splitValues(const std::string& key, std::string_view text) {
  using Int = std::conditional_t<std::is_same_v<E, bool>, std::uint8_t, E>;
  std::array<E, N> out{};
  std::size_t i = 0;
  for (;;) {
    const auto comma = text.find(',');
    if (i == N) return fail("key '" + key + "' has more than " + std::to_string(N) + " values");
    auto value = Record::parseInt<Int>(key, text.substr(0, comma));
    if (!value) return std::unexpected(value.error());
    if constexpr (std::is_same_v<E, bool>) {
      if (*value > 1) return fail("key '" + key + "' values must be 0 or 1");
      out[i++] = *value == 1;
    } else {
      out[i++] = *value;
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (i != N) return fail("key '" + key + "' has " + std::to_string(i) + " values, expected " + std::to_string(N));
  return out;
}

/// std::vector<Int> members: comma-separated lists of any length.
template <typename M>
struct VectorOf : std::false_type {};
template <typename E>
struct VectorOf<std::vector<E>> : std::true_type {};

template <typename E>
std::string joinInts(const std::vector<E>& values, Spelling spelling) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    if (spelling == Spelling::Hex) out += hexText(static_cast<std::uint64_t>(values[i]));
    else out += std::to_string(values[i]);
  }
  return out;
}

/// "a,b,c" -> integers of key `key`; "" -> none; at most `max` of them.
template <typename E>
Expected<std::vector<E>> splitInts(const std::string& key, std::string_view text, std::size_t max) {
  std::vector<E> out;
  if (text.empty()) return out;
  for (;;) {
    if (out.size() == max) return fail("key '" + key + "' has more than " + std::to_string(max) + " values");
    const auto comma = text.find(',');
    auto value = Record::parseInt<E>(key, text.substr(0, comma));
    if (!value) return std::unexpected(value.error());
    out.push_back(*value);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

/// std::map<Int, Int> members: comma-separated KEY:VALUE pairs, in key order.
template <typename M>
struct MapOf : std::false_type {};
template <typename K, typename V>
struct MapOf<std::map<K, V>> : std::bool_constant<std::is_integral_v<K> && std::is_integral_v<V>> {};

template <typename K, typename V>
std::string joinPairs(const std::map<K, V>& pairs) {
  std::string out;
  for (const auto& [k, v] : pairs) {
    if (!out.empty()) out += ',';
    out += std::to_string(k) + ':' + std::to_string(v);
  }
  return out;
}

/// "k:v,k:v" -> the pairs of key `key`; "" -> none; at most `max` of them;
/// a key given twice keeps its last value.
template <typename K, typename V>
Expected<std::map<K, V>> splitPairs(const std::string& key, std::string_view text, std::size_t max) {
  std::map<K, V> out;
  for (std::size_t n = 0; !text.empty() || n > 0; ++n) {
    if (n == max) return fail("key '" + key + "' has more than " + std::to_string(max) + " pairs");
    const auto comma = text.find(',');
    const std::string_view pair = text.substr(0, comma);
    const auto colon = pair.find(':');
    if (colon == std::string_view::npos)
      return fail("key '" + key + "': '" + shorten(pair) + "' is not KEY:VALUE");
    auto k = Record::parseInt<K>(key, pair.substr(0, colon));
    if (!k) return std::unexpected(k.error());
    auto v = Record::parseInt<V>(key, pair.substr(colon + 1));
    if (!v) return std::unexpected(v.error());
    out[*k] = *v;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

/// The scope of element `index` of list `f` inside `scope`: its key (one
/// line for a value, the stem of a sub-message's keys) and the indices its
/// own lists carry.
template <typename T, typename E>
Scope elementScope(const Items<T, E>& f, const Scope& scope, std::size_t index) {
  const std::string i = std::to_string(index);
  std::string key = f.byIndices ? std::string(f.stem) + "." + scope.indices + i
                                : scope.prefix + std::string(f.stem) + "." + i;
  return Scope{std::move(key), scope.indices + i + "."};
}

template <typename T, typename M>
void putField(std::string& out, const Field<T, M>& f, const T& value, const Scope& scope) {
  if (f.present != nullptr && !f.present(value)) return;
  if (f.flag != nullptr && !(value.*f.flag)) return;
  const M& v = value.*f.member;
  const std::string key = scope.prefix + std::string(f.key);
  if constexpr (ArrayOf<M>::value) {
    put(out, key, joinValues(v));
  } else if constexpr (VectorOf<M>::value) {
    put(out, key, joinInts(v, f.spelling));
  } else if constexpr (MapOf<M>::value) {
    put(out, key, joinPairs(v));
  } else if constexpr (std::is_same_v<M, bool>) {
    if (f.spellings.size() == 2) put(out, key, f.spellings[v ? 1 : 0]);
    else putFlag(out, key, v);
  } else if constexpr (std::is_same_v<M, std::string>) {
    put(out, key, v);
  } else if constexpr (std::is_enum_v<M>) {
    const auto index = static_cast<std::size_t>(v);
    put(out, key, index < f.spellings.size() ? f.spellings[index] : std::string_view("unknown"));
  } else {
    static_assert(std::is_integral_v<M>, "a described field is a bool, an integer, an enum or a std::string");
    if (f.spelling == Spelling::Hex) putHex(out, key, static_cast<std::uint64_t>(v));
    else putInt(out, key, v);
  }
}

template <typename T, typename E>
void putField(std::string& out, const Items<T, E>& f, const T& value, const Scope& scope) {
  const std::vector<E>& list = value.*f.member;
  if (f.optional && list.empty()) return;
  putInt(out, scope.prefix + std::string(f.countKey), list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    Scope element = elementScope(f, scope, i);
    if constexpr (Described<E>) {
      element.prefix += '.';
      putFields(out, list[i], element);
    } else if constexpr (std::is_same_v<E, std::string>) {
      put(out, element.prefix, list[i]);
    } else {
      put(out, element.prefix, E::toText(list[i]));
    }
  }
}

template <typename T, typename S>
void putField(std::string& out, const Inline<T, S>& f, const T& value, const Scope& scope) {
  putFields(out, value.*f.member, scope);
}

template <typename T, typename S>
void putField(std::string& out, const Sub<T, S>& f, const T& value, const Scope& scope) {
  const std::optional<S>& v = value.*f.member;
  if (v) putFields(out, *v, Scope{scope.prefix + std::string(f.prefix), scope.indices});
}

template <typename M>
Expected<void> checkBounds(std::string_view key, M v, std::int64_t min, std::int64_t max) {
  if (std::cmp_greater_equal(v, min) && std::cmp_less_equal(v, max)) return {};
  if (min == 1 && max == INT64_MAX) return fail("key '" + std::string(key) + "' must be > 0");
  return fail("key '" + std::string(key) + "' must be between " + std::to_string(min) + " and " + std::to_string(max));
}

template <typename T, typename M>
Expected<void> getField(const Record& r, const Field<T, M>& f, T& value, const Scope& scope) {
  const std::string key = scope.prefix + std::string(f.key);
  if (f.flag != nullptr) {
    value.*f.flag = r.has(key);
    if (!(value.*f.flag)) return {};
  }
  if (!r.has(key) && (f.optional || (f.present != nullptr && !f.present(value)))) return {};
  M& target = value.*f.member;
  if constexpr (ArrayOf<M>::value) {
    auto v = r.text(key);
    if (!v) return std::unexpected(v.error());
    auto values = splitValues<typename ArrayOf<M>::Element, ArrayOf<M>::kSize>(key, *v);
    if (!values) return std::unexpected(values.error());
    target = *values;
  } else if constexpr (VectorOf<M>::value) {
    auto v = r.text(key);
    if (!v) return std::unexpected(v.error());
    const std::size_t max = f.max > 0 ? static_cast<std::size_t>(f.max) : SIZE_MAX;
    auto values = splitInts<typename M::value_type>(key, *v, max);
    if (!values) return std::unexpected(values.error());
    target = std::move(*values);
  } else if constexpr (MapOf<M>::value) {
    auto v = r.text(key);
    if (!v) return std::unexpected(v.error());
    const std::size_t max = f.max > 0 ? static_cast<std::size_t>(f.max) : SIZE_MAX;
    auto pairs = splitPairs<typename M::key_type, typename M::mapped_type>(key, *v, max);
    if (!pairs) return std::unexpected(pairs.error());
    target = std::move(*pairs);
  } else if constexpr (std::is_same_v<M, bool>) {
    if (f.spellings.size() == 2) {
      auto v = r.text(key);
      if (!v) return std::unexpected(v.error());
      auto index = lookupName(f.spellings, key, *v);
      if (!index) return std::unexpected(index.error());
      target = *index == 1;
    } else {
      auto v = r.flag(key);
      if (!v) return std::unexpected(v.error());
      target = *v;
    }
  } else if constexpr (std::is_same_v<M, std::string>) {
    auto v = r.text(key);
    if (!v) return std::unexpected(v.error());
    if (f.nonEmpty && v->empty()) return fail("key '" + key + "' is empty");
    if (f.max > 0 && v->size() > static_cast<std::size_t>(f.max))
      return fail("key '" + key + "' is longer than " + std::to_string(f.max) + " bytes");
    target = std::move(*v);
  } else if constexpr (std::is_enum_v<M>) {
    auto v = r.text(key);
    if (!v) return std::unexpected(v.error());
    auto index = lookupName(f.spellings, key, *v);
    if (!index) return std::unexpected(index.error());
    target = static_cast<M>(*index);
  } else {
    auto v = r.integer<M>(key);
    if (!v) return std::unexpected(v.error());
    if (f.bounded) {
      auto inside = checkBounds(key, *v, f.min, f.max);
      if (!inside) return inside;
    }
    target = *v;
  }
  return {};
}

template <typename T, typename E>
Expected<void> getField(const Record& r, const Items<T, E>& f, T& value, const Scope& scope) {
  const std::string countKey = scope.prefix + std::string(f.countKey);
  std::vector<E>& list = value.*f.member;
  list.clear();
  if (f.optional && !r.has(countKey)) return {};
  auto n = r.integer<std::uint64_t>(countKey);
  if (!n) return std::unexpected(n.error());
  if (*n > f.maxCount)
    return fail("key '" + countKey + "' claims " + std::to_string(*n) + " " + std::string(f.noun) + " (at most " +
                std::to_string(f.maxCount) + ")");
  list.reserve(std::min<std::size_t>(static_cast<std::size_t>(*n), 256));
  for (std::size_t i = 0; i < *n; ++i) {
    Scope element = elementScope(f, scope, i);
    if constexpr (Described<E>) {
      E item;
      element.prefix += '.';
      auto filled = getFields(r, item, element);
      if (!filled) return filled;
      list.push_back(std::move(item));
    } else if constexpr (std::is_same_v<E, std::string>) {
      auto text = r.text(element.prefix);
      if (!text) return std::unexpected(text.error());
      list.push_back(std::move(*text));
    } else {
      auto text = r.text(element.prefix);
      if (!text) return std::unexpected(text.error());
      auto item = E::fromText(element.prefix, *text);
      if (!item) return std::unexpected(item.error());
      list.push_back(std::move(*item));
    }
  }
  return {};
}

template <typename T, typename S>
Expected<void> getField(const Record& r, const Inline<T, S>& f, T& value, const Scope& scope) {
  return getFields(r, value.*f.member, scope);
}

template <typename T, typename S>
Expected<void> getField(const Record& r, const Sub<T, S>& f, T& value, const Scope& scope) {
  const Scope inner{scope.prefix + std::string(f.prefix), scope.indices};
  std::optional<S>& target = value.*f.member;
  target.reset();
  if (!r.has(inner.prefix + std::string(std::get<0>(S::fields()).key))) return {};
  S sub;
  auto filled = getFields(r, sub, inner);
  if (!filled) return filled;
  target = std::move(sub);
  return {};
}

}  // namespace detail

/// Appends one line per field of `value`, in the listed order (no
/// separator), every key under `scope` (Scope).
template <Described T>
void putFields(std::string& out, const T& value, const Scope& scope) {
  std::apply([&](const auto&... f) { (detail::putField(out, f, value, scope), ...); }, T::fields());
}

/// The same at the top level (keys as listed).
template <Described T>
void putFields(std::string& out, const T& value) {
  putFields(out, value, Scope{});
}

/// Fills `value`'s fields from `r`, in the listed order, every key under
/// `scope`. Errors (without a prefix): a missing required key, a bad number
/// or flag, a value out of its field's bounds, a list count over its bound.
/// Keys not described are ignored.
template <Described T>
Expected<void> getFields(const Record& r, T& value, const Scope& scope) {
  Expected<void> result;
  std::apply([&](const auto&... f) { (void)((result = detail::getField(r, f, value, scope), result.has_value()) && ...); },
             T::fields());
  return result;
}

/// The same at the top level (keys as listed).
template <Described T>
Expected<void> getFields(const Record& r, T& value) {
  return getFields(r, value, Scope{});
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

/// A reply of one T record followed by a `--` line, for a T that is also
/// sent without one (a rank's status: alone in tests and tools, concatenated
/// through the forwarding tree as the kStatusHandler reply).
template <Described T>
struct Listed {
  T value;
};

/// The bytes of a Listed reply: T's fields, then a `--` line.
template <Described T>
std::string encodeReply(const Listed<T>& reply) {
  std::string out;
  putFields(out, reply.value);
  out += kRecordSeparator;
  out += '\n';
  return out;
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

/// A reply of any number of T records, each followed by a `--` line (a
/// rank's breakpoints, its entry points): the replies of many ranks
/// concatenate into one list (MergeRule::Concatenate).
template <Described T>
struct Records {
  std::vector<T> values;
};

/// The bytes of a Records reply (encodeRecords).
template <Described T>
std::string encodeReply(const Records<T>& reply) {
  return encodeRecords(std::span<const T>(reply.values));
}

/// Every field of `value` from `r` (getFields), then the message's own rule
/// across its fields when it declares one (`static Expected<void>
/// check(const T&)`, Field.hpp).
template <Described T>
Expected<void> getMessage(const Record& r, T& value) {
  auto filled = getFields(r, value);
  if (!filled) return filled;
  if constexpr (requires { T::check(value); }) return T::check(value);
  return {};
}

/// The T that record `r` holds; errors "bad NAME: ..." (T::kName).
template <Described T>
Expected<T> fromRecord(const Record& r) {
  T value;
  auto filled = getMessage(r, value);
  if (!filled) return fail("bad " + std::string(T::kName) + ": " + filled.error().message);
  return value;
}

/// Exactly one record of T (T::kName names it in errors: "bad NAME: ...").
/// An empty text is a record with every key absent (a default request when
/// every field is optional).
template <Described T>
Expected<T> decodeRecord(std::string_view text) {
  auto record = parseOne(text, T::kName, /*emptyOk=*/true);
  if (!record) return std::unexpected(record.error());
  T value;
  auto filled = getMessage(*record, value);
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
    auto filled = getMessage((*records)[n], value);
    if (!filled)
      return fail("bad " + std::string(T::kName) + " " + std::to_string(n) + ": " + filled.error().message);
    out.push_back(std::move(value));
  }
  return out;
}

}  // namespace mpidbg::ccs::proto
