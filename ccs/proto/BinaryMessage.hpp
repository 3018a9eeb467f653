#pragma once

// Binary messages from one description (issue 25, item 2). Charm++'s CpdList
// requests (ccs/proto/ListProtocol.hpp) are big-endian int32s and
// length-prefixed blocks, not the key=value records of ccs/proto/Message.hpp:
// such a message lists its parts once, in wire order, as
// `static constexpr auto parts()`, and encodeBinary / decodeBinary derive
// its bytes. Decoding reads front to back, checks every bound before it
// reads, and names the part in its errors ("bad NAME: the body ends before
// lo"; NAME is T::kName).

#include <algorithm>
#include <cerrno>
#include <climits>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::proto {

/// A big-endian int32 member, called `what` in errors ("the body ends before
/// WHAT"). `check`, when set, runs right after the part is read, on the
/// message decoded so far; its error (without prefix) is the decoder's.
template <typename T>
struct Int32Part {
  std::string_view what;
  std::int32_t T::*member;
  Expected<void> (*check)(const T&) = nullptr;

  /// The same part, checked by `test` once read.
  constexpr Int32Part checked(Expected<void> (*test)(const T&)) const {
    Int32Part p = *this;
    p.check = test;
    return p;
  }
};

/// [int32 length][bytes] of a byte-vector member, at most `max` bytes.
/// Errors: "the body ends before the NAME length", "NAME length N (at most
/// MAX)" (negative N too), "the body ends inside the NAME bytes".
template <typename T>
struct BlockPart {
  std::string_view name;
  std::vector<std::uint8_t> T::*member;
  std::size_t max;
};

/// [int32 length][text][NUL] of a string member, the last part of the body:
/// the NUL is written, optional when decoding, and nothing may follow.
/// Errors: "the body ends before the NAME length", "NAME length N (at most
/// MAX)", "the body ends inside the NAME", "NUL inside the NAME", "K byte(s)
/// after the NAME".
template <typename T>
struct TextPart {
  std::string_view name;
  std::string T::*member;
  std::size_t max;
};

/// [int32 count][count big-endian int32s] of an int32-vector member, the
/// last part of the body: 1 .. `max` values, each in [minValue, maxValue].
/// Errors: "the body ends before the NAME count", "NAME count N (between 1
/// and MAX)", "the body ends inside the NAME", "NAME I is V (between MIN and
/// MAX)", "K byte(s) after the NAME".
template <typename T>
struct Int32ListPart {
  std::string_view name;
  std::vector<std::int32_t> T::*member;
  std::size_t max;
  std::int32_t minValue;
  std::int32_t maxValue;
};

/// An int32 member in the host's byte order (`CcsSendReply(sizeof(int),
/// &reply)`: Charm++'s breakpoint replies), called `what` in errors.
template <typename T>
struct NativeInt32Part {
  std::string_view what;
  std::int32_t T::*member;
};

/// A non-negative int32 member as decimal text ended by a NUL, the last part
/// of the body, read as Charm++ reads an entry index (sscanf "%s", atoi):
/// the text up to the first NUL (bytes after it are ignored) must start with
/// a number (strtoll: blanks and a sign before it, anything after it
/// ignored). Error: "the NAME 'TEXT' is not a number from 0 to 2147483647".
template <typename T>
struct DecimalPart {
  std::string_view name;
  std::int32_t T::*member;
};

/// Every remaining byte of the body (a reply's payload), as is.
template <typename T>
struct RestPart {
  std::vector<std::uint8_t> T::*member;
};

/// The description of int32 member `member` (see Int32Part).
template <typename T>
constexpr Int32Part<T> int32Part(std::string_view what, std::int32_t T::*member) {
  return Int32Part<T>{what, member};
}
/// The description of byte block `member` (see BlockPart).
template <typename T>
constexpr BlockPart<T> blockPart(std::string_view name, std::vector<std::uint8_t> T::*member, std::size_t max) {
  return BlockPart<T>{name, member, max};
}
/// The description of the trailing text `member` (see TextPart).
template <typename T>
constexpr TextPart<T> textPart(std::string_view name, std::string T::*member, std::size_t max) {
  return TextPart<T>{name, member, max};
}
/// The description of the trailing int32 list `member` (see Int32ListPart).
template <typename T>
constexpr Int32ListPart<T> int32ListPart(std::string_view name, std::vector<std::int32_t> T::*member, std::size_t max,
                                         std::int32_t minValue, std::int32_t maxValue) {
  return Int32ListPart<T>{name, member, max, minValue, maxValue};
}
/// The description of native-order int32 `member` (see NativeInt32Part).
template <typename T>
constexpr NativeInt32Part<T> nativeInt32Part(std::string_view what, std::int32_t T::*member) {
  return NativeInt32Part<T>{what, member};
}
/// The description of the trailing decimal `member` (see DecimalPart).
template <typename T>
constexpr DecimalPart<T> decimalPart(std::string_view name, std::int32_t T::*member) {
  return DecimalPart<T>{name, member};
}
/// The description of the rest of the body (see RestPart).
template <typename T>
constexpr RestPart<T> restPart(std::vector<std::uint8_t> T::*member) {
  return RestPart<T>{member};
}

