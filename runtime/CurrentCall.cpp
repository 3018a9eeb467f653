#include "CurrentCall.hpp"

#include <array>

namespace mpidbg::rt {

namespace {

constexpr std::array<std::string_view, static_cast<std::size_t>(MpiFunction::Count_)> kNames{
    "",
    "MPI_Barrier", "MPI_Bcast", "MPI_Allgather", "MPI_Allgatherv", "MPI_Allreduce",
    "MPI_Alltoall", "MPI_Alltoallv", "MPI_Reduce_scatter", "MPI_Reduce", "MPI_Gather",
    "MPI_Gatherv", "MPI_Scan", "MPI_Scatter", "MPI_Scatterv",
    "MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Recv", "MPI_Sendrecv",
    "MPI_Sendrecv_replace", "MPI_Probe",
    "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
    "MPI_Comm_dup", "MPI_Comm_split", "MPI_Comm_create", "MPI_Comm_free",
    "MPI_Finalize", "MPI_Abort",
    "MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", "MPI_Irecv",
    "MPI_Send_init", "MPI_Ssend_init", "MPI_Bsend_init", "MPI_Rsend_init", "MPI_Recv_init",
    "MPI_Start", "MPI_Startall", "MPI_Request_free",
    "MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome",
    "MPI_Ibarrier", "MPI_Ibcast", "MPI_Igather", "MPI_Igatherv", "MPI_Iscatter", "MPI_Iscatterv",
    "MPI_Iallgather", "MPI_Iallgatherv", "MPI_Ialltoall", "MPI_Ialltoallv", "MPI_Ireduce",
    "MPI_Iallreduce", "MPI_Ireduce_scatter", "MPI_Ireduce_scatter_block", "MPI_Iscan", "MPI_Iexscan",
    "MPI_Ineighbor_allgather", "MPI_Ineighbor_allgatherv", "MPI_Ineighbor_alltoall",
    "MPI_Ineighbor_alltoallv",
    "MPI_Comm_split_type", "MPI_Comm_dup_with_info", "MPI_Cart_create", "MPI_Cart_sub",
    "MPI_Graph_create", "MPI_Dist_graph_create", "MPI_Dist_graph_create_adjacent",
    "MPI_Comm_create_group",
};
static_assert(kNames.back() == "MPI_Comm_create_group", "one name per MpiFunction");

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
