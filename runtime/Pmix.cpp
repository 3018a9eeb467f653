// PMIx facts and the published endpoint (Pmix.hpp), through the libpmix the
// MPI library loaded.
#include "Pmix.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#if MPIDBG_HAVE_PMIX
#include <pmix.h>
#endif

namespace mpidbg::rt {

#if MPIDBG_HAVE_PMIX

namespace {

/// The PMIx client functions, from the already loaded libpmix.
struct Pmix {
  decltype(&::PMIx_Initialized) initialized = nullptr;
  decltype(&::PMIx_Get) get = nullptr;
  decltype(&::PMIx_Put) put = nullptr;
  decltype(&::PMIx_Commit) commit = nullptr;
  decltype(&::PMIx_Value_destruct) destruct = nullptr;

  /// Empty when complete, else why not.
  std::string load() {
    void* lib = ::dlopen("libpmix.so.2", RTLD_LAZY | RTLD_NOLOAD);
    if (!lib) return "no PMIx client in this process (libpmix.so.2 not loaded)";
    initialized = reinterpret_cast<decltype(initialized)>(::dlsym(lib, "PMIx_Initialized"));
    get = reinterpret_cast<decltype(get)>(::dlsym(lib, "PMIx_Get"));
    put = reinterpret_cast<decltype(put)>(::dlsym(lib, "PMIx_Put"));
    commit = reinterpret_cast<decltype(commit)>(::dlsym(lib, "PMIx_Commit"));
    destruct = reinterpret_cast<decltype(destruct)>(::dlsym(lib, "PMIx_Value_destruct"));
    ::dlclose(lib);  // RTLD_NOLOAD took a reference; the MPI library keeps its own
    if (!initialized || !get || !put || !commit || !destruct) return "libpmix.so.2 lacks a PMIx client function";
    if (!initialized()) return "the PMIx client is not initialized";
    return {};
  }

  /// PMIx_Get of `key` for `proc`; the value is freed by the caller through release().
  pmix_value_t* value(const pmix_proc_t& proc, const char* key) {
    pmix_value_t* v = nullptr;
    if (get(&proc, key, nullptr, 0, &v) != PMIX_SUCCESS) return nullptr;
    return v;
  }
  void release(pmix_value_t* v) {
    if (!v) return;
    destruct(v);
    std::free(v);
  }
  /// An integer value of any integer PMIx type; -1 when absent or not one.
  std::int64_t integer(const pmix_proc_t& proc, const char* key) {
    pmix_value_t* v = value(proc, key);
    std::int64_t out = -1;
    if (v) {
      switch (v->type) {
        case PMIX_UINT16: out = v->data.uint16; break;
        case PMIX_UINT32: out = v->data.uint32; break;
        case PMIX_INT32: out = v->data.int32; break;
        case PMIX_INT: out = v->data.integer; break;
        case PMIX_UINT64: out = static_cast<std::int64_t>(v->data.uint64); break;
        case PMIX_PROC_RANK: out = v->data.rank; break;
        default: break;
      }
    }
    release(v);
    return out;
  }
  std::string text(const pmix_proc_t& proc, const char* key) {
    pmix_value_t* v = value(proc, key);
    std::string out = v && v->type == PMIX_STRING && v->data.string ? v->data.string : "";
    release(v);
    return out;
  }
};

/// This process as PMIx names it, from the environment the PMIx server set.
bool ownProc(pmix_proc_t& proc, PmixFacts& facts) {
  const char* nspace = std::getenv("PMIX_NAMESPACE");
  const char* rank = std::getenv("PMIX_RANK");
  if (!nspace || !*nspace || !rank || !*rank) {
    facts.why = "not started by a PMIx server (no PMIX_NAMESPACE/PMIX_RANK)";
    return false;
  }
  std::memset(&proc, 0, sizeof proc);
  std::strncpy(proc.nspace, nspace, PMIX_MAX_NSLEN);
  proc.rank = static_cast<pmix_rank_t>(std::strtoul(rank, nullptr, 10));
  facts.nspace = proc.nspace;
  facts.rank = proc.rank;
  return true;
}

}  // namespace

PmixFacts readPmixFacts() noexcept {
  PmixFacts facts;
  try {
    pmix_proc_t proc;
    if (!ownProc(proc, facts)) return facts;
    Pmix pmix;
    if (facts.why = pmix.load(); !facts.why.empty()) return facts;
    facts.available = true;
    facts.node = pmix.text(proc, PMIX_HOSTNAME);
    facts.nodeId = pmix.integer(proc, PMIX_NODEID);
    facts.localRank = pmix.integer(proc, PMIX_LOCAL_RANK);
  } catch (...) {
    facts.available = false;
    facts.why = "out of memory";
  }
  return facts;
}

std::string publishPmixEndpoint(const PmixFacts& facts, const std::string& endpoint) noexcept {
  if (!facts.available) return facts.why;
  try {
    Pmix pmix;
    if (std::string why = pmix.load(); !why.empty()) return why;
    pmix_value_t value;
    std::memset(&value, 0, sizeof value);
    value.type = PMIX_STRING;
    value.data.string = const_cast<char*>(endpoint.c_str());
    if (pmix.put(PMIX_GLOBAL, kPmixEndpointKey, &value) != PMIX_SUCCESS) return "PMIx_Put failed";
    if (pmix.commit() != PMIX_SUCCESS) return "PMIx_Commit failed";
    pmix_proc_t proc;
    PmixFacts again;
    if (!ownProc(proc, again)) return again.why;
    if (pmix.text(proc, kPmixEndpointKey) != endpoint) return "PMIx_Get does not return the endpoint put";
    return {};
  } catch (...) {
    return "out of memory";
  }
}

#else  // !MPIDBG_HAVE_PMIX

PmixFacts readPmixFacts() noexcept {
  PmixFacts facts;
  facts.why = "built without PMIx headers (libpmix-dev)";
  return facts;
}

std::string publishPmixEndpoint(const PmixFacts& facts, const std::string&) noexcept { return facts.why; }

#endif

}  // namespace mpidbg::rt
