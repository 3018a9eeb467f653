#include "debugger/core/mqs/DwarfValues.hpp"

#include <dwarf.h>

#include <charconv>
#include <cstring>
#include <optional>

namespace mpidbg::core::mqs {

namespace {

constexpr int kMaxDepth = 4;
constexpr Dwarf_Word kMaxArray = 16;

std::optional<Dwarf_Word> attrUnsigned(Dwarf_Die* die, unsigned name) {
  Dwarf_Attribute attr;
  Dwarf_Word value = 0;
  if (!::dwarf_attr_integrate(die, name, &attr) || ::dwarf_formudata(&attr, &value) != 0) return std::nullopt;
  return value;
}

/// The DIE `die`'s DW_AT_type refers to.
bool typeOf(Dwarf_Die* die, Dwarf_Die* out) {
  Dwarf_Attribute attr;
  return ::dwarf_attr_integrate(die, DW_AT_type, &attr) && ::dwarf_formref_die(&attr, out) != nullptr;
}

/// Little-endian (x86-64) unsigned value of `size` bytes.
std::uint64_t readUnsigned(std::span<const std::uint8_t> bytes, std::size_t size) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < size && i < 8; ++i) value |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
  return value;
}

std::string hexOf(std::uint64_t value) {
  char text[24];
  auto [end, ec] = std::to_chars(text, text + sizeof text, value, 16);
  return "0x" + std::string(text, end);
}

template <typename T>
std::string shortest(T value) {
  char text[64];
  auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  return std::string(text, end);
}

void decode(Dwarf_Die type, std::span<const std::uint8_t> bytes, const std::string& path, int depth,
            std::vector<std::pair<std::string, std::string>>& out);

/// The value of a scalar `type` (peeled) at the front of `bytes`, or nullopt.
std::optional<std::string> scalar(Dwarf_Die& type, std::span<const std::uint8_t> bytes) {
  const int tag = ::dwarf_tag(&type);
  const auto size = attrUnsigned(&type, DW_AT_byte_size).value_or(tag == DW_TAG_pointer_type ? 8 : 0);
  if (size == 0 || size > 8 || size > bytes.size()) return std::nullopt;
  const std::uint64_t raw = readUnsigned(bytes, size);
  if (tag == DW_TAG_pointer_type) return hexOf(raw);
  if (tag == DW_TAG_enumeration_type) {
    Dwarf_Die child;
    if (::dwarf_child(&type, &child) == 0) {
      do {
        Dwarf_Attribute attr;
        Dwarf_Sword value = 0;
        if (::dwarf_tag(&child) == DW_TAG_enumerator && ::dwarf_attr(&child, DW_AT_const_value, &attr) &&
            ::dwarf_formsdata(&attr, &value) == 0 && static_cast<std::uint64_t>(value) == raw)
          return std::string(::dwarf_diename(&child) ? ::dwarf_diename(&child) : "?");
      } while (::dwarf_siblingof(&child, &child) == 0);
    }
    return std::to_string(raw);
  }
  if (tag != DW_TAG_base_type) return std::nullopt;
  const auto encoding = attrUnsigned(&type, DW_AT_encoding).value_or(0);
  switch (encoding) {
    case DW_ATE_boolean:
      return std::string(raw != 0 ? "true" : "false");
    case DW_ATE_float:
      if (size == 4) {
        float f;
        std::memcpy(&f, bytes.data(), 4);
        return shortest(f);
      }
      if (size == 8) {
        double d;
        std::memcpy(&d, bytes.data(), 8);
        return shortest(d);
      }
      return std::nullopt;
    case DW_ATE_signed:
    case DW_ATE_signed_char: {
      const unsigned shift = static_cast<unsigned>(64 - 8 * size);
      const auto value = static_cast<std::int64_t>(raw << shift) >> shift;
      return std::to_string(value);
    }
    case DW_ATE_unsigned:
    case DW_ATE_unsigned_char:
    case DW_ATE_UTF:
      return std::to_string(raw);
    default:
      return std::nullopt;
  }
}

void member(Dwarf_Die& memberDie, std::span<const std::uint8_t> bytes, const std::string& prefix, int depth,
            std::vector<std::pair<std::string, std::string>>& out) {
  const char* name = ::dwarf_diename(&memberDie);
  if (name == nullptr || ::dwarf_hasattr(&memberDie, DW_AT_bit_size)) return;
  Dwarf_Attribute attr;
  Dwarf_Word offset = 0;
  if (!::dwarf_attr(&memberDie, DW_AT_data_member_location, &attr) || ::dwarf_formudata(&attr, &offset) != 0)
    return;  // static members have none; location expressions are not read
  if (offset >= bytes.size()) return;
  Dwarf_Die type;
  if (!typeOf(&memberDie, &type)) return;
  decode(type, bytes.subspan(offset), prefix.empty() ? name : prefix + "." + name, depth + 1, out);
}

void decode(Dwarf_Die type, std::span<const std::uint8_t> bytes, const std::string& path, int depth,
            std::vector<std::pair<std::string, std::string>>& out) {
  Dwarf_Die peeled;
  if (depth > kMaxDepth || ::dwarf_peel_type(&type, &peeled) != 0) return;
  const int tag = ::dwarf_tag(&peeled);
  if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type) {
    Dwarf_Die child;
    if (::dwarf_child(&peeled, &child) != 0) return;
    do {
      if (::dwarf_tag(&child) == DW_TAG_member) member(child, bytes, path, depth, out);
    } while (::dwarf_siblingof(&child, &child) == 0);
    return;
  }
  if (tag == DW_TAG_array_type) {
    Dwarf_Die element, subrange;
    if (!typeOf(&peeled, &element) || ::dwarf_child(&peeled, &subrange) != 0) return;
    auto count = attrUnsigned(&subrange, DW_AT_count);
    if (!count)
      if (auto upper = attrUnsigned(&subrange, DW_AT_upper_bound)) count = *upper + 1;
    Dwarf_Die elementPeeled;
    if (!count || *count > kMaxArray || ::dwarf_peel_type(&element, &elementPeeled) != 0) return;
    const int size = ::dwarf_bytesize(&elementPeeled);
    if (size <= 0) return;
    for (Dwarf_Word i = 0; i < *count; ++i) {
      const std::size_t at = static_cast<std::size_t>(i) * static_cast<std::size_t>(size);
      if (at >= bytes.size()) break;
      decode(element, bytes.subspan(at), path + "[" + std::to_string(i) + "]", depth + 1, out);
    }
    return;
  }
  if (auto value = scalar(peeled, bytes)) out.emplace_back(path, *value);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> memberValues(const Dwarf_Die& type,
                                                              std::span<const std::uint8_t> bytes) {
  std::vector<std::pair<std::string, std::string>> out;
  Dwarf_Die peeled;
  Dwarf_Die copy = type;
  if (::dwarf_peel_type(&copy, &peeled) != 0) return out;
  const int tag = ::dwarf_tag(&peeled);
  if (tag != DW_TAG_structure_type && tag != DW_TAG_class_type) return out;
  decode(peeled, bytes, "", 0, out);
  return out;
}

}  // namespace mpidbg::core::mqs
