#include "debugger/core/mqs/CoreFile.hpp"

#include <elf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mpidbg::core::mqs {

namespace {

constexpr std::size_t kMaxSegments = 1 << 20;
constexpr std::size_t kMaxNoteBytes = 256u << 20;

Expected<void> preadAll(int fd, std::uint64_t offset, std::span<std::byte> out,
                        const std::string& what) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n =
        ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(fmt::format("cannot read {}: {}", what, std::strerror(errno)));
    if (n == 0) return fail(fmt::format("cannot read {}: file too short", what));
    done += static_cast<std::size_t>(n);
  }
  return {};
}

}  // namespace

Expected<std::unique_ptr<CoreFile>> CoreFile::open(const std::string& path) {
  auto file = openElf(path);
  if (!file) return std::unexpected(file.error());
  std::unique_ptr<CoreFile> core(new CoreFile());
  core->path_ = path;
  core->file_ = std::move(*file);
  Elf* elf = core->file_.elf.get();
  struct stat st {};
  if (::fstat(core->file_.fd.get(), &st) != 0) return fail("cannot stat " + path);
  core->fileSize_ = static_cast<std::uint64_t>(st.st_size);

  GElf_Ehdr ehdr;
  if (!::gelf_getehdr(elf, &ehdr)) return fail("cannot read the ELF header of " + path);
  if (ehdr.e_type != ET_CORE) return fail(path + " is not a core file (ELF type is not ET_CORE)");
  core->elfClass_ = ehdr.e_ident[EI_CLASS];
  core->bigEndian_ = ehdr.e_ident[EI_DATA] == ELFDATA2MSB;

  size_t phnum = 0;
  if (::elf_getphdrnum(elf, &phnum) != 0 || phnum > kMaxSegments) {
    return fail("cannot read the program headers of " + path);
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> notes;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr phdr;
    if (!::gelf_getphdr(elf, static_cast<int>(i), &phdr)) {
      return fail(fmt::format("cannot read program header {} of {}", i, path));
    }
    if (phdr.p_type == PT_LOAD && phdr.p_memsz > 0) {
      if (phdr.p_filesz > phdr.p_memsz || phdr.p_vaddr + phdr.p_memsz < phdr.p_vaddr) {
        return fail(fmt::format("{}: malformed PT_LOAD at {:#x}", path, phdr.p_vaddr));
      }
      core->segments_.push_back(
          {phdr.p_vaddr, phdr.p_filesz, phdr.p_memsz, phdr.p_offset, (phdr.p_flags & PF_W) != 0});
    } else if (phdr.p_type == PT_NOTE) {
      notes.emplace_back(phdr.p_offset, phdr.p_filesz);
    }
  }
  std::sort(core->segments_.begin(), core->segments_.end(),
            [](const Segment& a, const Segment& b) { return a.vaddr < b.vaddr; });
  if (auto ok = core->parseNotes(notes); !ok) return std::unexpected(ok.error());
  return core;
}

std::uint64_t CoreFile::word(std::span<const std::byte> bytes, std::size_t index) const {
  const std::size_t size = elfClass_ == ELFCLASS32 ? 4 : 8;
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < size; ++i) {
    const auto b = static_cast<std::uint64_t>(bytes[index * size + i]);
    value |= bigEndian_ ? b << (8 * (size - 1 - i)) : b << (8 * i);
  }
  return value;
}