/// A binary message type with a part list (see the top of this file).
template <typename T>
concept BinaryDescribed = requires { T::parts(); };

namespace binary {

/// Reads a body front to back; every read checks the bounds first.
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> body) : body_(body) {}
  std::size_t left() const { return body_.size() - at_; }
  /// Reads the next big-endian int32 into `out`; false when fewer than 4 bytes are left.
  bool int32(std::int32_t& out) {
    if (left() < 4) return false;
    std::uint32_t u = 0;
    for (int i = 0; i < 4; ++i) u = (u << 8) | body_[at_++];
    out = static_cast<std::int32_t>(u);
    return true;
  }
  std::span<const std::uint8_t> take(std::size_t n) {
    auto out = body_.subspan(at_, n);
    at_ += n;
    return out;
  }
  bool nextIsNul() const { return left() > 0 && body_[at_] == 0; }

 private:
  std::span<const std::uint8_t> body_;
  std::size_t at_ = 0;
};

inline void putInt32(std::vector<std::uint8_t>& out, std::int32_t value) {
  const auto u = static_cast<std::uint32_t>(value);
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(u >> shift));
}

template <typename T>
void put(std::vector<std::uint8_t>& out, const Int32Part<T>& p, const T& value) {
  putInt32(out, value.*p.member);
}
template <typename T>
void put(std::vector<std::uint8_t>& out, const BlockPart<T>& p, const T& value) {
  const auto& bytes = value.*p.member;
  putInt32(out, static_cast<std::int32_t>(bytes.size()));
  out.insert(out.end(), bytes.begin(), bytes.end());
}
template <typename T>
void put(std::vector<std::uint8_t>& out, const TextPart<T>& p, const T& value) {
  const std::string& text = value.*p.member;
  putInt32(out, static_cast<std::int32_t>(text.size()));
  out.insert(out.end(), text.begin(), text.end());
  out.push_back(0);
}
template <typename T>
void put(std::vector<std::uint8_t>& out, const Int32ListPart<T>& p, const T& value) {
  const auto& values = value.*p.member;
  putInt32(out, static_cast<std::int32_t>(values.size()));
  for (const std::int32_t v : values) putInt32(out, v);
}
template <typename T>
void put(std::vector<std::uint8_t>& out, const NativeInt32Part<T>& p, const T& value) {
  std::uint8_t bytes[sizeof(std::int32_t)];
  std::memcpy(bytes, &(value.*p.member), sizeof bytes);
  for (const std::uint8_t b : bytes) out.push_back(b);
}
template <typename T>
void put(std::vector<std::uint8_t>& out, const DecimalPart<T>& p, const T& value) {
  const std::string text = std::to_string(value.*p.member);
  out.insert(out.end(), text.begin(), text.end());
  out.push_back(0);
}
template <typename T>
void put(std::vector<std::uint8_t>& out, const RestPart<T>& p, const T& value) {
  const auto& bytes = value.*p.member;
  out.insert(out.end(), bytes.begin(), bytes.end());
}

/// Nothing may follow the last part `name`: else "K byte(s) after the NAME".
inline Expected<void> nothingAfter(const Reader& in, std::string_view name) {
  if (in.left() == 0) return {};
  return fail(std::to_string(in.left()) + (in.left() == 1 ? " byte" : " bytes") + " after the " + std::string(name));
}

/// The length of block or text `name`: 0 .. max.
inline Expected<std::size_t> lengthOf(Reader& in, std::string_view name, std::size_t max) {
  std::int32_t n = 0;
  if (!in.int32(n)) return fail("the body ends before the " + std::string(name) + " length");
  if (n < 0 || static_cast<std::size_t>(n) > max)
    return fail(std::string(name) + " length " + std::to_string(n) + " (at most " + std::to_string(max) + ")");
  return static_cast<std::size_t>(n);
}

