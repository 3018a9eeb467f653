#include "debugger/core/mqs/ElfObject.hpp"

#include <gelf.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <tuple>

namespace mpidbg::core::mqs {

namespace {

/// Cache of loaded objects: ranks of one job map the same files.
class ObjectCache {
 public:
  using Key = std::tuple<std::string, dev_t, ino_t, off_t, std::int64_t>;
  std::shared_ptr<const ElfObject> find(const Key& key) {
    std::lock_guard lock(mutex_);
    auto it = objects_.find(key);
    return it == objects_.end() ? nullptr : it->second;
  }
  void put(const Key& key, std::shared_ptr<const ElfObject> object) {
    std::lock_guard lock(mutex_);
    if (objects_.size() >= kMaxObjects) objects_.clear();  // crude bound; reloads are cheap
    objects_[key] = std::move(object);
  }

 private:
  static constexpr std::size_t kMaxObjects = 256;
  std::mutex mutex_;
  std::map<Key, std::shared_ptr<const ElfObject>> objects_;
};

ObjectCache& cache() {
  static ObjectCache instance;
  return instance;
}

SymbolBinding bindingOf(unsigned char bind) {
  switch (bind) {
    case STB_GLOBAL:
    case STB_GNU_UNIQUE:
      return SymbolBinding::Global;
    case STB_WEAK:
      return SymbolBinding::Weak;
    default:
      return SymbolBinding::Local;
  }
}

}  // namespace

Expected<std::shared_ptr<const ElfObject>> ElfObject::load(const std::string& path,
                                                           const std::string& openPath) {
  const std::string& source = openPath.empty() ? path : openPath;
  struct stat st {};
  if (::stat(source.c_str(), &st) != 0) {
    return fail("cannot open " + source + ": " + std::strerror(errno));
  }
  const ObjectCache::Key key{
      path, st.st_dev, st.st_ino, st.st_size,
      static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
  if (auto cached = cache().find(key)) return cached;

  auto file = openElf(source);
  if (!file) return std::unexpected(file.error());
  std::shared_ptr<ElfObject> object(new ElfObject());
  object->path_ = path;
  object->file_ = std::move(*file);
  Elf* elf = object->file_.elf.get();
  GElf_Ehdr ehdr;
  if (!::gelf_getehdr(elf, &ehdr)) return fail("cannot read the ELF header of " + path);
  object->elfClass_ = ehdr.e_ident[EI_CLASS];
  object->bigEndian_ = ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
  object->elfType_ = ehdr.e_type;
  if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) {
    return fail(path + " is not an executable or shared object");
  }
  size_t phnum = 0;
  if (::elf_getphdrnum(elf, &phnum) != 0) return fail("cannot read program headers of " + path);
  bool haveLoad = false;
  for (size_t i = 0; i < phnum && !haveLoad; ++i) {
    GElf_Phdr phdr;
    if (::gelf_getphdr(elf, static_cast<int>(i), &phdr) && phdr.p_type == PT_LOAD) {
      // The mapping of file offset 0 starts at the segment's address minus
      // its offset within the file (congruent modulo the page size).
      object->firstLoad_ = (phdr.p_vaddr - phdr.p_offset) & ~std::uint64_t{0xfff};
      haveLoad = true;
    }
  }
  if (!haveLoad) return fail(path + " has no loadable segment");
  cache().put(key, object);
  return std::shared_ptr<const ElfObject>(object);
}

void ElfObject::indexTable(unsigned sectionType, SymbolIndex& index) const {
  Elf* elf = file_.elf.get();
  Elf_Scn* scn = nullptr;
  while ((scn = ::elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr shdr;
    if (!::gelf_getshdr(scn, &shdr) || shdr.sh_type != sectionType || shdr.sh_entsize == 0) {
      continue;
    }
    Elf_Data* data = ::elf_getdata(scn, nullptr);
    if (!data) continue;
    const size_t count = shdr.sh_size / shdr.sh_entsize;
    for (size_t i = 1; i < count; ++i) {
      GElf_Sym sym;
      if (!::gelf_getsym(data, static_cast<int>(i), &sym)) break;
      const unsigned char type = GELF_ST_TYPE(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || type == STT_TLS || type == STT_SECTION || type == STT_FILE) {
        continue;
      }
      const char* name = ::elf_strptr(elf, shdr.sh_link, sym.st_name);
      if (!name || !*name) continue;
      const Symbol symbol{sym.st_value, type, bindingOf(GELF_ST_BIND(sym.st_info))};
      index[name].push_back(symbol);
      if (const char* at = std::strchr(name, '@'); at && at != name) {
        index[std::string(name, at)].push_back(symbol);
      }
    }
  }
}

void ElfObject::indexSymbols() const {
  indexTable(SHT_SYMTAB, symtab_);
  indexTable(SHT_DYNSYM, dynsym_);
}

std::optional<std::uint64_t> ElfObject::lookup(std::string_view name, SymbolKind kind,
                                               SymbolBinding binding) const {
  std::call_once(symbolsOnce_, [this] { indexSymbols(); });
  const std::string key(name);
  for (const SymbolIndex* index : {&symtab_, &dynsym_}) {
    auto it = index->find(key);
    if (it == index->end()) continue;
    for (const Symbol& symbol : it->second) {
      if (symbol.binding != binding) continue;
      const bool isFunction = symbol.type == STT_FUNC || symbol.type == STT_GNU_IFUNC;
      if (kind == SymbolKind::Function && !isFunction) continue;
      return symbol.value;
    }
  }
  return std::nullopt;
}

DwarfTypes* ElfObject::dwarf() const {
  std::call_once(dwarfOnce_, [this] {
    auto types = DwarfTypes::open(file_.elf.get(), path_);
    if (types) {
      dwarf_ = std::move(*types);
    } else {
      noDwarf_ = types.error().message;
    }
  });
  return dwarf_.get();
}

std::string ElfObject::whyNoDwarf() const {
  dwarf();
  return noDwarf_;
}

}  // namespace mpidbg::core::mqs
