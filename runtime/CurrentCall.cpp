#include "CurrentCall.hpp"

#include <array>

namespace mpidbg::rt {

namespace {

/// The function table's names, indexed by MpiFunction ("" for None).
constexpr std::array<std::string_view, static_cast<std::size_t>(MpiFunction::Count_)> kNames{
    "",
#define MPIDBG_NAME(name, text, collClass, fields, role, group) text,
    MPIDBG_MPI_FUNCTIONS(MPIDBG_NAME)
#undef MPIDBG_NAME
};

using NameTable = std::array<std::array<char, kFunctionNameLen>, kFunctionCount>;

/// kNames as fixed NUL-terminated rows, built at compile time.
constexpr NameTable makeNameTable() {
  NameTable table{};
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i].size() >= kFunctionNameLen) throw "function name longer than kFunctionNameLen - 1";
    for (std::size_t k = 0; k < kNames[i].size(); ++k) table[i][k] = kNames[i][k];
  }
  return table;
}

constinit const NameTable kNameTable = makeNameTable();

/// Attempts before a reader gives up on a record that keeps changing.
constexpr int kCallReadAttempts = 64;

}  // namespace

std::string_view functionName(MpiFunction f) noexcept {
  const auto i = static_cast<std::size_t>(f);
  return i < kNames.size() ? kNames[i] : std::string_view{};
}

const char* functionNameTable() noexcept { return kNameTable[0].data(); }

std::string_view peerRoleName(PeerRole r) noexcept {
  switch (r) {
    case PeerRole::Source: return "source";
    case PeerRole::Dest: return "dest";
    case PeerRole::Root: return "root";
    case PeerRole::Target: return "target";
    case PeerRole::None: break;
  }
  return {};
}

std::optional<MpiCallRecord> CurrentCall::read(WaitedRequests* requests) const noexcept {
  for (int attempt = 0; attempt < kCallReadAttempts; ++attempt) {
    const std::uint32_t before = seq_.load(std::memory_order_acquire);
    if (before & 1u) continue;
    MpiCallRecord c;
    const std::uint64_t kind = kind_.load(std::memory_order_relaxed);
    c.function = static_cast<MpiFunction>(static_cast<std::uint32_t>(kind));
    c.peerRole = static_cast<PeerRole>(kind >> 32);
    c.hasTag = hasTag_.load(std::memory_order_relaxed) != 0;
    c.peer = peer_.load(std::memory_order_relaxed);
    c.tag = tag_.load(std::memory_order_relaxed);
    c.comm = comm_.load(std::memory_order_relaxed);
    c.collCall = collCall_.load(std::memory_order_relaxed);
    c.entryNs = entryNs_.load(std::memory_order_relaxed);
    c.seq = callSeq_.load(std::memory_order_relaxed);
    WaitedRequests w;
    w.address = requests_.load(std::memory_order_relaxed);
    w.count = requestCount_.load(std::memory_order_relaxed);
    w.version = before;
    std::atomic_thread_fence(std::memory_order_acquire);
    if (seq_.load(std::memory_order_relaxed) != before) continue;
    if (c.function == MpiFunction::None || static_cast<std::size_t>(c.function) >= kFunctionCount)
      return std::nullopt;
    if (requests) *requests = w.address != 0 && w.count > 0 ? w : WaitedRequests{0, 0, before};
    return c;
  }
  return std::nullopt;
}

}  // namespace mpidbg::rt
