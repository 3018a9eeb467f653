#include "FakeTarget.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace mpidbg::mqs::test {
namespace {

template <typename Fn>
void bind(void* handle, Fn& fn, const char* name) {
  void* sym = dlsym(handle, name);
  if (sym == nullptr) throw std::runtime_error(std::string("libmpidbg-mqs.so lacks ") + name);
  fn = reinterpret_cast<Fn>(sym);
}

Dll load() {
  void* handle = dlopen(MPIDBG_MQS_DLL, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) throw std::runtime_error(std::string("dlopen: ") + dlerror());
  Dll d{};
  bind(handle, d.setupBasicCallbacks, "mqs_setup_basic_callbacks");
  bind(handle, d.versionString, "mqs_version_string");
  bind(handle, d.versionCompatibility, "mqs_version_compatibility");
  bind(handle, d.taddrWidth, "mqs_dll_taddr_width");
  bind(handle, d.errorString, "mqs_dll_error_string");
  bind(handle, d.setupImage, "mqs_setup_image");
  bind(handle, d.imageHasQueues, "mqs_image_has_queues");
  bind(handle, d.destroyImageInfo, "mqs_destroy_image_info");
  bind(handle, d.setupProcess, "mqs_setup_process");
  bind(handle, d.processHasQueues, "mqs_process_has_queues");
  bind(handle, d.destroyProcessInfo, "mqs_destroy_process_info");
  bind(handle, d.updateCommunicatorList, "mqs_update_communicator_list");
  bind(handle, d.setupCommunicatorIterator, "mqs_setup_communicator_iterator");
  bind(handle, d.getCommunicator, "mqs_get_communicator");
  bind(handle, d.nextCommunicator, "mqs_next_communicator");
  bind(handle, d.getCommGroup, "mqs_get_comm_group");
  bind(handle, d.setupOperationIterator, "mqs_setup_operation_iterator");
  bind(handle, d.nextOperation, "mqs_next_operation");
  bind(handle, d.getCommCollState, "mqs_get_comm_coll_state");
  bind(handle, d.getCall, "mpidbg_mqs_get_call");
  bind(handle, d.lastOperationDetail, "mpidbg_mqs_last_operation_detail");
  bind(handle, d.getCommCollSeq, "mpidbg_mqs_get_comm_coll_seq");
  bind(handle, d.getCommUid, "mpidbg_mqs_get_comm_uid");
  bind(handle, d.setupCollHistory, "mpidbg_mqs_setup_coll_history");
  bind(handle, d.nextCollRecord, "mpidbg_mqs_next_coll_record");
  d.setupBasicCallbacks(&basicCallbacks());
  return d;  // the handle stays open for the life of the test process
}

// ---- basic callbacks ----
void* cbMalloc(std::size_t n) { return std::malloc(n); }
void cbFree(void* p) { std::free(p); }
void cbPrint(const char* text) { debugLines().emplace_back(text); }
const char* cbErrorString(int) { return "fake debugger error"; }
void cbPutImageInfo(mqs_image* image, mqs_image_info* info) {
  FakeTarget::of(image)->imageInfo = info;
}
mqs_image_info* cbGetImageInfo(mqs_image* image) { return FakeTarget::of(image)->imageInfo; }
void cbPutProcessInfo(mqs_process* p, mqs_process_info* info) {
  FakeTarget::of(p)->processInfo = info;
}
mqs_process_info* cbGetProcessInfo(mqs_process* p) { return FakeTarget::of(p)->processInfo; }

// ---- image callbacks ----
constexpr int kFakeError = 100;  // a debugger-side code
void cbTypeSizes(mqs_process*, mqs_target_type_sizes* s) { *s = {2, 4, 8, 8, 8}; }
int cbFindFunction(mqs_image*, const char*, mqs_lang_code, mqs_taddr_t*) { return kFakeError; }
int cbFindSymbol(mqs_image* image, const char* name, mqs_taddr_t* address) {
  const auto& symbols = FakeTarget::of(image)->symbols_;
  auto it = symbols.find(name);
  if (it == symbols.end()) return kFakeError;
  *address = it->second;
  return mqs_ok;
}
mqs_type* cbFindType(mqs_image*, const char*, mqs_lang_code) { return nullptr; }
int cbFieldOffset(mqs_type*, const char*) { return -1; }
int cbSizeof(mqs_type*) { return 0; }

// ---- process callbacks ----
mqs_tword_t cbGlobalRank(mqs_process*) { return 2; }
mqs_image* cbGetImage(mqs_process* p) { return FakeTarget::of(p)->image(); }
int cbFetch(mqs_process* p, mqs_taddr_t address, int size, void* buffer) {
  FakeTarget* t = FakeTarget::of(p);
  ++t->fetches;
  if (size < 0) return kFakeError;
  if (t->onFetch && !t->onFetch(address, size)) return kFakeError;
  return t->read(address, static_cast<std::size_t>(size), buffer) ? mqs_ok : kFakeError;
}
void cbToHost(mqs_process* p, const void* in, void* out, int size) {
  const auto* from = static_cast<const unsigned char*>(in);
  auto* to = static_cast<unsigned char*>(out);
  if (FakeTarget::of(p)->bigEndian())
    std::reverse_copy(from, from + size, to);
  else
    std::memcpy(to, from, static_cast<std::size_t>(size));
}

}  // namespace

