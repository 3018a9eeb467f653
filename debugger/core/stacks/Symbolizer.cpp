#include "debugger/core/stacks/Symbolizer.hpp"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

namespace mpidbg::core::stacks {

namespace {

// Offline reporting: module files named by path, debug info found the
// standard way (.gnu_debuglink next to the file, /usr/lib/debug, build-id).
char* gDebuginfoPath = nullptr;
const Dwfl_Callbacks kOfflineCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &gDebuginfoPath,
};

std::string hex(const unsigned char* bytes, int length) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < length; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 0xf];
  }
  return out;
}

// A name attribute of a DIE, following DW_AT_abstract_origin and
// DW_AT_specification: the linkage name (demangled) when there is one, which
// carries namespaces and parameters; otherwise DW_AT_name.
std::optional<std::string> dieFunctionName(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  for (int name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    if (dwarf_attr_integrate(die, name, &attr) != nullptr) {
      if (const char* text = dwarf_formstring(&attr); text != nullptr && *text != '\0')
        return demangle(text);
    }
  }
  if (dwarf_attr_integrate(die, DW_AT_name, &attr) != nullptr) {
    if (const char* text = dwarf_formstring(&attr); text != nullptr && *text != '\0') return text;
  }
  return std::nullopt;
}

// The call site (DW_AT_call_file, DW_AT_call_line) of an inlined subroutine.
void callSite(Dwarf_Die* inlined, Dwarf_Die* cu, std::string& file, int& line) {
  file.clear();
  line = 0;
  Dwarf_Attribute attr;
  Dwarf_Word value = 0;
  if (dwarf_attr(inlined, DW_AT_call_line, &attr) != nullptr && dwarf_formudata(&attr, &value) == 0)
    line = static_cast<int>(value);
  Dwarf_Files* files = nullptr;
  size_t count = 0;
  if (dwarf_attr(inlined, DW_AT_call_file, &attr) != nullptr &&
      dwarf_formudata(&attr, &value) == 0 && dwarf_getsrcfiles(cu, &files, &count) == 0 &&
      value < count) {
    if (const char* name = dwarf_filesrc(files, value, nullptr, nullptr); name != nullptr)
      file = name;
  }
}

}  // namespace

std::string demangle(const std::string& name) {
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || text == nullptr) {
    std::free(text);
    return name;
  }
  std::string out = text;
  std::free(text);
  return out;
}

/// One module file as opened by libdwfl: its own Dwfl session (so a bad file
/// cannot disturb the others), or why it could not be opened.
struct Symbolizer::ModuleFile {
  Dwfl* dwfl = nullptr;
  Dwfl_Module* module = nullptr;
  std::string buildId;  // of the file, lowercase hex; empty when it has none
  std::string error;    // non-empty when module is null
  // Executable PT_LOAD segments [start, end) in the file's vaddr space: the
  // only places a pc can be. Empty when the file has no program headers.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> code;

  ModuleFile() = default;
  ModuleFile(const ModuleFile&) = delete;
  ModuleFile& operator=(const ModuleFile&) = delete;
  ~ModuleFile() {
    if (dwfl != nullptr) dwfl_end(dwfl);
  }

  void open(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      error = "cannot open " + path + ": " + std::strerror(errno);
      return;
    }
    if (!S_ISREG(st.st_mode)) {
      error = "cannot symbolize " + path + ": not a regular file";
      return;
    }
    dwfl = dwfl_begin(&kOfflineCallbacks);
    if (dwfl == nullptr) {
      error = std::string("cannot start libdwfl: ") + dwfl_errmsg(-1);
      return;
    }
    dwfl_report_begin(dwfl);
    module = dwfl_report_offline(dwfl, path.c_str(), path.c_str(), -1);
    if (module == nullptr) error = "cannot symbolize " + path + ": " + dwfl_errmsg(-1);
    dwfl_report_end(dwfl, nullptr, nullptr);
    if (module == nullptr) return;
    const unsigned char* bits = nullptr;
    GElf_Addr vaddr = 0;
    if (int length = dwfl_module_build_id(module, &bits, &vaddr); length > 0)
      buildId = hex(bits, length);
    Dwarf_Addr bias = 0;
    if (Elf* elf = dwfl_module_getelf(module, &bias); elf != nullptr) {
      size_t count = 0;
      if (elf_getphdrnum(elf, &count) != 0) count = 0;
      for (size_t i = 0; i < count; ++i) {
        GElf_Phdr header;
        if (gelf_getphdr(elf, static_cast<int>(i), &header) != nullptr &&
            header.p_type == PT_LOAD && (header.p_flags & PF_X) != 0)
          code.emplace_back(header.p_vaddr, header.p_vaddr + header.p_memsz);
      }
    }
  }

  // Whether a file address can hold code (always true without program
  // headers, e.g. a relocatable object). Addresses elsewhere, such as 0 in a
  // PIE, can still match DWARF ranges of functions the linker discarded.
  bool mayHoldCode(std::uint64_t address) const {
    if (code.empty()) return true;
    for (const auto& [start, end] : code)
      if (address >= start && address < end) return true;
    return false;
  }

  // DWARF frames for a Dwfl address, innermost first; empty when the address
  // is in no DWARF subprogram.
  std::vector<SymbolFrame> dwarfFrames(Dwarf_Addr address) const {
    std::vector<SymbolFrame> frames;
    Dwarf_Addr bias = 0;
    Dwarf_Die* cu = dwfl_module_addrdie(module, address, &bias);
    if (cu == nullptr) return frames;
    Dwarf_Die* scopes = nullptr;
    int count = dwarf_getscopes(cu, address - bias, &scopes);
    if (count <= 0) {
      std::free(scopes);
      return frames;
    }
    // dwarf_getscopes stops at the innermost inlined instance; the physical
    // parents of the innermost scope give the whole chain of inlined calls.
    Dwarf_Die innermost = scopes[0];
    std::free(scopes);
    scopes = nullptr;
    count = dwarf_getscopes_die(&innermost, &scopes);
    if (count <= 0) {
      std::free(scopes);
      return frames;
    }
    // The innermost frame's line comes from the line table; each outer
    // frame's line is the call site of the inlined frame inside it.
    std::string file;
    int line = 0;
    if (Dwfl_Line* row = dwfl_module_getsrc(module, address); row != nullptr) {
      int lineNumber = 0;
      if (const char* name = dwfl_lineinfo(row, nullptr, &lineNumber, nullptr, nullptr, nullptr);
          name != nullptr) {
        file = name;
        line = lineNumber;
      }
    }
    for (int i = 0; i < count; ++i) {
      int tag = dwarf_tag(&scopes[i]);
      if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine) continue;
      SymbolFrame frame;
      frame.function = dieFunctionName(&scopes[i]).value_or("??");
      frame.file = file;
      frame.line = line;
      frame.source = SymbolSource::Dwarf;
      frame.inlined = tag == DW_TAG_inlined_subroutine;
      frames.push_back(std::move(frame));
      if (tag == DW_TAG_subprogram) break;
      callSite(&scopes[i], cu, file, line);
    }
    std::free(scopes);
    return frames;
  }
};

