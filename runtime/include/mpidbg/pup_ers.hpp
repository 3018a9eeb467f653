// The concrete PUP::er classes (included by pup.hpp; include pup.hpp itself):
// binary ers (sizer, packer, unpacker, deleter) for moving objects between
// processes, and typed ers (fmtWriter, textWriter) that describe objects in
// Charm++'s `.fmt` and `.txt` item formats for the debugger
// (../shared/protocols/ccs.md; captures 05b and 05c in ../shared/vectors/ccs/).
#pragma once

#include <bit>
#include <cstring>
#include <span>

#include "pup.hpp"

namespace PUP {

/// Counts the bytes packer would write for the same walk: size() ==
/// packer(...).bytes().size() for the same object.
class sizer final : public er {
 public:
  /// Starts at size 0.
  sizer() noexcept : er(Mode::Sizing, false) {}
  /// Bytes counted so far.
  std::size_t size() const noexcept { return size_; }
  /// Counts the 8 bytes of a container count.
  void count(std::uint64_t&, std::size_t) override { size_ += sizeof(std::uint64_t); }
  /// Counts n * sizeOf(type) bytes.
  void primitive(void*, std::size_t n, Type type) override { size_ += n * sizeOf(type); }

 private:
  std::size_t size_ = 0;
};

/// Binary packing: each primitive item as its in-memory bytes (native byte
/// order and sizes: for the same build on the same machine, not a wire
/// format), container counts as 8-byte native integers; labels, syncs and
/// pointers are dropped. Appends to its own buffer or to a caller's vector.
class packer final : public er {
 public:
  /// Packs into the packer's own buffer.
  packer() noexcept : er(Mode::Packing, false), out_(&own_) {}
  /// Appends to `out`, which must outlive the packer.
  explicit packer(std::vector<std::byte>& out) noexcept : er(Mode::Packing, false), out_(&out) {}
  /// The buffer written to (for the second constructor, the caller's vector,
  /// including whatever it held before).
  const std::vector<std::byte>& bytes() const noexcept { return *out_; }
  /// Moves the buffer out; the packer's buffer is left empty.
  std::vector<std::byte> take() noexcept {
    std::vector<std::byte> out = std::move(*out_);
    out_->clear();
    return out;
  }

  /// Appends `n` as 8 native-order bytes.
  void count(std::uint64_t& n, std::size_t) override { append(&n, sizeof n); }
  /// Appends the n * sizeOf(type) bytes at `data`.
  void primitive(void* data, std::size_t n, Type type) override { append(data, n * sizeOf(type)); }

 private:
  void append(const void* data, std::size_t size) {
    const auto* first = static_cast<const std::byte*>(data);
    out_->insert(out_->end(), first, first + size);
  }
  std::vector<std::byte> own_;
  std::vector<std::byte>* out_;
};

/// Reads what packer wrote. Never reads past the end of its input: a
/// primitive or count that does not fit marks the er failed, leaves the
/// destination untouched and makes every later read a no-op (containers then
/// stop filling; their contents are unspecified). Bools read as (byte != 0).
class unpacker final : public er {
 public:
  /// Reads from `in`, which must outlive the unpacker.
  explicit unpacker(std::span<const std::byte> in) noexcept : er(Mode::Unpacking, false), in_(in) {}
  /// Same, over raw octets.
  explicit unpacker(std::span<const std::uint8_t> in) noexcept
      : unpacker(std::as_bytes(in)) {}
  /// Bytes read so far.
  std::size_t consumed() const noexcept { return offset_; }
  /// Bytes not read yet.
  std::size_t remaining() const noexcept { return in_.size() - offset_; }