template <typename T>
Expected<void> get(Reader& in, const Int32Part<T>& p, T& value) {
  if (!in.int32(value.*p.member)) return fail("the body ends before " + std::string(p.what));
  if (p.check != nullptr) return p.check(value);
  return {};
}
template <typename T>
Expected<void> get(Reader& in, const BlockPart<T>& p, T& value) {
  auto n = lengthOf(in, p.name, p.max);
  if (!n) return std::unexpected(n.error());
  if (in.left() < *n) return fail("the body ends inside the " + std::string(p.name) + " bytes");
  const auto bytes = in.take(*n);
  value.*p.member = std::vector<std::uint8_t>(bytes.begin(), bytes.end());
  return {};
}
template <typename T>
Expected<void> get(Reader& in, const TextPart<T>& p, T& value) {
  auto n = lengthOf(in, p.name, p.max);
  if (!n) return std::unexpected(n.error());
  if (in.left() < *n) return fail("the body ends inside the " + std::string(p.name));
  const auto bytes = in.take(*n);
  if (std::find(bytes.begin(), bytes.end(), 0) != bytes.end()) return fail("NUL inside the " + std::string(p.name));
  if (in.nextIsNul()) in.take(1);
  if (auto end = nothingAfter(in, p.name); !end) return end;
  value.*p.member = std::string(bytes.begin(), bytes.end());
  return {};
}
template <typename T>
Expected<void> get(Reader& in, const Int32ListPart<T>& p, T& value) {
  const std::string name(p.name);
  std::int32_t n = 0;
  if (!in.int32(n)) return fail("the body ends before the " + name + " count");
  if (n < 1 || static_cast<std::size_t>(n) > p.max)
    return fail(name + " count " + std::to_string(n) + " (between 1 and " + std::to_string(p.max) + ")");
  if (in.left() < 4 * static_cast<std::size_t>(n)) return fail("the body ends inside the " + name);
  std::vector<std::int32_t> values(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < values.size(); ++i) {
    in.int32(values[i]);
    if (values[i] < p.minValue || values[i] > p.maxValue)
      return fail(name + " " + std::to_string(i) + " is " + std::to_string(values[i]) + " (between " +
                  std::to_string(p.minValue) + " and " + std::to_string(p.maxValue) + ")");
  }
  if (auto end = nothingAfter(in, p.name); !end) return end;
  value.*p.member = std::move(values);
  return {};
}
template <typename T>
Expected<void> get(Reader& in, const NativeInt32Part<T>& p, T& value) {
  if (in.left() < sizeof(std::int32_t)) return fail("the body ends before " + std::string(p.what));
  const auto bytes = in.take(sizeof(std::int32_t));
  std::memcpy(&(value.*p.member), bytes.data(), bytes.size());
  return {};
}
template <typename T>
Expected<void> get(Reader& in, const DecimalPart<T>& p, T& value) {
  const auto bytes = in.take(in.left());
  const std::string text(bytes.begin(), std::find(bytes.begin(), bytes.end(), 0));
  char* end = nullptr;
  errno = 0;
  const long long number = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || errno == ERANGE || number < 0 || number > INT32_MAX)
    return fail("the " + std::string(p.name) + " '" + text + "' is not a number from 0 to " + std::to_string(INT32_MAX));
  value.*p.member = static_cast<std::int32_t>(number);
  return {};
}
template <typename T>
Expected<void> get(Reader& in, const RestPart<T>& p, T& value) {
  const auto bytes = in.take(in.left());
  value.*p.member = std::vector<std::uint8_t>(bytes.begin(), bytes.end());
  return {};
}

}  // namespace binary

/// The bytes of `value`, part after part.
template <BinaryDescribed T>
std::vector<std::uint8_t> encodeBinary(const T& value) {
  std::vector<std::uint8_t> out;
  std::apply([&](const auto&... p) { (binary::put(out, p, value), ...); }, T::parts());
  return out;
}

/// Decodes `body` as T; errors "bad NAME: ..." (T::kName) naming the part,
/// or "K byte(s) after the message" when bytes follow the last part.
template <BinaryDescribed T>
Expected<T> decodeBinary(std::span<const std::uint8_t> body) {
  binary::Reader in(body);
  T value;
  Expected<void> result;
  std::apply([&](const auto&... p) { (void)((result = binary::get(in, p, value), result.has_value()) && ...); },
             T::parts());
  if (result) result = binary::nothingAfter(in, "message");
  if (!result) return fail("bad " + std::string(T::kName) + ": " + result.error().message);
  return value;
}

}  // namespace mpidbg::ccs::proto
