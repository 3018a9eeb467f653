// The communicator registry's table (see CommTable.hpp). No MPI.
#include "CommTable.hpp"

#include <cstdio>
#include <cstring>
#include <limits>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define MPIDBG_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MPIDBG_LSAN 1
#endif
#endif
#ifdef MPIDBG_LSAN
#include <sanitizer/lsan_interface.h>
#endif

namespace mpidbg::rt {

namespace {

constexpr std::size_t kCommMask = CommTable::kCapacity - 1;
static_assert((CommTable::kCapacity & kCommMask) == 0, "capacity must be a power of two");
/// Attempts before a reader skips a record that keeps changing.
constexpr int kCommReadAttempts = 16;

void storeName(CommRecord& r, std::string_view name) noexcept {
  char bytes[64] = {};
  if (!name.empty()) std::memcpy(bytes, name.data(), name.size() < 63 ? name.size() : 63);
  for (std::size_t w = 0; w < r.nameWords.size(); ++w) {
    std::uint64_t word;
    std::memcpy(&word, bytes + 8 * w, 8);
    r.nameWords[w].store(word, std::memory_order_relaxed);
  }
}

std::string loadName(const CommRecord& r) {
  char bytes[65] = {};
  for (std::size_t w = 0; w < r.nameWords.size(); ++w) {
    const std::uint64_t word = r.nameWords[w].load(std::memory_order_relaxed);
    std::memcpy(bytes + 8 * w, &word, 8);
  }
  return std::string(bytes, strnlen(bytes, 64));
}

/// Opens a writer section on `r` (seqlock odd). Caller holds the mutex.
void beginWrite(CommRecord& r) noexcept {
  r.version.store(r.version.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
}

/// Closes a writer section on `r` (seqlock even again).
void endWrite(CommRecord& r) noexcept {
  r.version.store(r.version.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

}  // namespace

std::uint64_t childUid(std::uint64_t parentUid, std::uint64_t child,
                       const std::vector<std::int32_t>& worldRanks) noexcept {
  if (parentUid == 0 || worldRanks.empty()) return 0;
  auto mix = [](std::uint64_t h, std::uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
  };
  std::uint64_t h = mix(mix(parentUid, child), worldRanks.size());
  for (std::int32_t w : worldRanks) h = mix(h, static_cast<std::uint32_t>(w));
  return h == 0 ? 1 : h;
}

std::size_t CommTable::home(std::uint64_t handle) noexcept {
  return static_cast<std::size_t>((handle * 0x9E3779B97F4A7C15ull) >> 52) & kCommMask;
}

CommRecord* CommTable::find(std::uint64_t handle) noexcept {
  std::size_t i = home(handle);
  for (std::size_t n = 0; n < kCapacity; ++n, i = (i + 1) & kCommMask) {
    CommRecord& r = slots_[i];
    const std::uint32_t st = r.state.load(std::memory_order_acquire);
    if (st == CommRecord::Empty) return nullptr;
    if (st == CommRecord::Live && r.handle.load(std::memory_order_relaxed) == handle) return &r;
  }
  return nullptr;
}

CommRecord* CommTable::add(std::uint64_t handle, const CommInfo& info) noexcept {
  std::lock_guard lock(writers_);
  CommRecord* target = nullptr;
  CommRecord* firstFree = nullptr;
  std::size_t i = home(handle);
  for (std::size_t n = 0; n < kCapacity; ++n, i = (i + 1) & kCommMask) {
    CommRecord& r = slots_[i];
    const std::uint32_t st = r.state.load(std::memory_order_relaxed);
    if (st == CommRecord::Live && r.handle.load(std::memory_order_relaxed) == handle) {
      target = &r;
      break;
    }
    if (st == CommRecord::Tombstone && !firstFree) firstFree = &r;
    if (st == CommRecord::Empty) {
      if (!firstFree) firstFree = &r;
      break;
    }
  }
  if (!target) target = firstFree;
  if (!target) return nullptr;

  CommRecord& r = *target;
  r.liveKey.store(CommRecord::kNoKey, std::memory_order_relaxed);
  r.state.store(CommRecord::Filling, std::memory_order_relaxed);
  beginWrite(r);
  r.handle.store(handle, std::memory_order_relaxed);
  r.size.store(info.size, std::memory_order_relaxed);
  r.localRank.store(info.localRank, std::memory_order_relaxed);
  r.rootWorldRank.store(info.rootWorldRank, std::memory_order_relaxed);
  storeName(r, info.name);
  storeWorldRanks(r, info.worldRanks);
  r.collSeq.store(0, std::memory_order_relaxed);
  r.uid.store(info.uid, std::memory_order_relaxed);
  r.children.store(0, std::memory_order_relaxed);
  r.generation.fetch_add(1, std::memory_order_relaxed);
  for (auto& c : r.entries) c.store(0, std::memory_order_relaxed);
  for (auto& c : r.exits) c.store(0, std::memory_order_relaxed);
  endWrite(r);
  r.state.store(CommRecord::Live, std::memory_order_release);
  r.liveKey.store(handle, std::memory_order_release);
  return &r;
}

void CommTable::storeWorldRanks(CommRecord& r, const std::vector<std::int32_t>& ranks) noexcept {
  if (ranks.empty() || ranks.size() > std::numeric_limits<std::uint32_t>::max() / 2) {
    r.worldRanks.store(nullptr, std::memory_order_relaxed);
    return;
  }
  if (ranks.size() > r.worldRanksCapacity) {
    std::size_t capacity = 16;
    while (capacity < ranks.size()) capacity *= 2;
    auto* bigger = new (std::nothrow) std::int32_t[capacity];
    if (!bigger) {
      r.worldRanks.store(nullptr, std::memory_order_relaxed);
      return;
    }
#ifdef MPIDBG_LSAN
    // Never freed by design, not even with its table (a reader may still be
    // copying from it): tell LeakSanitizer so.
    __lsan_ignore_object(bigger);
#endif
    // The previous array is deliberately not freed (see CommRecord::worldRanks).
    r.worldRanksStorage = bigger;
    r.worldRanksCapacity = static_cast<std::uint32_t>(capacity);
  }
  std::memcpy(r.worldRanksStorage, ranks.data(), ranks.size() * sizeof(std::int32_t));
  r.worldRanks.store(r.worldRanksStorage, std::memory_order_relaxed);
}

void CommTable::remove(std::uint64_t handle) noexcept {
  std::lock_guard lock(writers_);
  CommRecord* r = find(handle);
  if (!r) return;
  r->liveKey.store(CommRecord::kNoKey, std::memory_order_relaxed);
  beginWrite(*r);
  r->state.store(CommRecord::Tombstone, std::memory_order_release);
  endWrite(*r);
  // A tombstone followed by an empty slot ends no probe chain: turn the run of
  // tombstones ending here back into empty slots so misses stay short.
  std::size_t i = static_cast<std::size_t>(r - slots_.data());
  if (slots_[(i + 1) & kCommMask].state.load(std::memory_order_relaxed) != CommRecord::Empty) return;
  for (std::size_t n = 0; n < kCapacity; ++n, i = (i - 1) & kCommMask) {
    if (slots_[i].state.load(std::memory_order_relaxed) != CommRecord::Tombstone) break;
    slots_[i].state.store(CommRecord::Empty, std::memory_order_release);
  }
}

void CommTable::rename(std::uint64_t handle, std::string_view name) noexcept {
  std::lock_guard lock(writers_);
  CommRecord* r = find(handle);
  if (!r) return;
  beginWrite(*r);
  storeName(*r, name);
  endWrite(*r);
}

bool CommTable::readRecord(const CommRecord& r, ccs::proto::CommState& out, std::vector<std::int32_t>* worldRanks,
                           std::uint64_t* collSeq) {
  const std::uint32_t before = r.version.load(std::memory_order_acquire);
  if ((before & 1u) || r.state.load(std::memory_order_relaxed) != CommRecord::Live) return false;
  out.handle = r.handle.load(std::memory_order_relaxed);
  out.size = r.size.load(std::memory_order_relaxed);
  out.localRank = r.localRank.load(std::memory_order_relaxed);
  out.rootWorldRank = r.rootWorldRank.load(std::memory_order_relaxed);
  out.uid = r.uid.load(std::memory_order_relaxed);
  out.name = loadName(r);
  for (std::size_t c = 0; c < ccs::proto::kCollClassCount; ++c) {
    // Exits first: an entry counted after the exit read only makes the class
    // look active, never an exit without its entry.
    const std::uint64_t left = r.exits[c].load(std::memory_order_acquire);
    const std::uint64_t entered = r.entries[c].load(std::memory_order_relaxed);
    out.counts[c] = entered;
    out.active[c] = entered > left;
  }
  if (collSeq) *collSeq = r.collSeq.load(std::memory_order_relaxed);
  const std::int32_t* ranks = r.worldRanks.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (r.version.load(std::memory_order_relaxed) != before || r.state.load(std::memory_order_relaxed) != CommRecord::Live)
    return false;
  if (worldRanks) {
    // (ranks, size) are one consistent version and arrays are never freed,
    // so the copy stays inside the array; a rewrite shows in the version.
    worldRanks->clear();
    if (ranks && out.size > 0) worldRanks->assign(ranks, ranks + out.size);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (r.version.load(std::memory_order_relaxed) != before) return false;
  }
  return true;
}

std::string CommTable::nameOf(std::uint64_t handle) const {
  // find() does not modify the table; the const_cast only reuses its probe loop.
  if (const CommRecord* r = const_cast<CommTable*>(this)->find(handle)) {
    for (int attempt = 0; attempt < kCommReadAttempts; ++attempt) {
      ccs::proto::CommState s;
      if (readRecord(*r, s) && s.handle == handle) return s.name;
    }
  }
  char text[32];
  std::snprintf(text, sizeof text, "comm 0x%x", static_cast<unsigned>(handle));
  return text;
}

std::vector<ccs::proto::CommState> CommTable::snapshot() const {
  std::vector<ccs::proto::CommState> out;
  for (const CommRecord& r : slots_) {
    if (r.state.load(std::memory_order_acquire) != CommRecord::Live) continue;
    for (int attempt = 0; attempt < kCommReadAttempts; ++attempt) {
      ccs::proto::CommState s;
      if (readRecord(r, s)) {
        out.push_back(std::move(s));
        break;
      }
    }
  }
  return out;
}

std::vector<ccs::proto::CommQueues> CommTable::queueSnapshot() const {
  std::vector<ccs::proto::CommQueues> out;
  for (const CommRecord& r : slots_) {
    if (r.state.load(std::memory_order_acquire) != CommRecord::Live) continue;
    for (int attempt = 0; attempt < kCommReadAttempts; ++attempt) {
      ccs::proto::CommQueues q;
      if (readRecord(r, q.state, &q.worldRanks, &q.collSeq)) {
        out.push_back(std::move(q));
        break;
      }
    }
  }
  return out;
}

}  // namespace mpidbg::rt

