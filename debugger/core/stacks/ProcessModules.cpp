#include "debugger/core/stacks/ProcessModules.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "mpidbg/ProcMaps.hpp"
#include "mpidbg/ScopedFd.hpp"

namespace mpidbg::core::stacks {

Expected<std::uint64_t> firstLoadAddressOf(const std::string& path) {
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return fail("cannot open " + path + ": " + std::strerror(errno));
  ::elf_version(EV_CURRENT);
  Elf* elf = ::elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr);
  if (!elf) return fail(path + " is not an ELF file");
  std::optional<std::uint64_t> first;
  std::size_t phnum = 0;
  if (::elf_kind(elf) == ELF_K_ELF && ::elf_getphdrnum(elf, &phnum) == 0) {
    for (std::size_t i = 0; i < phnum && !first; ++i) {
      GElf_Phdr phdr;
      // The file-offset-0 mapping starts at the first segment's address
      // minus its offset within the file (congruent modulo the page size).
      if (::gelf_getphdr(elf, static_cast<int>(i), &phdr) && phdr.p_type == PT_LOAD)
        first = (phdr.p_vaddr - phdr.p_offset) & ~std::uint64_t{0xfff};
    }
  }
  ::elf_end(elf);
  if (!first) return fail(path + " has no loadable segment");
  return *first;
}

Expected<ProcessModules> ProcessModules::read(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/maps";
  std::ifstream in(path);
  if (!in) return fail("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), firstLoadAddressOf);
}

ProcessModules ProcessModules::parse(std::string_view maps, const FirstLoadAddress& firstLoad) {
  std::vector<MapsLine> lines;
  std::size_t pos = 0;
  while (pos < maps.size()) {
    std::size_t nl = maps.find('\n', pos);
    if (nl == std::string_view::npos) nl = maps.size();
    if (auto line = parseMapsLine(maps.substr(pos, nl - pos))) lines.push_back(std::move(*line));
    pos = nl + 1;
  }
  ProcessModules out;
  std::map<std::string, std::int32_t> index;  // path -> module, or -1 when left out
  for (const MapsLine& m : lines) {
    if (index.contains(m.path)) continue;
    const bool pseudo = m.path == "[vdso]";
    if (!pseudo && (!m.path.starts_with("/") || m.fileOffset != 0)) continue;
    std::uint64_t bias = m.start;
    if (!pseudo) {
      auto first = firstLoad(m.path);
      if (!first) {
        index[m.path] = -1;
        continue;
      }
      bias = m.start - *first;
    }
    index[m.path] = static_cast<std::int32_t>(out.modules_.size());
    out.modules_.push_back({m.path, ""});
    out.bias_.push_back(bias);
  }
  for (const MapsLine& m : lines) {
    if (!m.executable) continue;
    const auto it = index.find(m.path);
    if (it == index.end() || it->second < 0) continue;
    out.ranges_.push_back({m.start, m.end, it->second});
  }
  std::sort(out.ranges_.begin(), out.ranges_.end(),
            [](const MappedRange& a, const MappedRange& b) { return a.start < b.start; });
  return out;
}

ccs::proto::StackFrame ProcessModules::locate(std::uint64_t pc, bool exact) const {
  ccs::proto::StackFrame frame;
  frame.exact = exact;
  frame.offset = pc;
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), pc,
                             [](std::uint64_t value, const MappedRange& r) { return value < r.start; });
  if (it == ranges_.begin()) return frame;
  --it;
  if (pc >= it->end) return frame;
  frame.module = it->module;
  frame.offset = pc - bias_[static_cast<std::size_t>(it->module)];
  return frame;
}

}  // namespace mpidbg::core::stacks
