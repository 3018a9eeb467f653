// PUP (pack/unpack) for mpidbg: applications describe their objects once, with
// `void pup(PUP::er& p)`, and the same description sizes, packs, unpacks and
// shows them to the debugger in Charm++'s `.fmt` and `.txt` item formats
// (../shared/protocols/ccs.md, sections "`.fmt` item format" and "`.txt` item
// format"; byte captures 05b/05c in ../shared/vectors/ccs/). Header-only,
// C++20, no exceptions thrown by the framework itself.
//
//     struct Grid {
//       int nx = 0;
//       std::vector<double> cells;
//       void pup(PUP::er& p) { PUP(nx); PUP(cells); }
//     };
//     std::vector<std::byte> bytes = PUP::pack(grid);
//
// The ers (sizer, packer, unpacker, deleter, fmtWriter, textWriter) are in
// pup_ers.hpp, included at the end of this file.
#pragma once

#include <array>
#include <charconv>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace PUP {

/// Sync codes: structure markers that typed ers (fmtWriter, textWriter) write
/// and binary ers ignore. Values as Charm++ sends them (ccs.md, "`.fmt` item
/// format"; capture 05c).
namespace sync {
inline constexpr std::uint32_t beginArray = 0x71100000u;   ///< a container starts
inline constexpr std::uint32_t endArray = 0x72100000u;     ///< a container ends
inline constexpr std::uint32_t item = 0x70110000u;         ///< the next container element starts
inline constexpr std::uint32_t beginObject = 0x71300000u;  ///< an object with pup() (or a pair/tuple) starts
inline constexpr std::uint32_t endObject = 0x72300000u;    ///< that object ends
inline constexpr std::uint32_t endSystem = 0x79000000u;    ///< end of system fields (Charm++); never written by this header
}  // namespace sync

/// The primitive kinds every er handles: one per fundamental arithmetic type
/// (char8_t/char16_t/char32_t/wchar_t travel as the unsigned integer of their size).
enum class Type : std::uint8_t {
  Bool,
  Char,  ///< text: char arrays and std::string are shown as strings by the typed ers
  SChar,
  UChar,  ///< also std::byte (an enum over unsigned char)
  Short,
  UShort,
  Int,
  UInt,
  Long,
  ULong,
  LongLong,
  ULongLong,
  Float,
  Double,
  LongDouble,
};

/// Bytes one item of `type` occupies in memory (and in the binary ers' output).
constexpr std::size_t sizeOf(Type type) noexcept {
  switch (type) {
    case Type::Bool: return sizeof(bool);
    case Type::Char: return sizeof(char);
    case Type::SChar: return sizeof(signed char);
    case Type::UChar: return sizeof(unsigned char);
    case Type::Short: return sizeof(short);
    case Type::UShort: return sizeof(unsigned short);
    case Type::Int: return sizeof(int);
    case Type::UInt: return sizeof(unsigned int);
    case Type::Long: return sizeof(long);
    case Type::ULong: return sizeof(unsigned long);
    case Type::LongLong: return sizeof(long long);
    case Type::ULongLong: return sizeof(unsigned long long);
    case Type::Float: return sizeof(float);
    case Type::Double: return sizeof(double);
    case Type::LongDouble: return sizeof(long double);
  }
  return 1;
}

/// Any arithmetic type (bool, character and integer types, floating point).
template <class T>
concept Arithmetic = std::is_arithmetic_v<T>;

/// The Type tag of a fundamental arithmetic T that has its own tag.
template <class T>
concept Primitive =
    std::same_as<T, bool> || std::same_as<T, char> || std::same_as<T, signed char> ||
    std::same_as<T, unsigned char> || std::same_as<T, short> || std::same_as<T, unsigned short> ||
    std::same_as<T, int> || std::same_as<T, unsigned int> || std::same_as<T, long> ||
    std::same_as<T, unsigned long> || std::same_as<T, long long> ||
    std::same_as<T, unsigned long long> || std::same_as<T, float> || std::same_as<T, double> ||
    std::same_as<T, long double>;