Expected<void> CoreFile::parseNotes(
    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& notes) {
  Elf* elf = file_.elf.get();
  for (const auto& [offset, size] : notes) {
    if (size == 0) continue;
    if (size > kMaxNoteBytes || offset > fileSize_ || size > fileSize_ - offset) {
      return fail(
          fmt::format("{}: note segment at offset {:#x} lies outside the file", path_, offset));
    }
    Elf_Data* data = ::elf_getdata_rawchunk(elf, static_cast<int64_t>(offset), size, ELF_T_NHDR);
    if (!data) return fail(path_ + ": cannot read notes: " + elfError());
    size_t at = 0;
    GElf_Nhdr nhdr;
    size_t nameOffset = 0;
    size_t descOffset = 0;
    while (at < data->d_size &&
           (at = ::gelf_getnote(data, at, &nhdr, &nameOffset, &descOffset)) > 0) {
      const auto* base = static_cast<const std::byte*>(data->d_buf);
      const std::string_view name(reinterpret_cast<const char*>(base + nameOffset),
                                  nhdr.n_namesz > 0 ? nhdr.n_namesz - 1 : 0);
      if (name != "CORE") continue;
      const std::span<const std::byte> desc(base + descOffset, nhdr.n_descsz);
      const std::size_t wordSize = elfClass_ == ELFCLASS32 ? 4 : 8;
      if (nhdr.n_type == NT_FILE) {
        if (auto ok = parseFileNote(desc); !ok) return ok;
      } else if (nhdr.n_type == NT_AUXV) {
        for (std::size_t i = 0; (i + 2) * wordSize <= desc.size(); i += 2) {
          const std::uint64_t type = word(desc, i);
          if (type == AT_NULL) break;
          auxv_.emplace_back(type, word(desc, i + 1));
        }
      } else if (nhdr.n_type == NT_PRPSINFO && elfClass_ == ELFCLASS64 && desc.size() >= 28) {
        std::int32_t pid = 0;
        std::memcpy(&pid, desc.data() + 24, sizeof pid);  // elf_prpsinfo.pr_pid (LP64)
        pid_ = pid;
      }
    }
  }
  return {};
}

Expected<void> CoreFile::parseFileNote(std::span<const std::byte> desc) {
  // long count; long page_size; {long start, end, file_ofs}[count]; names.
  const std::size_t wordSize = elfClass_ == ELFCLASS32 ? 4 : 8;
  const std::string bad = path_ + ": malformed NT_FILE note";
  if (desc.size() < 2 * wordSize) return fail(bad);
  const std::uint64_t count = word(desc, 0);
  const std::uint64_t pageSize = word(desc, 1);
  if (count > (desc.size() / wordSize - 2) / 3) return fail(bad + " (count too large)");
  std::size_t nameAt = (2 + 3 * count) * wordSize;
  for (std::uint64_t i = 0; i < count; ++i) {
    FileMapping mapping;
    mapping.start = word(desc, 2 + 3 * i);
    mapping.end = word(desc, 3 + 3 * i);
    mapping.fileOffset = word(desc, 4 + 3 * i) * pageSize;
    const auto* begin = reinterpret_cast<const char*>(desc.data()) + nameAt;
    const auto* end = reinterpret_cast<const char*>(desc.data()) + desc.size();
    const auto* nul = std::find(begin, end, '\0');
    if (nul == end) return fail(bad + " (unterminated file name)");
    mapping.path.assign(begin, nul);
    nameAt += mapping.path.size() + 1;
    if (mapping.end < mapping.start) return fail(bad + " (mapping ends before it starts)");
    files_.push_back(std::move(mapping));
  }
  return {};
}

std::optional<std::uint64_t> CoreFile::auxv(std::uint64_t type) const {
  for (const auto& [t, v] : auxv_) {
    if (t == type) return v;
  }
  return std::nullopt;
}

std::string CoreFile::describe() const { return "core " + path_; }

Expected<void> CoreFile::readFromCore(std::uint64_t offset, std::span<std::byte> out) {
  if (offset > fileSize_ || out.size() > fileSize_ - offset) {
    return fail(fmt::format("{} is truncated (needs bytes up to offset {:#x})", path_,
                            offset + out.size()));
  }
  return preadAll(file_.fd.get(), offset, out, path_);
}

Expected<void> CoreFile::readFromMappedFile(std::uint64_t addr, std::span<std::byte> out) {
  for (const FileMapping& mapping : files_) {
    if (addr < mapping.start || addr >= mapping.end) continue;
    if (out.size() > mapping.end - addr) {
      return fail(fmt::format("{} bytes at {:#x} cross the end of the mapping of {}", out.size(),
                              addr, mapping.path));
    }
    auto it = mappedFiles_.find(mapping.path);
    if (it == mappedFiles_.end()) {
      ScopedFd fd(::open(mapping.path.c_str(), O_RDONLY | O_CLOEXEC));
      if (!fd.valid()) {
        return fail(fmt::format("address {:#x} of {} is only in {}, which cannot be opened: {}",
                                addr, describe(), mapping.path, std::strerror(errno)));
      }
      it = mappedFiles_.emplace(mapping.path, std::move(fd)).first;
    }
    return preadAll(it->second.get(), mapping.fileOffset + (addr - mapping.start), out,
                    fmt::format("{} behind {:#x}", mapping.path, addr));
  }
  return fail(
      fmt::format("address {:#x} is in a read-only mapping {} does not hold and no "
                  "NT_FILE entry names its file",
                  addr, describe()));
}