  /// Reads a count (see er::count); 0 and failed() when it is missing or too large.
  void count(std::uint64_t& n, std::size_t minItemBytes) override {
    n = 0;
    if (failed()) return;
    if (remaining() < sizeof n) return markFailed();
    std::uint64_t stored = 0;
    std::memcpy(&stored, in_.data() + offset_, sizeof stored);
    offset_ += sizeof stored;
    if (stored > SIZE_MAX || (minItemBytes != 0 && stored > remaining() / minItemBytes))
      return markFailed();
    n = stored;
  }
  /// Reads n * sizeOf(type) bytes into `data`, or fails without touching it.
  void primitive(void* data, std::size_t n, Type type) override {
    std::size_t size = sizeOf(type);
    if (failed()) return;
    if (n > remaining() / size) return markFailed();
    if (type == Type::Bool) {
      auto* out = static_cast<bool*>(data);
      for (std::size_t i = 0; i < n; ++i) {
        bool set = false;
        for (std::size_t b = 0; b < size; ++b) set = set || in_[offset_ + i * size + b] != std::byte{0};
        out[i] = set;
      }
    } else if (n != 0) {
      std::memcpy(data, in_.data() + offset_, n * size);
    }
    offset_ += n * size;
  }

 private:
  std::span<const std::byte> in_;
  std::size_t offset_ = 0;
};

/// Walks an object that is going away so its pup() can free what it owns
/// (isDeleting()); moves no data.
class deleter final : public er {
 public:
  /// A deleting walk.
  deleter() noexcept : er(Mode::Deleting, false) {}
  /// Moves nothing.
  void primitive(void*, std::size_t, Type) override {}
};

/// Charm++'s `.fmt` item format (ccs.md "`.fmt` item format", capture 05c):
/// one record per field, all numbers big-endian. Intro byte = (lenLen << 4) |
/// type; lenLen 0 = single item, 1 = one-byte count, 2 = four-byte count.
/// Mapping: char arrays and std::string -> type 0 always counted (a string);
/// signed/unsigned char -> type 0 (single when n == 1); bool, short,
/// unsigned short, int -> type 2 int32; unsigned int, long, long long and
/// their unsigned forms -> type 3 int64 (unsigned 64-bit values above
/// INT64_MAX arrive as their two's-complement bit pattern); float -> 5;
/// double and long double (rounded to double) -> 6; comment() -> type 10
/// (counted text); syncer() -> type 11 (one uint32); pointer() -> type 12 (8
/// bytes). Containers carry no count record: their length is the number of
/// sync::item markers between sync::beginArray and sync::endArray. A count
/// above 2^32 - 1 cannot be written: the record is dropped and failed() set.
class fmtWriter final : public er {
 public:
  /// Type codes of the intro byte's low nibble.
  enum Code : std::uint8_t {
    kBytes = 0,
    kInt32 = 2,
    kInt64 = 3,
    kFloat = 5,
    kDouble = 6,
    kComment = 10,
    kSync = 11,
    kPointer = 12
  };

  /// Starts with no records.
  fmtWriter() noexcept : er(Mode::Packing, true) {}
  /// The records written so far.
  const std::vector<std::uint8_t>& bytes() const noexcept { return out_; }

  /// A type-10 record: the label as counted text.
  void comment(std::string_view label) override {
    if (intro(kComment, label.size(), true)) out_.insert(out_.end(), label.begin(), label.end());
  }
  /// A type-11 record: `code` as a big-endian uint32.
  void syncer(std::uint32_t code) override {
    intro(kSync, 1, false);
    be(code, 4);
  }
  /// A type-12 record: the address as 8 big-endian bytes.
  void pointer(const void* ptr) override {
    intro(kPointer, 1, false);
    be(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(ptr)), 8);
  }
  /// One record for the n items, mapped as the class comment says.
  void primitive(void* data, std::size_t n, Type type) override {
    switch (type) {
      case Type::Char: return raw(data, n, true);
      case Type::SChar:
      case Type::UChar: return raw(data, n, n != 1);
      case Type::Bool: return ints<bool>(data, n, kInt32, 4);
      case Type::Short: return ints<short>(data, n, kInt32, 4);
      case Type::UShort: return ints<unsigned short>(data, n, kInt32, 4);
      case Type::Int: return ints<int>(data, n, kInt32, 4);
      case Type::UInt: return ints<unsigned int>(data, n, kInt64, 8);
      case Type::Long: return ints<long>(data, n, kInt64, 8);
      case Type::ULong: return ints<unsigned long>(data, n, kInt64, 8);
      case Type::LongLong: return ints<long long>(data, n, kInt64, 8);
      case Type::ULongLong: return ints<unsigned long long>(data, n, kInt64, 8);
      case Type::Float:
        if (!intro(kFloat, n, n != 1)) return;
        for (std::size_t i = 0; i < n; ++i)
          be(std::bit_cast<std::uint32_t>(static_cast<const float*>(data)[i]), 4);
        return;
      case Type::Double: return doubles<double>(data, n);
      case Type::LongDouble: return doubles<long double>(data, n);
    }
  }