/// The Type tag of primitive T (see Primitive).
template <Primitive T>
constexpr Type typeOf() noexcept {
  if constexpr (std::same_as<T, bool>) return Type::Bool;
  else if constexpr (std::same_as<T, char>) return Type::Char;
  else if constexpr (std::same_as<T, signed char>) return Type::SChar;
  else if constexpr (std::same_as<T, unsigned char>) return Type::UChar;
  else if constexpr (std::same_as<T, short>) return Type::Short;
  else if constexpr (std::same_as<T, unsigned short>) return Type::UShort;
  else if constexpr (std::same_as<T, int>) return Type::Int;
  else if constexpr (std::same_as<T, unsigned int>) return Type::UInt;
  else if constexpr (std::same_as<T, long>) return Type::Long;
  else if constexpr (std::same_as<T, unsigned long>) return Type::ULong;
  else if constexpr (std::same_as<T, long long>) return Type::LongLong;
  else if constexpr (std::same_as<T, unsigned long long>) return Type::ULongLong;
  else if constexpr (std::same_as<T, float>) return Type::Float;
  else if constexpr (std::same_as<T, double>) return Type::Double;
  else return Type::LongDouble;
}

/// The base of every er: one walk over an object's fields, in the order its
/// pup() names them, that sizes, packs, unpacks, frees or describes them.
/// Not copyable. Failures (an unpacker running out of input, a fmtWriter
/// asked for a count its format cannot hold) set failed(); the walk goes on
/// (an unpacker reads nothing more, containers stop filling) and the output
/// is unusable, so callers check failed() once at the end.
class er {
 public:
  /// What a walk does with the fields.
  enum class Mode : std::uint8_t { Sizing, Packing, Unpacking, Deleting };

  /// Not copyable: an er is one walk with its own output or input position.
  er(const er&) = delete;
  /// Not assignable, as above.
  er& operator=(const er&) = delete;
  /// Ers are used through er&; the concrete ers own their buffers.
  virtual ~er() = default;

  /// The er's mode; fixed at construction.
  Mode mode() const noexcept { return mode_; }
  /// Counting bytes only (PUP::sizer).
  bool isSizing() const noexcept { return mode_ == Mode::Sizing; }
  /// Reading the object's fields into some output (packer, fmtWriter, textWriter).
  bool isPacking() const noexcept { return mode_ == Mode::Packing; }
  /// Writing the object's fields from some input (unpacker): pup() may need to
  /// allocate before pupping what it points to.
  bool isUnpacking() const noexcept { return mode_ == Mode::Unpacking; }
  /// The object is going away (deleter): pup() may free what it owns.
  bool isDeleting() const noexcept { return mode_ == Mode::Deleting; }
  /// True for ers that describe the data to a reader (fmtWriter,
  /// textWriter): they keep labels, syncs and pointers. Binary ers ignore those.
  bool isTyped() const noexcept { return typed_; }
  /// True once the walk could not be completed (see the class comment).
  bool failed() const noexcept { return failed_; }
  /// Marks the walk failed (see the class comment); cannot be undone.
  void markFailed() noexcept { failed_ = true; }

  /// A label for the next field (the PUP(field) macro passes the field's
  /// name). Default: ignored.
  virtual void comment(std::string_view label) { (void)label; }
  /// A structure marker, one of PUP::sync. Default: ignored.
  virtual void syncer(std::uint32_t code) { (void)code; }
  /// A pointer field, shown by typed ers as an address; binary ers ignore it
  /// (an address means nothing in another process). Default: ignored.
  virtual void pointer(const void* ptr) { (void)ptr; }
  /// A container's element count `n`. Binary ers carry it (8 bytes, native
  /// order); an unpacker replaces it with the stored count, and when that
  /// count cannot fit in the bytes left at `minItemBytes` per element (0 =
  /// unknown) it marks the er failed and sets n = 0. Typed ers leave the count
  /// implicit (the number of sync::item markers). Default: nothing.
  virtual void count(std::uint64_t& n, std::size_t minItemBytes) {
    (void)n;
    (void)minItemBytes;
  }
  /// The primitive hook: `n` consecutive items of `type` at `data` (read when
  /// packing, written when unpacking).
  virtual void primitive(void* data, std::size_t n, Type type) = 0;

