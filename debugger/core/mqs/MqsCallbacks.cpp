#include "debugger/core/mqs/MqsCallbacks.hpp"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <span>

#include "debugger/core/mqs/DwarfTypes.hpp"
#include "debugger/core/mqs/MqsHost.hpp"

namespace mpidbg::core::mqs {

namespace {

thread_local MqsHost* tLogHost = nullptr;

/// The largest single fetch a DLL may ask for (hostile-size guard).
constexpr int kMaxFetch = 64 << 20;

ImageHandle* image(mqs_image* i) { return reinterpret_cast<ImageHandle*>(i); }
ProcessHandle* process(mqs_process* p) { return reinterpret_cast<ProcessHandle*>(p); }
TypeRef* type(mqs_type* t) { return reinterpret_cast<TypeRef*>(t); }

bool hostBigEndian() { return std::endian::native == std::endian::big; }

// ---- basic ----

void* cbMalloc(size_t bytes) { return std::malloc(bytes); }
void cbFree(void* memory) { std::free(memory); }
void cbDprints(const char* text) {
  if (tLogHost && text) tLogHost->logDebug(text);
}
const char* cbErrorString(int code) {
  const char* text = callbackErrorText(code);
  return text ? text : "unknown debugger error";
}
void cbPutImageInfo(mqs_image* i, mqs_image_info* info) {
  if (i) image(i)->info = info;
}
mqs_image_info* cbGetImageInfo(mqs_image* i) { return i ? image(i)->info : nullptr; }
void cbPutProcessInfo(mqs_process* p, mqs_process_info* info) {
  if (p) process(p)->info = info;
}
mqs_process_info* cbGetProcessInfo(mqs_process* p) { return p ? process(p)->info : nullptr; }

// ---- image ----

void cbGetTypeSizes(mqs_process* p, mqs_target_type_sizes* sizes) {
  if (!p || !sizes) return;
  const bool is32 = process(p)->image->elfClass == ELFCLASS32;
  // Exactly the five standard fields (Open MPI's longer struct keeps its own
  // values for the rest).
  sizes->short_size = 2;
  sizes->int_size = 4;
  sizes->long_size = is32 ? 4 : 8;
  sizes->long_long_size = 8;
  sizes->pointer_size = is32 ? 4 : 8;
}

std::string fortranName(const char* name) {
  std::string out(name);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out + "_";
}

int cbFindFunction(mqs_image* i, const char* name, mqs_lang_code lang, mqs_taddr_t* address) {
  if (!i || !name || !address) return kBadArgument;
  auto found = image(i)->symbols->findFunction(name);
  if (!found && (lang == mqs_lang_f77 || lang == mqs_lang_f90)) {
    found = image(i)->symbols->findFunction(fortranName(name));
  }
  if (!found) return kFunctionNotFound;
  *address = static_cast<mqs_taddr_t>(*found);
  return mqs_ok;
}

int cbFindSymbol(mqs_image* i, const char* name, mqs_taddr_t* address) {
  if (!i || !name || !address) return kBadArgument;
  const auto found = image(i)->symbols->findSymbol(name);
  if (!found) return kSymbolNotFound;
  *address = static_cast<mqs_taddr_t>(*found);
  return mqs_ok;
}

mqs_type* cbFindType(mqs_image* i, const char* name, mqs_lang_code) {
  if (!i || !name) return nullptr;
  const TypeRef* found = image(i)->symbols->findType(name);
  if (!found && image(i)->missingTypes.size() < 8) image(i)->missingTypes.emplace_back(name);
  return reinterpret_cast<mqs_type*>(const_cast<TypeRef*>(found));
}

int cbFieldOffset(mqs_type* t, const char* name) {
  if (!t || !name) return -1;
  return DwarfTypes::fieldOffset(type(t)->die, name);
}

int cbSizeof(mqs_type* t) {
  if (!t) return -1;
  return DwarfTypes::byteSize(type(t)->die);
}

// ---- process ----

mqs_tword_t cbGetGlobalRank(mqs_process* p) { return p ? process(p)->worldRank : -1; }

mqs_image* cbGetImage(mqs_process* p) { return p ? toMqs(process(p)->image) : nullptr; }

int cbFetchData(mqs_process* p, mqs_taddr_t address, int size, void* buffer) {
  if (!p) return kBadArgument;
  ProcessHandle* h = process(p);
  if (size < 0 || size > kMaxFetch || (!buffer && size > 0)) {
    h->lastError = fmt::format("the DLL asked for {} bytes at {:#x}", size, address);
    return kBadArgument;
  }
  auto ok = h->memory->read(
      address, std::span(static_cast<std::byte*>(buffer), static_cast<std::size_t>(size)));
  if (!ok) {
    h->lastError = ok.error().message;
    return kFetchFailed;
  }
  return mqs_ok;
}

void cbTargetToHost(mqs_process* p, const void* in, void* out, int size) {
  if (!in || !out || size <= 0) return;
  std::memmove(out, in, static_cast<std::size_t>(size));
  if (p && process(p)->image->bigEndian != hostBigEndian()) {
    auto* bytes = static_cast<unsigned char*>(out);
    std::reverse(bytes, bytes + size);
  }
}

const mqs_basic_callbacks kBasic = {cbMalloc,         cbFree,          cbDprints,
                                    cbErrorString,    cbPutImageInfo,  cbGetImageInfo,
                                    cbPutProcessInfo, cbGetProcessInfo};
const mqs_image_callbacks kImage = {cbGetTypeSizes, cbFindFunction, cbFindSymbol,
                                    cbFindType,     cbFieldOffset,  cbSizeof};
const mqs_process_callbacks kProcess = {cbGetGlobalRank, cbGetImage, cbFetchData, cbTargetToHost};

}  // namespace

const mqs_basic_callbacks* basicCallbacks() { return &kBasic; }
const mqs_image_callbacks* imageCallbacks() { return &kImage; }
const mqs_process_callbacks* processCallbacks() { return &kProcess; }

const char* callbackErrorText(int code) {
  switch (code) {
    case kFetchFailed:
      return "cannot read target memory";
    case kFunctionNotFound:
      return "function not found in the target";
    case kSymbolNotFound:
      return "symbol not found in the target";
    case kBadArgument:
      return "bad argument to a debugger callback";
    default:
      return nullptr;
  }
}

DebugLogScope::DebugLogScope(MqsHost& host) : previous_(tLogHost) { tLogHost = &host; }
DebugLogScope::~DebugLogScope() { tLogHost = previous_; }

}  // namespace mpidbg::core::mqs