 private:
  /// Writes the intro byte and count; false (and failed()) when n does not fit.
  bool intro(Code code, std::size_t n, bool counted) {
    if (!counted) {
      out_.push_back(code);
    } else if (n < 256) {
      out_.push_back(static_cast<std::uint8_t>(0x10 | code));
      out_.push_back(static_cast<std::uint8_t>(n));
    } else if (n <= 0xffffffffu) {
      out_.push_back(static_cast<std::uint8_t>(0x20 | code));
      be(n, 4);
    } else {
      markFailed();
      return false;
    }
    return true;
  }
  void be(std::uint64_t value, int width) {
    for (int shift = (width - 1) * 8; shift >= 0; shift -= 8)
      out_.push_back(static_cast<std::uint8_t>(value >> shift));
  }
  void raw(const void* data, std::size_t n, bool counted) {
    if (!intro(kBytes, n, counted)) return;
    const auto* first = static_cast<const std::uint8_t*>(data);
    out_.insert(out_.end(), first, first + n);
  }
  template <class T>
  void ints(const void* data, std::size_t n, Code code, int width) {
    if (!intro(code, n, n != 1)) return;
    for (std::size_t i = 0; i < n; ++i)
      be(static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<const T*>(data)[i])),
         width);
  }
  template <class T>
  void doubles(const void* data, std::size_t n) {
    if (!intro(kDouble, n, n != 1)) return;
    for (std::size_t i = 0; i < n; ++i)
      be(std::bit_cast<std::uint64_t>(static_cast<double>(static_cast<const T*>(data)[i])), 8);
  }

  std::vector<std::uint8_t> out_;
};

/// Charm++'s `.txt` item format (ccs.md "`.txt` item format", capture 05b):
/// one line per field, each ending in '\n'. `//label` for comment(),
/// `sync=0x71100000` (8 lowercase hex digits) for syncer(),
/// `pointer=0x7ffd...;` for pointer(), `string="...";` for char arrays and
/// std::string (`"`, `\`, and bytes below 0x20 or 0x7f escaped as `\"`,
/// `\\`, `\n`, `\t`, `\xHH`), and `<type>=<value>;` for one item, with type
/// bool, schar, uchar, short, ushort, int, uint, long, ulong, longlong,
/// ulonglong, float, double, longdouble (floating point in shortest
/// round-trip form). Other arrays (n != 1) are `begin array N {`, one line per
/// item indented by one more tab, `} end array;`. Sync markers do not indent
/// (as in capture 05b), so tabs appear only inside such arrays. The text has
/// no final NUL: whoever finishes the ccs_list_items.txt reply appends it.
class textWriter final : public er {
 public:
  /// Starts with empty text.
  textWriter() noexcept : er(Mode::Packing, true) {}
  /// The text written so far, without the reply's final NUL.
  const std::string& str() const noexcept { return out_; }

