// The exported symbols of StateLayout.h: mpidbg_state (the root),
// mpidbg_layout (sizes and field offsets of every exported structure) and
// MPIR_dll_name (where the message-queue DLL is).
#include "ExportedState.hpp"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <bit>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "CollHistory.hpp"
#include "CommRegistry.hpp"
#include "CurrentCall.hpp"
#include "OpTable.hpp"
#include "Runtime.hpp"

namespace mpidbg::rt {

/// Builds the layout table at compile time; a friend of the structures whose
/// fields are private (CurrentCall).
struct LayoutAccess {
  /// The table; fails to compile when a field's size is not the documented one.
  static constexpr mpidbg_layout_table build() {
    mpidbg_layout_table t{};
    t.magic = MPIDBG_LAYOUT_MAGIC;
    t.version = MPIDBG_LAYOUT_VERSION;
    auto copyName = [](char (&out)[MPIDBG_LAYOUT_NAME_LEN], std::string_view name) {
      if (name.size() >= MPIDBG_LAYOUT_NAME_LEN) throw "layout name too long";
      for (std::size_t i = 0; i < name.size(); ++i) out[i] = name[i];
    };
    auto row = [&](std::string_view type, std::string_view field, std::size_t offset, std::size_t size,
                   std::size_t documented) {
      if (size != documented) throw "a field's size differs from StateLayout.h";
      if (t.count == MPIDBG_LAYOUT_MAX_FIELDS) throw "layout table full";
      mpidbg_layout_field& f = t.fields[t.count++];
      copyName(f.type, type);
      copyName(f.field, field);
      f.offset = static_cast<std::uint32_t>(offset);
      f.size = static_cast<std::uint32_t>(size);
    };
#define MPIDBG_ROW(type, Struct, member, name, documented) \
  row(type, name, offsetof(Struct, member), sizeof(Struct::member), documented)

    row("root", "", 0, sizeof(StateRoot), sizeof(StateRoot));
    MPIDBG_ROW("root", StateRoot, magic, "magic", 8);
    MPIDBG_ROW("root", StateRoot, worldRank, "world_rank", 4);
    MPIDBG_ROW("root", StateRoot, worldSize, "world_size", 4);
    MPIDBG_ROW("root", StateRoot, phase, "phase", 4);
    MPIDBG_ROW("root", StateRoot, threadLevel, "thread_level", 4);
    MPIDBG_ROW("root", StateRoot, callCount, "call_count", 8);
    MPIDBG_ROW("root", StateRoot, comms, "comms", 8);
    MPIDBG_ROW("root", StateRoot, commCapacity, "comm_capacity", 4);
    MPIDBG_ROW("root", StateRoot, ops, "ops", 8);
    MPIDBG_ROW("root", StateRoot, opCapacity, "op_capacity", 4);
    MPIDBG_ROW("root", StateRoot, history, "history", 8);
    MPIDBG_ROW("root", StateRoot, historyCapacity, "history_capacity", 4);
    MPIDBG_ROW("root", StateRoot, historyNext, "history_next", 8);
    MPIDBG_ROW("root", StateRoot, call, "call", 8);
    MPIDBG_ROW("root", StateRoot, functionNames, "function_names", 8);
    MPIDBG_ROW("root", StateRoot, functionCount, "function_count", 4);
    MPIDBG_ROW("root", StateRoot, functionNameLen, "function_name_len", 4);
    MPIDBG_ROW("root", StateRoot, opOverflow, "op_overflow", 8);
    MPIDBG_ROW("root", StateRoot, clockTickBase, "clock_tick_base", 8);
    MPIDBG_ROW("root", StateRoot, clockNsBase, "clock_ns_base", 8);
    MPIDBG_ROW("root", StateRoot, clockNsPerTickQ32, "clock_ns_per_tick_q32", 8);

    row("comm", "", 0, sizeof(CommRecord), sizeof(CommRecord));
    MPIDBG_ROW("comm", CommRecord, state, "state", 4);
    MPIDBG_ROW("comm", CommRecord, version, "version", 4);
    MPIDBG_ROW("comm", CommRecord, handle, "handle", 8);
    MPIDBG_ROW("comm", CommRecord, size, "size", 4);
    MPIDBG_ROW("comm", CommRecord, localRank, "local_rank", 4);
    MPIDBG_ROW("comm", CommRecord, rootWorldRank, "root_world_rank", 4);
    MPIDBG_ROW("comm", CommRecord, nameWords, "name", 64);
    MPIDBG_ROW("comm", CommRecord, worldRanks, "world_ranks", 8);
    MPIDBG_ROW("comm", CommRecord, collSeq, "coll_seq", 8);
    MPIDBG_ROW("comm", CommRecord, entries, "entries", 14 * 8);
    MPIDBG_ROW("comm", CommRecord, exits, "exits", 14 * 8);
    MPIDBG_ROW("comm", CommRecord, uid, "uid", 8);

    row("op", "", 0, sizeof(OpRecord), sizeof(OpRecord));
    MPIDBG_ROW("op", OpRecord, state, "state", 4);
    MPIDBG_ROW("op", OpRecord, version, "version", 4);
    MPIDBG_ROW("op", OpRecord, kind, "kind", 4);
    MPIDBG_ROW("op", OpRecord, function, "function", 4);
    MPIDBG_ROW("op", OpRecord, flags, "flags", 4);
    MPIDBG_ROW("op", OpRecord, request, "request", 8);
    MPIDBG_ROW("op", OpRecord, comm, "comm", 8);
    MPIDBG_ROW("op", OpRecord, peer, "peer", 4);
    MPIDBG_ROW("op", OpRecord, tag, "tag", 4);
    MPIDBG_ROW("op", OpRecord, count, "count", 8);
    MPIDBG_ROW("op", OpRecord, bytes, "bytes", 8);
    MPIDBG_ROW("op", OpRecord, datatype, "datatype", 8);
    MPIDBG_ROW("op", OpRecord, buffer, "buffer", 8);
    MPIDBG_ROW("op", OpRecord, collClass, "coll_class", 4);
    MPIDBG_ROW("op", OpRecord, collCall, "coll_call", 8);
    MPIDBG_ROW("op", OpRecord, collSeq, "coll_seq", 8);
    MPIDBG_ROW("op", OpRecord, issued, "issued", 8);

    row("coll", "", 0, sizeof(CollHistoryRecord), sizeof(CollHistoryRecord));
    MPIDBG_ROW("coll", CollHistoryRecord, comm, "comm", 8);
    MPIDBG_ROW("coll", CollHistoryRecord, collSeq, "coll_seq", 8);
    MPIDBG_ROW("coll", CollHistoryRecord, function, "function", 4);
    MPIDBG_ROW("coll", CollHistoryRecord, root, "root", 4);
    MPIDBG_ROW("coll", CollHistoryRecord, count, "count", 8);
    MPIDBG_ROW("coll", CollHistoryRecord, stamp, "stamp", 8);

    row("call", "", 0, sizeof(CurrentCall), sizeof(CurrentCall));
    MPIDBG_ROW("call", CurrentCall, seq_, "version", 4);
    // One word, two fields (CurrentCall::kindOf): the low half first.
    static_assert(std::endian::native == std::endian::little);
    row("call", "function", offsetof(CurrentCall, kind_), 4, 4);
    row("call", "peer_role", offsetof(CurrentCall, kind_) + 4, 4, 4);
    MPIDBG_ROW("call", CurrentCall, hasTag_, "has_tag", 4);
    MPIDBG_ROW("call", CurrentCall, peer_, "peer", 4);
    MPIDBG_ROW("call", CurrentCall, tag_, "tag", 4);
    MPIDBG_ROW("call", CurrentCall, comm_, "comm", 8);
    MPIDBG_ROW("call", CurrentCall, collCall_, "coll_call", 8);
    MPIDBG_ROW("call", CurrentCall, entryNs_, "entry_ns", 8);
    MPIDBG_ROW("call", CurrentCall, callSeq_, "seq", 8);
    MPIDBG_ROW("call", CurrentCall, requests_, "requests", 8);
    MPIDBG_ROW("call", CurrentCall, requestCount_, "request_count", 4);
#undef MPIDBG_ROW
    return t;
  }
};

// Exported structures are read as plain integers from outside.
static_assert(std::atomic<std::uint64_t>::is_always_lock_free && sizeof(std::atomic<std::uint64_t>) == 8);
static_assert(std::atomic<std::uint32_t>::is_always_lock_free && sizeof(std::atomic<std::uint32_t>) == 4);
static_assert(std::atomic<std::int32_t*>::is_always_lock_free && sizeof(std::atomic<std::int32_t*>) == 8);
static_assert(static_cast<int>(CommRecord::Live) == MPIDBG_SLOT_LIVE &&
              static_cast<int>(CommRecord::Tombstone) == MPIDBG_SLOT_TOMBSTONE);
static_assert(static_cast<int>(PeerRole::Root) == 3 && static_cast<int>(PeerRole::Dest) == 2 &&
              static_cast<int>(PeerRole::Source) == 1);

extern "C" {
// The root's storage and its exported alias.
constinit StateRoot mpidbg_rt_state{};
extern StateRoot mpidbg_state __attribute__((alias("mpidbg_rt_state"), visibility("default")));

__attribute__((visibility("default"))) extern const mpidbg_layout_table mpidbg_layout;
constinit const mpidbg_layout_table mpidbg_layout = LayoutAccess::build();

/// MPIR convention: the absolute path of the message-queue DLL.
__attribute__((visibility("default"))) char MPIR_dll_name[kDllNameBytes] = {};
}

namespace {

/// At library load (attached or not): MPIR_dll_name = the directory of this
/// library + "/" + kMqsLibraryName. Left empty when the path is unknown or
/// does not fit.
__attribute__((constructor)) void fillDllName() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&fillDllName), &info) || !info.dli_fname) return;
  char resolved[PATH_MAX];
  if (!realpath(info.dli_fname, resolved)) return;
  const char* slash = std::strrchr(resolved, '/');
  if (!slash) return;
  const int length = static_cast<int>(slash - resolved);
  const int written = std::snprintf(MPIR_dll_name, sizeof MPIR_dll_name, "%.*s/%s", length, resolved, kMqsLibraryName);
  if (written < 0 || static_cast<std::size_t>(written) >= sizeof MPIR_dll_name) MPIR_dll_name[0] = '\0';
}