Expected<void> CoreFile::readOmitted(std::uint64_t addr, std::span<std::byte> out) {
  const FileMapping* mapping = nullptr;
  for (const FileMapping& m : files_) {
    if (addr >= m.start && addr < m.end) mapping = &m;
  }
  if (!mapping) return fail(fmt::format("address {:#x} is not in {}", addr, describe()));
  auto& loads = fileLoads_[mapping->path];
  if (!loads) {
    loads.emplace();
    if (auto elf = openElf(mapping->path)) {
      size_t phnum = 0;
      if (::elf_getphdrnum(elf->elf.get(), &phnum) == 0) {
        for (size_t i = 0; i < phnum && i < kMaxSegments; ++i) {
          GElf_Phdr phdr;
          if (::gelf_getphdr(elf->elf.get(), static_cast<int>(i), &phdr) &&
              phdr.p_type == PT_LOAD) {
            loads->push_back(
                {phdr.p_offset, phdr.p_offset + phdr.p_filesz, (phdr.p_flags & PF_W) != 0});
          }
        }
      }
    }
  }
  const std::uint64_t fileOffset = mapping->fileOffset + (addr - mapping->start);
  for (const FileLoad& load : *loads) {
    if (fileOffset >= load.begin && fileOffset < load.end && !load.writable) {
      return readFromMappedFile(addr, out);
    }
  }
  return fail(
      fmt::format("address {:#x} ({} at offset {:#x}) is not in {} and is not a "
                  "read-only part of that file",
                  addr, mapping->path, fileOffset, describe()));
}

Expected<void> CoreFile::read(std::uint64_t addr, std::span<std::byte> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const std::uint64_t at = addr + done;
    auto it = std::upper_bound(segments_.begin(), segments_.end(), at,
                               [](std::uint64_t a, const Segment& s) { return a < s.vaddr; });
    if (it == segments_.begin() || at - std::prev(it)->vaddr >= std::prev(it)->memSize) {
      // No segment at all: gdb's gcore leaves out unmodified read-only file
      // mappings entirely. The file serves it if it is a read-only part of
      // an ELF object named in NT_FILE.
      const std::uint64_t gapEnd = it == segments_.end() ? ~std::uint64_t{0} : it->vaddr;
      const std::size_t n =
          static_cast<std::size_t>(std::min<std::uint64_t>(out.size() - done, gapEnd - at));
      if (auto ok = readOmitted(at, out.subspan(done, n)); !ok) return ok;
      done += n;
      continue;
    }
    const Segment& seg = *std::prev(it);
    const std::uint64_t within = at - seg.vaddr;
    std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(out.size() - done, seg.memSize - within));
    if (within < seg.fileSize) {
      n = static_cast<std::size_t>(std::min<std::uint64_t>(n, seg.fileSize - within));
      if (auto ok = readFromCore(seg.offset + within, out.subspan(done, n)); !ok) return ok;
    } else if (seg.writable) {
      return fail(
          fmt::format("address {:#x} is in a writable mapping {} does not hold", at, describe()));
    } else if (auto ok = readFromMappedFile(at, out.subspan(done, n)); !ok) {
      return ok;
    }
    done += n;
  }
  return {};
}

Expected<std::string> CoreFile::executable() {
  if (const auto entry = auxv(AT_ENTRY)) {
    for (const FileMapping& mapping : files_) {
      if (*entry >= mapping.start && *entry < mapping.end) return mapping.path;
    }
  }
  if (const auto execfn = auxv(AT_EXECFN)) {
    if (auto name = readCString(*this, *execfn, 4096); name && name->starts_with("/")) {
      return *name;
    }
  }
  if (!files_.empty()) return files_.front().path;
  return fail(path_ + " names no executable (no NT_FILE note and no usable auxiliary vector)");
}

}  // namespace mpidbg::core::mqs