  /// `n` consecutive arithmetic items: one primitive field.
  template <Arithmetic T>
  void operator()(T* ptr, std::size_t n) {
    if constexpr (Primitive<T>) {
      primitive(ptr, n, typeOf<T>());
    } else {  // char8_t, char16_t, char32_t, wchar_t: as the same-size unsigned integer
      using U = std::conditional_t<
          sizeof(T) == 1, unsigned char,
          std::conditional_t<sizeof(T) == 2, unsigned short,
                             std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>>>;
      for (std::size_t i = 0; i < n; ++i) {
        U value = static_cast<U>(ptr[i]);
        primitive(&value, 1, typeOf<U>());
        if (isUnpacking()) ptr[i] = static_cast<T>(value);
      }
    }
  }
  /// `n` consecutive PUP-able items (fixed n, known to both sides, so no
  /// count): sync::beginArray, then sync::item and the item for each,
  /// then sync::endArray.
  template <class T>
    requires(!Arithmetic<T>)
  void operator()(T* ptr, std::size_t n) {
    syncer(sync::beginArray);
    for (std::size_t i = 0; i < n; ++i) {
      syncer(sync::item);
      *this | ptr[i];
    }
    syncer(sync::endArray);
  }
  /// One field of any PUP-able type: same as `p | x`.
  template <class T>
  void operator()(T& x) {
    *this | x;
  }

 protected:
  /// `typed`: see isTyped().
  er(Mode mode, bool typed) noexcept : mode_(mode), typed_(typed) {}

 private:
  Mode mode_;
  bool typed_;
  bool failed_ = false;
};

/// A type with a member `void pup(PUP::er&)`.
template <class T>
concept HasPupMember = requires(T& t, er& p) { t.pup(p); };

namespace detail {

/// Smallest number of bytes a T takes in binary ers' output (0 when unknown),
/// used to reject element counts that cannot fit in the input.
template <class T>
struct MinSize : std::integral_constant<std::size_t, 0> {};
template <Arithmetic T>
struct MinSize<T> : std::integral_constant<std::size_t, sizeof(T)> {};
template <class T>
  requires std::is_enum_v<T>
struct MinSize<T> : std::integral_constant<std::size_t, sizeof(std::underlying_type_t<T>)> {};
template <class C, class Tr, class A>
struct MinSize<std::basic_string<C, Tr, A>> : std::integral_constant<std::size_t, 8> {};
template <class T, class A>
struct MinSize<std::vector<T, A>> : std::integral_constant<std::size_t, 8> {};
template <class T, class A>
struct MinSize<std::list<T, A>> : std::integral_constant<std::size_t, 8> {};
template <class K, class V, class C, class A>
struct MinSize<std::map<K, V, C, A>> : std::integral_constant<std::size_t, 8> {};
template <class K, class V, class C, class A>
struct MinSize<std::multimap<K, V, C, A>> : std::integral_constant<std::size_t, 8> {};
template <class T>
struct MinSize<std::optional<T>> : std::integral_constant<std::size_t, 8> {};
template <class T, std::size_t N>
struct MinSize<std::array<T, N>> : std::integral_constant<std::size_t, N * MinSize<T>::value> {};
template <class A, class B>
struct MinSize<std::pair<A, B>>
    : std::integral_constant<std::size_t, MinSize<A>::value + MinSize<B>::value> {};
template <class... Ts>
struct MinSize<std::tuple<Ts...>>
    : std::integral_constant<std::size_t, (std::size_t{0} + ... + MinSize<Ts>::value)> {};

/// Labels "0", "1", ... for tuple elements.
inline std::string_view indexLabel(std::size_t i, std::array<char, 24>& buffer) {
  auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), i);
  return std::string_view(buffer.data(), static_cast<std::size_t>(result.ptr - buffer.data()));
}

