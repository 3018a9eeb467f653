#include "debugger/core/mqs/DwarfTypes.hpp"

#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <fmt/format.h>

#include <filesystem>
#include <limits>
#include <optional>
#include <vector>

namespace mpidbg::core::mqs {

namespace {

/// Candidate separate debug files of `elf` at `path`, most specific first.
std::vector<std::string> debugFileCandidates(Elf* elf, const std::string& path) {
  std::vector<std::string> out;
  const void* id = nullptr;
  const ssize_t idLen = ::dwelf_elf_gnu_build_id(elf, &id);
  if (idLen > 1) {
    const auto* bytes = static_cast<const unsigned char*>(id);
    std::string hex;
    for (ssize_t i = 0; i < idLen; ++i) hex += fmt::format("{:02x}", bytes[i]);
    out.push_back("/usr/lib/debug/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug");
  }
  GElf_Word crc = 0;
  if (const char* link = ::dwelf_elf_gnu_debuglink(elf, &crc); link && *link) {
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    out.push_back((dir / link).string());
    out.push_back((dir / ".debug" / link).string());
    out.push_back("/usr/lib/debug" + (dir / link).string());
  }
  return out;
}

bool isDeclaration(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  bool flag = false;
  return ::dwarf_attr(die, DW_AT_declaration, &attr) && ::dwarf_formflag(&attr, &flag) == 0 && flag;
}

/// Constant member location (DWARF 3+ constant form, or DWARF 2's
/// DW_OP_plus_uconst expression); none for other expressions.
std::optional<Dwarf_Word> memberLocation(Dwarf_Die* member) {
  Dwarf_Attribute attr;
  if (!::dwarf_attr(member, DW_AT_data_member_location, &attr)) return Dwarf_Word{0};
  Dwarf_Word value = 0;
  if (::dwarf_formudata(&attr, &value) == 0) return value;
  Dwarf_Op* ops = nullptr;
  size_t count = 0;
  if (::dwarf_getlocation(&attr, &ops, &count) == 0 && count == 1 &&
      ops[0].atom == DW_OP_plus_uconst) {
    return ops[0].number;
  }
  return std::nullopt;
}

std::optional<Dwarf_Word> findMember(Dwarf_Die type, std::string_view field, int depth) {
  Dwarf_Die peeled;
  if (depth > 8 || ::dwarf_peel_type(&type, &peeled) != 0) return std::nullopt;
  const int tag = ::dwarf_tag(&peeled);
  if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type && tag != DW_TAG_class_type) {
    return std::nullopt;
  }
  Dwarf_Die child;
  if (::dwarf_child(&peeled, &child) != 0) return std::nullopt;
  do {
    if (::dwarf_tag(&child) != DW_TAG_member) continue;
    const char* name = ::dwarf_diename(&child);
    if (name && field == name) return memberLocation(&child);
    if (!name) {  // anonymous struct or union: look inside
      Dwarf_Attribute typeAttr;
      Dwarf_Die inner;
      if (::dwarf_attr(&child, DW_AT_type, &typeAttr) &&
          ::dwarf_formref_die(&typeAttr, &inner) != nullptr) {
        const auto base = memberLocation(&child);
        const auto within = findMember(inner, field, depth + 1);
        if (base && within) return *base + *within;
      }
    }
  } while (::dwarf_siblingof(&child, &child) == 0);
  return std::nullopt;
}

}  // namespace

Expected<std::unique_ptr<DwarfTypes>> DwarfTypes::open(Elf* elf, const std::string& path) {
  std::unique_ptr<DwarfTypes> types(new DwarfTypes());
  types->dwarf_ = ::dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
  if (types->dwarf_) return types;
  for (const std::string& candidate : debugFileCandidates(elf, path)) {
    auto file = openElf(candidate);
    if (!file) continue;
    Dwarf* dwarf = ::dwarf_begin_elf(file->elf.get(), DWARF_C_READ, nullptr);
    if (!dwarf) continue;
    types->debugFile_ = std::move(*file);
    types->dwarf_ = dwarf;
    return types;
  }
  return fail("no DWARF in " + path);
}

DwarfTypes::~DwarfTypes() {
  if (dwarf_) ::dwarf_end(dwarf_);
}

void DwarfTypes::buildIndex() {
  Dwarf_CU* cu = nullptr;
  Dwarf_CU* next = nullptr;
  Dwarf_Half version = 0;
  uint8_t unitType = 0;
  Dwarf_Die cuDie;
  Dwarf_Die subDie;
  while (::dwarf_get_units(dwarf_, cu, &next, &version, &unitType, &cuDie, &subDie) == 0) {
    cu = next;
    Dwarf_Die child;
    if (::dwarf_child(&cuDie, &child) != 0) continue;
    do {
      const int tag = ::dwarf_tag(&child);
      const char* name = ::dwarf_diename(&child);
      if (!name || !*name) continue;
      std::unordered_map<std::string, Dwarf_Die>* index = nullptr;
      if (tag == DW_TAG_typedef || tag == DW_TAG_base_type) {
        index = &names_;
      } else if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
                 tag == DW_TAG_enumeration_type || tag == DW_TAG_class_type) {
        index = &tags_;
      } else {
        continue;
      }
      auto [it, inserted] = index->try_emplace(name, child);
      if (!inserted && isDeclaration(&it->second) && !isDeclaration(&child)) it->second = child;
    } while (::dwarf_siblingof(&child, &child) == 0);
  }
}

const Dwarf_Die* DwarfTypes::find(std::string_view name) {
  std::call_once(indexOnce_, [this] { buildIndex(); });
  for (std::string_view prefix : {"struct ", "union ", "enum ", "class "}) {
    if (name.starts_with(prefix)) {
      auto it = tags_.find(std::string(name.substr(prefix.size())));
      return it == tags_.end() ? nullptr : &it->second;
    }
  }
  if (auto it = names_.find(std::string(name)); it != names_.end()) return &it->second;
  if (auto it = tags_.find(std::string(name)); it != tags_.end()) return &it->second;
  return nullptr;
}

int DwarfTypes::fieldOffset(const Dwarf_Die& type, std::string_view field) {
  const auto offset = findMember(type, field, 0);
  if (!offset || *offset > static_cast<Dwarf_Word>(std::numeric_limits<int>::max())) return -1;
  return static_cast<int>(*offset);
}

int DwarfTypes::byteSize(const Dwarf_Die& type) {
  Dwarf_Die copy = type;
  Dwarf_Word size = 0;
  if (::dwarf_aggregate_size(&copy, &size) != 0) return -1;
  if (size > static_cast<Dwarf_Word>(std::numeric_limits<int>::max())) return -1;
  return static_cast<int>(size);
}

}  // namespace mpidbg::core::mqs