std::uint64_t addressOf(const void* p) noexcept { return reinterpret_cast<std::uintptr_t>(p); }

}  // namespace

void publishState(Runtime& rt, std::int32_t threadLevel) noexcept {
  StateRoot& root = stateRoot();
  root.worldRank = rt.rank();
  root.worldSize = rt.size();
  root.threadLevel = threadLevel;
  root.comms = addressOf(rt.comms().slots());
  root.commCapacity = static_cast<std::uint32_t>(CommRegistry::kCapacity);
  root.ops = addressOf(rt.ops().slots());
  root.opCapacity = static_cast<std::uint32_t>(OpTable::kCapacity);
  root.history = addressOf(rt.history().records());
  root.historyCapacity = static_cast<std::uint32_t>(CollHistory::kCapacity);
  root.call = addressOf(&rt.currentCall());
  root.functionNames = addressOf(functionNameTable());
  root.functionCount = static_cast<std::uint32_t>(kFunctionCount);
  root.functionNameLen = static_cast<std::uint32_t>(kFunctionNameLen);
  root.phase.store(MPIDBG_PHASE_RUNNING, std::memory_order_relaxed);
  root.magic.store(MPIDBG_LAYOUT_MAGIC, std::memory_order_release);
}

}  // namespace mpidbg::rt