  /// A `//label` line.
  void comment(std::string_view label) override {
    std::string text = "//";
    text += label;
    line(text);
  }
  /// A `sync=0x........` line.
  void syncer(std::uint32_t code) override { line("sync=0x" + hex(code, 8)); }
  /// A `pointer=0x...;` line.
  void pointer(const void* ptr) override {
    line("pointer=0x" + hex(reinterpret_cast<std::uintptr_t>(ptr), 0) + ";");
  }
  /// A string line, one `<type>=<value>;` line, or a `begin array N {` block.
  void primitive(void* data, std::size_t n, Type type) override {
    if (type == Type::Char) return string(static_cast<const char*>(data), n);
    if (n != 1) line("begin array " + std::to_string(n) + " {");
    if (n != 1) ++level_;
    for (std::size_t i = 0; i < n; ++i) item(data, i, type);
    if (n != 1) --level_;
    if (n != 1) line("} end array;");
  }

 private:
  void line(std::string_view text) {
    out_.append(level_, '\t');
    out_ += text;
    out_ += '\n';
  }
  static std::string hex(std::uint64_t value, std::size_t digits) {
    std::string text;
    do {
      text.insert(text.begin(), "0123456789abcdef"[value & 0xf]);
      value >>= 4;
    } while (value != 0);
    if (text.size() < digits) text.insert(0, digits - text.size(), '0');
    return text;
  }
  template <class T>
  static std::string number(T value) {
    char buffer[64];
    auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
  }
  template <class T>
  void field(const char* name, const void* data, std::size_t i) {
    T value = static_cast<const T*>(data)[i];
    std::string text = name;
    text += '=';
    if constexpr (std::same_as<T, bool>) {
      text += value ? "true" : "false";
    } else if constexpr (sizeof(T) == 1) {
      text += number(static_cast<int>(value));
    } else {
      text += number(value);
    }
    text += ';';
    line(text);
  }
  void item(const void* data, std::size_t i, Type type) {
    switch (type) {
      case Type::Bool: return field<bool>("bool", data, i);
      case Type::Char:  // handled by string()
      case Type::SChar: return field<signed char>("schar", data, i);
      case Type::UChar: return field<unsigned char>("uchar", data, i);
      case Type::Short: return field<short>("short", data, i);
      case Type::UShort: return field<unsigned short>("ushort", data, i);
      case Type::Int: return field<int>("int", data, i);
      case Type::UInt: return field<unsigned int>("uint", data, i);
      case Type::Long: return field<long>("long", data, i);
      case Type::ULong: return field<unsigned long>("ulong", data, i);
      case Type::LongLong: return field<long long>("longlong", data, i);
      case Type::ULongLong: return field<unsigned long long>("ulonglong", data, i);
      case Type::Float: return field<float>("float", data, i);
      case Type::Double: return field<double>("double", data, i);
      case Type::LongDouble: return field<long double>("longdouble", data, i);
    }
  }
  void string(const char* text, std::size_t n) {
    std::string escaped = "string=\"";
    for (std::size_t i = 0; i < n; ++i) {
      auto c = static_cast<unsigned char>(text[i]);
      if (c == '"' || c == '\\') {
        escaped += '\\';
        escaped += static_cast<char>(c);
      } else if (c == '\n') {
        escaped += "\\n";
      } else if (c == '\t') {
        escaped += "\\t";
      } else if (c < 0x20 || c == 0x7f) {
        escaped += "\\x" + hex(c, 2);
      } else {
        escaped += static_cast<char>(c);
      }
    }
    escaped += "\";";
    line(escaped);
  }

  std::string out_;
  std::size_t level_ = 0;
};

/// Bytes `value` packs to (PUP::sizer).
template <class T>
std::size_t packedSize(T& value) {
  sizer p;
  p | value;
  return p.size();
}

/// `value` packed by PUP::packer.
template <class T>
std::vector<std::byte> pack(T& value) {
  packer p;
  p | value;
  return p.take();
}

/// Unpacks `value` from `in` (PUP::unpacker); true when nothing failed and
/// every byte of `in` was used. On false, `value` is partly overwritten.
template <class T>
bool unpack(std::span<const std::byte> in, T& value) {
  unpacker p(in);
  p | value;
  return !p.failed() && p.remaining() == 0;
}

}  // namespace PUP
