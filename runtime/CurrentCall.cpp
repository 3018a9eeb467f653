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
};

/// Attempts before a reader gives up on a record that keeps changing.
constexpr int kReadAttempts = 64;

}  // namespace

std::string_view functionName(MpiFunction f) noexcept {
  const auto i = static_cast<std::size_t>(f);
  return i < kNames.size() ? kNames[i] : std::string_view{};
}

std::string_view peerRoleName(PeerRole r) noexcept {
  switch (r) {
    case PeerRole::Source: return "source";
    case PeerRole::Dest: return "dest";
    case PeerRole::Root: return "root";
    case PeerRole::None: break;
  }
  return {};
}

std::optional<MpiCallRecord> CurrentCall::read() const noexcept {
  for (int attempt = 0; attempt < kReadAttempts; ++attempt) {
    const std::uint32_t before = seq_.load(std::memory_order_acquire);
    if (before & 1u) continue;
    MpiCallRecord c;
    c.function = static_cast<MpiFunction>(function_.load(std::memory_order_relaxed));
    c.peerRole = static_cast<PeerRole>(peerRole_.load(std::memory_order_relaxed));
    c.hasTag = hasTag_.load(std::memory_order_relaxed);
    c.peer = peer_.load(std::memory_order_relaxed);
    c.tag = tag_.load(std::memory_order_relaxed);
    c.comm = comm_.load(std::memory_order_relaxed);
    c.collCall = collCall_.load(std::memory_order_relaxed);
    c.entryNs = entryNs_.load(std::memory_order_relaxed);
    c.seq = callSeq_.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (seq_.load(std::memory_order_relaxed) != before) continue;
    if (c.function == MpiFunction::None) return std::nullopt;
    return c;
  }
  return std::nullopt;
}

}  // namespace mpidbg::rt