const Dll& Dll::get() {
  static const Dll dll = load();
  return dll;
}

const mqs_basic_callbacks& basicCallbacks() {
  static const mqs_basic_callbacks cb = {cbMalloc,         cbFree,          cbPrint,
                                         cbErrorString,    cbPutImageInfo,  cbGetImageInfo,
                                         cbPutProcessInfo, cbGetProcessInfo};
  return cb;
}

std::vector<std::string>& debugLines() {
  static std::vector<std::string> lines;
  return lines;
}
void clearDebugLines() { debugLines().clear(); }
bool debugSaid(const std::string& text) {
  for (const auto& line : debugLines())
    if (line.find(text) != std::string::npos) return true;
  return false;
}

const mqs_image_callbacks FakeTarget::imageCallbacks = {cbTypeSizes, cbFindFunction, cbFindSymbol,
                                                        cbFindType,  cbFieldOffset,  cbSizeof};
const mqs_process_callbacks FakeTarget::processCallbacks = {cbGlobalRank, cbGetImage, cbFetch,
                                                            cbToHost};

FakeTarget::~FakeTarget() {
  const Dll& dll = Dll::get();
  if (processInfo != nullptr) dll.destroyProcessInfo(processInfo);
  if (imageInfo != nullptr) dll.destroyImageInfo(imageInfo);
}

std::uint64_t FakeTarget::allocate(std::size_t size) {
  const std::uint64_t base = next_;
  regions_[base].resize(size);
  next_ = (base + size + 0x2000) & ~std::uint64_t{0xfff};
  return base;
}

std::vector<std::byte>& FakeTarget::region(std::uint64_t base) {
  auto it = regions_.find(base);
  if (it == regions_.end()) throw std::logic_error("no fake region at that base");
  return it->second;
}

std::vector<std::uint64_t> FakeTarget::regionBases() const {
  std::vector<std::uint64_t> bases;
  for (const auto& [base, bytes] : regions_) bases.push_back(base);
  return bases;
}

void FakeTarget::truncate(std::uint64_t base, std::size_t size) { region(base).resize(size); }

void FakeTarget::write(std::uint64_t address, const void* data, std::size_t size) {
  auto it = regions_.upper_bound(address);
  if (it == regions_.begin()) throw std::logic_error("fake write outside every region");
  --it;
  const std::uint64_t off = address - it->first;
  if (off + size > it->second.size()) throw std::logic_error("fake write past a region");
  std::memcpy(it->second.data() + off, data, size);
}

void FakeTarget::writeInt(std::uint64_t address, std::uint64_t value, std::size_t size) {
  unsigned char bytes[8];
  for (std::size_t i = 0; i < size; ++i) {
    const unsigned char b = static_cast<unsigned char>(value >> (8 * i));
    bytes[bigEndian_ ? size - 1 - i : i] = b;
  }
  write(address, bytes, size);
}

bool FakeTarget::read(std::uint64_t address, std::size_t size, void* out) const {
  auto it = regions_.upper_bound(address);
  if (it == regions_.begin()) return false;
  --it;
  const std::uint64_t off = address - it->first;
  if (off > it->second.size() || size > it->second.size() - off) return false;
  std::memcpy(out, it->second.data() + off, size);
  return true;
}

}  // namespace mpidbg::mqs::test