Symbolizer::Symbolizer() = default;
Symbolizer::~Symbolizer() = default;

Symbolizer::ModuleFile& Symbolizer::file(const std::string& path) {
  auto it = files_.find(path);
  if (it == files_.end()) {
    auto opened = std::make_unique<ModuleFile>();
    opened->open(path);
    it = files_.emplace(path, std::move(opened)).first;
  }
  return *it->second;
}

const Symbolized& Symbolizer::symbolize(const ccs::proto::StackModule& module, std::uint64_t offset,
                                        bool exact) {
  auto key = std::make_tuple(module.path, module.buildId, offset, exact);
  auto it = cache_.find(key);
  if (it == cache_.end()) it = cache_.emplace(std::move(key), lookup(module, offset, exact)).first;
  return it->second;
}

const Symbolized& Symbolizer::symbolize(const ccs::proto::RankStacks& stacks,
                                        const ccs::proto::StackFrame& frame) {
  static const ccs::proto::StackModule kNoModule;
  const bool known =
      frame.module >= 0 && static_cast<std::size_t>(frame.module) < stacks.modules.size();
  return symbolize(known ? stacks.modules[static_cast<std::size_t>(frame.module)] : kNoModule,
                   frame.offset, frame.exact);
}

Symbolized Symbolizer::lookup(const ccs::proto::StackModule& module, std::uint64_t offset,
                              bool exact) {
  Symbolized result;
  SymbolFrame unknown;
  unknown.function = "??";
  unknown.module = module.path;
  unknown.offset = offset;
  if (module.path.empty()) {
    result.frames.push_back(unknown);
    return result;
  }
  if (module.path.front() == '[') {
    unknown.function = module.path;
    unknown.source = SymbolSource::Pseudo;
    result.frames.push_back(unknown);
    return result;
  }
  ModuleFile& opened = file(module.path);
  if (opened.module == nullptr) {
    result.warning = opened.error;
    result.frames.push_back(unknown);
    return result;
  }
  if (!module.buildId.empty() && module.buildId != opened.buildId) {
    result.warning = module.path + " was rebuilt since the rank loaded it: build-id " +
                     module.buildId + " in the rank, " +
                     (opened.buildId.empty() ? std::string("none") : opened.buildId) +
                     " in the file (names may be wrong)";
  }

  Dwarf_Addr bias = 0;
  if (dwfl_module_getelf(opened.module, &bias) == nullptr) {
    result.frames.push_back(unknown);
    return result;
  }
  const std::uint64_t fileAddress = exact || offset == 0 ? offset : offset - 1;
  if (!opened.mayHoldCode(fileAddress)) {
    result.frames.push_back(unknown);
    return result;
  }
  const Dwarf_Addr address = fileAddress + bias;

  result.frames = opened.dwarfFrames(address);
  // A DWARF subprogram without a name (rare) still has a symbol.
  GElf_Off symbolOffset = 0;
  GElf_Sym symbol{};
  const char* symbolName = dwfl_module_addrinfo(opened.module, address, &symbolOffset, &symbol,
                                                nullptr, nullptr, nullptr);
  if (!result.frames.empty()) {
    if (result.frames.back().function == "??" && symbolName != nullptr)
      result.frames.back().function = demangle(symbolName);
  } else if (symbolName != nullptr) {
    SymbolFrame frame = unknown;
    frame.function = demangle(symbolName);
    frame.symbolOffset = symbolOffset;
    frame.source = SymbolSource::Symtab;
    // No DWARF scope holds the address (GCC's OpenMP outlined functions,
    // main._omp_fn.0, are such), but the line table may still cover it.
    if (Dwfl_Line* row = dwfl_module_getsrc(opened.module, address); row != nullptr) {
      int lineNumber = 0;
      if (const char* name = dwfl_lineinfo(row, nullptr, &lineNumber, nullptr, nullptr, nullptr);
          name != nullptr && lineNumber > 0) {
        frame.file = name;
        frame.line = lineNumber;
      }
    }
    result.frames.push_back(std::move(frame));
  } else {
    result.frames.push_back(unknown);
  }
  for (auto& frame : result.frames) {
    frame.module = module.path;
    frame.offset = offset;
  }
  return result;
}

}  // namespace mpidbg::core::stacks