/// Shared body of list-like containers (vector, list): count, then each
/// element after sync::item, all inside sync::beginArray/endArray. Unpacking
/// clears `c` and appends default-constructed elements, stopping on failure.
template <class C>
void pupSequence(er& p, C& c) {
  using T = typename C::value_type;
  std::uint64_t n = c.size();
  p.syncer(sync::beginArray);
  p.count(n, MinSize<T>::value);
  if (p.isUnpacking()) {
    c.clear();
    for (std::uint64_t i = 0; i < n && !p.failed(); ++i) {
      p.syncer(sync::item);
      c.emplace_back();
      p | c.back();
    }
  } else {
    for (auto& element : c) {
      p.syncer(sync::item);
      p | element;
    }
  }
  p.syncer(sync::endArray);
}

/// Shared body of map and multimap: each element is an item holding the
/// fields "key" and "value". Unpacking clears `m` and inserts in order.
template <class M>
void pupMap(er& p, M& m) {
  using K = typename M::key_type;
  using V = typename M::mapped_type;
  std::uint64_t n = m.size();
  p.syncer(sync::beginArray);
  p.count(n, MinSize<K>::value + MinSize<V>::value);
  if (p.isUnpacking()) {
    m.clear();
    for (std::uint64_t i = 0; i < n && !p.failed(); ++i) {
      K key{};
      V value{};
      p.syncer(sync::item);
      p.comment("key");
      p | key;
      p.comment("value");
      p | value;
      if (!p.failed()) m.emplace_hint(m.end(), std::move(key), std::move(value));
    }
  } else {
    for (auto& [key, value] : m) {
      p.syncer(sync::item);
      p.comment("key");
      p | const_cast<K&>(key);  // packing and sizing only read it
      p.comment("value");
      p | value;
    }
  }
  p.syncer(sync::endArray);
}

}  // namespace detail

/// Arithmetic fields (bool, char, integers, floating point): one primitive.
template <Arithmetic T>
void operator|(er& p, T& x) {
  p(&x, 1);
}

/// Enums (and std::byte): as their underlying integer type.
template <class E>
  requires std::is_enum_v<E>
void operator|(er& p, E& e) {
  auto value = static_cast<std::underlying_type_t<E>>(e);
  p | value;
  if (p.isUnpacking()) e = static_cast<E>(value);
}

/// std::string: the count, then the characters as one Type::Char field
/// (typed ers: one string, as 'name' in capture 05c; no syncs).
inline void operator|(er& p, std::string& s) {
  std::uint64_t n = s.size();
  p.count(n, 1);
  if (p.isUnpacking()) {
    s.clear();
    if (p.failed()) return;
    s.resize(static_cast<std::size_t>(n));
  }
  p(s.data(), s.size());
}

/// std::vector: sync::beginArray, count, (sync::item, element)..., sync::endArray.
/// Binary ers move arithmetic elements in one block; the bytes are the same.
template <class T, class A>
void operator|(er& p, std::vector<T, A>& v) {
  if constexpr (Arithmetic<T>) {
    if (!p.isTyped()) {
      std::uint64_t n = v.size();
      p.syncer(sync::beginArray);
      p.count(n, sizeof(T));
      if (p.isUnpacking()) {
        v.clear();
        if (!p.failed()) v.resize(static_cast<std::size_t>(n));
      }
      p(v.data(), v.size());
      p.syncer(sync::endArray);
      return;
    }
  }
  detail::pupSequence(p, v);
}

/// std::vector<bool>: as std::vector, one bool per element.
template <class A>
void operator|(er& p, std::vector<bool, A>& v) {
  std::uint64_t n = v.size();
  p.syncer(sync::beginArray);
  p.count(n, sizeof(bool));
  if (p.isUnpacking()) {
    v.clear();
    if (!p.failed()) v.resize(static_cast<std::size_t>(n));
  }
  for (std::size_t i = 0; i < v.size() && !p.failed(); ++i) {
    bool bit = v[i];
    p.syncer(sync::item);
    p | bit;
    if (p.isUnpacking()) v[i] = bit;
  }
  p.syncer(sync::endArray);
}

