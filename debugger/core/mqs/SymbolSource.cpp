#include "debugger/core/mqs/SymbolSource.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "debugger/core/mqs/CoreFile.hpp"
#include "mpidbg/ProcMaps.hpp"

namespace mpidbg::core::mqs {

namespace {

/// One mapping of a file at file offset 0, the candidate for an object's base.
struct BaseMapping {
  std::uint64_t start = 0;
  std::string path;      ///< name to report
  std::string openPath;  ///< where to read it
};

bool worthOpening(const std::string& path) {
  return path.starts_with("/") && !path.starts_with("/dev/") && !path.starts_with("/proc/") &&
         !path.starts_with("/memfd:") && !path.starts_with("/SYSV");
}

/// Loads each mapped file once (first offset-0 mapping wins); files that are
/// not ELF executables or libraries are skipped silently. The executable
/// goes first; an error when it cannot be loaded.
Expected<std::vector<LoadedObject>> loadObjects(const std::vector<BaseMapping>& bases,
                                                const std::string& executable) {
  std::vector<LoadedObject> objects;
  std::map<std::string, bool> seen;
  bool haveExecutable = false;
  std::string executableError;
  for (const BaseMapping& base : bases) {
    if (!worthOpening(base.path) || seen[base.path]) continue;
    seen[base.path] = true;
    auto object = ElfObject::load(base.path, base.openPath);
    const bool isExecutable = base.path == executable;
    if (!object) {
      if (isExecutable) executableError = object.error().message;
      continue;
    }
    LoadedObject loaded{*object, base.start - (*object)->firstLoadAddress(), base.start};
    if (isExecutable) {
      objects.insert(objects.begin(), std::move(loaded));
      haveExecutable = true;
    } else {
      objects.push_back(std::move(loaded));
    }
  }
  if (!haveExecutable) {
    if (!executableError.empty()) return fail(executableError);
    // Not mapped from offset 0 (unusual); a non-PIE executable needs no bias.
    auto object = ElfObject::load(executable);
    if (!object) return fail(object.error().message);
    if ((*object)->elfType() != ET_EXEC) {
      return fail("the executable " + executable + " is not among the target's mappings");
    }
    objects.insert(objects.begin(), LoadedObject{*object, 0, (*object)->firstLoadAddress()});
  }
  return objects;
}

}  // namespace

Expected<SymbolSource> SymbolSource::fromProcess(pid_t pid) {
  const std::string mapsPath = fmt::format("/proc/{}/maps", pid);
  std::ifstream maps(mapsPath);
  if (!maps) return fail(fmt::format("cannot read {}: {}", mapsPath, std::strerror(errno)));
  char exe[4096];
  const std::string exeLink = fmt::format("/proc/{}/exe", pid);
  const ssize_t exeLen = ::readlink(exeLink.c_str(), exe, sizeof exe - 1);
  if (exeLen <= 0) return fail(fmt::format("cannot read {}: {}", exeLink, std::strerror(errno)));
  std::string executable(exe, static_cast<std::size_t>(exeLen));

  std::vector<BaseMapping> bases;
  std::string line;
  while (std::getline(maps, line)) {
    const auto m = parseMapsLine(line);
    if (!m || m->fileOffset != 0) continue;
    BaseMapping base{m->start, m->path, m->path};
    if (m->deleted) base.openPath = fmt::format("/proc/{}/map_files/{}", pid, m->range);
    bases.push_back(std::move(base));
  }
  if (bases.empty()) return fail(fmt::format("{} lists no mapped files", mapsPath));
  if (constexpr std::string_view kDeleted = " (deleted)"; executable.ends_with(kDeleted)) {
    executable.resize(executable.size() - kDeleted.size());
  }
  auto objects = loadObjects(bases, executable);
  if (!objects) return fail(fmt::format("pid {}: {}", pid, objects.error().message));
  return fromObjects(std::move(*objects));
}

Expected<SymbolSource> SymbolSource::fromCore(CoreFile& core) {
  auto executable = core.executable();
  if (!executable) return std::unexpected(executable.error());
  std::vector<BaseMapping> bases;
  for (const FileMapping& mapping : core.fileMappings()) {
    if (mapping.fileOffset == 0) bases.push_back({mapping.start, mapping.path, mapping.path});
  }
  std::sort(bases.begin(), bases.end(),
            [](const BaseMapping& a, const BaseMapping& b) { return a.start < b.start; });
  auto objects = loadObjects(bases, *executable);
  if (!objects) return fail(core.describe() + ": " + objects.error().message);
  return fromObjects(std::move(*objects));
}

SymbolSource SymbolSource::fromObjects(std::vector<LoadedObject> objects) {
  SymbolSource source;
  source.objects_ = std::move(objects);
  return source;
}

std::optional<std::uint64_t> SymbolSource::find(std::string_view name, SymbolKind kind) const {
  for (SymbolBinding binding : {SymbolBinding::Global, SymbolBinding::Weak, SymbolBinding::Local}) {
    for (const LoadedObject& loaded : objects_) {
      if (auto value = loaded.object->lookup(name, kind, binding)) return *value + loaded.bias;
    }
  }
  return std::nullopt;
}

std::optional<std::uint64_t> SymbolSource::findFunction(std::string_view name) const {
  return find(name, SymbolKind::Function);
}

std::optional<std::uint64_t> SymbolSource::findSymbol(std::string_view name) const {
  return find(name, SymbolKind::Data);
}

const TypeRef* SymbolSource::findType(std::string_view name) {
  for (const LoadedObject& loaded : objects_) {
    DwarfTypes* dwarf = loaded.object->dwarf();
    if (!dwarf) continue;
    if (const Dwarf_Die* die = dwarf->find(name)) {
      types_.push_back(std::make_unique<TypeRef>(TypeRef{*die, loaded.object.get()}));
      return types_.back().get();
    }
  }
  return nullptr;
}

std::string SymbolSource::missingDwarf() const {
  std::string out;
  for (const LoadedObject& loaded : objects_) {
    if (loaded.object->dwarf()) continue;
    if (!out.empty()) out += "; ";
    out += loaded.object->whyNoDwarf();
  }
  return out;
}

}  // namespace mpidbg::core::mqs
