// Entry points (MPIDBG_ENTRY in mpidbg/mpidbg.h): the exported armed word,
// the registry of call sites seen, and the slow path of an entry point.
#include "EntryPoints.hpp"

#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "CallScope.hpp"
#include "Control.hpp"
#include "Runtime.hpp"
#include "mpidbg/mpidbg.h"

// The armed word: hidden for the runtime's own accesses (one PC-relative
// load, no GOT), exported under its public name for MPIDBG_ENTRY.
extern "C" {
__attribute__((visibility("hidden"))) unsigned int mpidbg_rt_armed = 0;
extern __attribute__((visibility("default"), alias("mpidbg_rt_armed"))) unsigned int mpidbg_control_armed;
}

namespace mpidbg::rt {

namespace {

/// Most call sites registered; later ones still count hits in their own
/// static storage and stop at breakpoints, but are not listed.
constexpr std::size_t kMaxSites = 4096;
/// Names are cut to this many bytes in listings and comparisons.
constexpr std::size_t kMaxNameBytes = 256;

struct SiteRegistry {
  std::mutex mutex;
  std::vector<mpidbg_entry_site*> sites;
};

SiteRegistry& registry() {
  // Never destroyed: entry points may run during exit.
  alignas(SiteRegistry) static unsigned char storage[sizeof(SiteRegistry)];
  static SiteRegistry* const r = new (storage) SiteRegistry();
  return *r;
}

std::string_view siteName(const mpidbg_entry_site& site) noexcept {
  if (!site.name) return "(null)";
  return std::string_view(site.name, strnlen(site.name, kMaxNameBytes));
}

void registerSite(mpidbg_entry_site* site) noexcept {
  SiteRegistry& r = registry();
  // The helper thread takes this mutex (mpidbg/entries): freeze --now must
  // not stop the thread while it holds it.
  SignalBlock block(Control::instance().freezeSignal());
  std::lock_guard lock(r.mutex);
  if (__atomic_load_n(&site->registered, __ATOMIC_ACQUIRE)) return;
  try {
    if (r.sites.size() < kMaxSites) r.sites.push_back(site);
  } catch (...) {
    // Out of memory: the site works, it is just not listed.
  }
  __atomic_store_n(&site->registered, 1u, __ATOMIC_RELEASE);
}

}  // namespace

std::vector<ccs::proto::EntryInfo> entryPoints() {
  std::map<std::string, std::uint64_t, std::less<>> byName;
  {
    SiteRegistry& r = registry();
    std::lock_guard lock(r.mutex);
    for (const mpidbg_entry_site* site : r.sites)
      byName[std::string(siteName(*site))] += __atomic_load_n(&site->hits, __ATOMIC_RELAXED);
  }
  std::vector<ccs::proto::EntryInfo> out;
  out.reserve(byName.size());
  for (auto& [name, hits] : byName) out.push_back({name, hits});
  return out;
}

}  // namespace mpidbg::rt

using mpidbg::rt::Runtime;

MPIDBG_EXPORT void mpidbg_entry_reached(struct mpidbg_entry_site* site) {
  if (!site) return;
  if (!__atomic_load_n(&site->registered, __ATOMIC_ACQUIRE)) mpidbg::rt::registerSite(site);
  Runtime* rt = Runtime::attached();
  if (!rt || !mpidbg::rt::controlArmed()) return;
  // An entry point inside an interposed MPI call (a callback) is no safe point.
  if (mpidbg::rt::tCalls.depth > 0) return;
  mpidbg::ccs::cond::CallArgs args;
  args.value[static_cast<std::size_t>(mpidbg::ccs::cond::Field::Rank)] = rt->rank();
  args.value[static_cast<std::size_t>(mpidbg::ccs::cond::Field::Size)] = rt->size();
  mpidbg::rt::Control::instance().reach(*rt, mpidbg::rt::MpiFunction::None, mpidbg::rt::siteName(*site), args, 0);
}