/// std::list: as std::vector.
template <class T, class A>
void operator|(er& p, std::list<T, A>& l) {
  detail::pupSequence(p, l);
}

/// std::map: as a container whose items hold the fields "key" and "value".
template <class K, class V, class C, class A>
void operator|(er& p, std::map<K, V, C, A>& m) {
  detail::pupMap(p, m);
}

/// std::multimap: as std::map; equal keys keep their order.
template <class K, class V, class C, class A>
void operator|(er& p, std::multimap<K, V, C, A>& m) {
  detail::pupMap(p, m);
}

/// std::array: N is fixed, so no count: as p(data, N) (one primitive field
/// for arithmetic T, else sync::beginArray, items, sync::endArray).
template <class T, std::size_t N>
void operator|(er& p, std::array<T, N>& a) {
  p(a.data(), N);
}

/// Built-in arrays T[N]: as std::array.
template <class T, std::size_t N>
void operator|(er& p, T (&a)[N]) {
  p(&a[0], N);
}

/// std::pair: an object (sync::beginObject/endObject) with fields "first", "second".
template <class A, class B>
void operator|(er& p, std::pair<A, B>& pair) {
  p.syncer(sync::beginObject);
  p.comment("first");
  p | pair.first;
  p.comment("second");
  p | pair.second;
  p.syncer(sync::endObject);
}

/// std::tuple: an object with fields "0", "1", ...
template <class... Ts>
void operator|(er& p, std::tuple<Ts...>& tuple) {
  p.syncer(sync::beginObject);
  if constexpr (sizeof...(Ts) > 0) {
    std::apply(
        [&p](auto&... elements) {
          std::size_t index = 0;
          std::array<char, 24> buffer{};
          ((p.comment(detail::indexLabel(index++, buffer)), p | elements), ...);
        },
        tuple);
  }
  p.syncer(sync::endObject);
}

/// std::optional: a container of 0 or 1 items (an unpacked count above 1
/// marks the er failed).
template <class T>
void operator|(er& p, std::optional<T>& o) {
  std::uint64_t n = o.has_value() ? 1 : 0;
  p.syncer(sync::beginArray);
  p.count(n, detail::MinSize<T>::value);
  if (p.isUnpacking()) {
    o.reset();
    if (n > 1) p.markFailed();
    if (n == 1 && !p.failed()) o.emplace();
  }
  if (o.has_value()) {
    p.syncer(sync::item);
    p | *o;
  }
  p.syncer(sync::endArray);
}

/// User types with a member pup(): sync::beginObject, t.pup(p),
/// sync::endObject. A free `operator|(PUP::er&, T&)` found by ADL is a better
/// match and replaces this one.
template <HasPupMember T>
void operator|(er& p, T& t) {
  p.syncer(sync::beginObject);
  t.pup(p);
  p.syncer(sync::endObject);
}

/// Charm++'s list wrapper (the reply of ccs_list_items.fmt/.txt, captures
/// 05b/05c): sync::beginArray and the comment "CpdList".
inline void beginList(er& p) {
  p.syncer(sync::beginArray);
  p.comment("CpdList");
}

/// Starts the next list item: sync::item.
inline void listItem(er& p) {
  p.syncer(sync::item);
}

/// sync::item, then the item's fields directly: item.pup(p) without object
/// syncs for types with a member pup() (the shape of capture 05c), `p | item`
/// otherwise.
template <class T>
void listItem(er& p, T& item) {
  listItem(p);
  if constexpr (HasPupMember<T>) {
    item.pup(p);
  } else {
    p | item;
  }
}

/// Ends the list: sync::endArray.
inline void endList(er& p) {
  p.syncer(sync::endArray);
}

}  // namespace PUP

/// Inside `void pup(PUP::er& p)`: labels the next field with its source text
/// and pups it, e.g. `PUP(nx); PUP(cells);`. Needs an er named `p` in scope.
/// (A function-like macro: `PUP::er` is untouched, it is not followed by '('.)
#define PUP(field)     \
  do {                 \
    p.comment(#field); \
    p | (field);       \
  } while (0)

#include "pup_ers.hpp"
