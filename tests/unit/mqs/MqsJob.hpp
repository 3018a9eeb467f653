#pragma once
// The standard rank used by the mqs DLL tests: world rank 2 of 4 with two
// communicators, pending operations of every kind, a blocking MPI_Recv and a
// wrapped collective history.

#include <memory>

#include "FakeState.hpp"

namespace mpidbg::mqs::test {

inline constexpr std::uint64_t kWorld = 0x44000000;
inline constexpr std::uint64_t kHalo = 0x84000001;
/// The world's "comm".uid in the standard rank (any nonzero value).
inline constexpr std::uint64_t kWorldUid = 0x776f726c64;

/// Fills `job` with the standard rank (see the file comment).
inline void fillStandardRank(FakeJob& job) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> worldCounters(14, {0, 0});
  worldCounters[mqs_comm_barrier] = {3, 3};
  worldCounters[mqs_comm_broadcast] = {5, 4};
  worldCounters[mqs_comm_allreduce] = {2, 2};
  std::vector<std::pair<std::uint64_t, std::uint64_t>> haloCounters(14, {0, 0});
  haloCounters[mqs_comm_scatterv] = {7, 6};
  job.addComm(1, {kWorld, "MPI_COMM_WORLD", 2, {0, 1, 2, 3}, 9, worldCounters, MPIDBG_SLOT_LIVE, kWorldUid});
  job.addComm(2, {0x84000002, "freed", 0, {0}, 0, {}, MPIDBG_SLOT_TOMBSTONE});
  job.addComm(3, {kHalo, "halo", 1, {3, 2}, 2, haloCounters});
  job.addComm(4, {0x84000003, "half-made", 0, {1}, 0, {}, MPIDBG_SLOT_FILLING});

  job.addOp(5, {MPIDBG_OP_SEND, "MPI_Isend", kWorld, 1, 7, 80, 12, 0xac000003});
  job.addOp(0, {MPIDBG_OP_RECV, "MPI_Irecv", kWorld, -1, -1, 400, 10, 0xac000001});
  job.addOp(2, {MPIDBG_OP_RECV, "MPI_Irecv", kHalo, 1, 5, 8, 11, 0xac000002});
  job.addOp(
      6, {MPIDBG_OP_SEND, "MPI_Send_init", kWorld, 3, 9, 16, 9, 0xac000004, MPIDBG_OP_PERSISTENT});
  job.addOp(7, {MPIDBG_OP_COLLECTIVE, "MPI_Iallreduce", kWorld, -1, -1, 32, 13, 0xac000005,
                MPIDBG_OP_ACTIVE, mqs_comm_allreduce, 3, 10});
  job.addOp(1, {MPIDBG_OP_COLLECTIVE, "MPI_Ibcast", kHalo, 0, -1, 24, 14, 0xac000006,
                MPIDBG_OP_ACTIVE | MPIDBG_OP_WAITED, mqs_comm_broadcast, 2, 3});
  job.addOp(3, {MPIDBG_OP_SEND, "MPI_Isend", kWorld, 0, 0, 4, 8, 0xac0000ff, MPIDBG_OP_ACTIVE, -1,
                0, 0, 0x1000, 1, MPIDBG_SLOT_TOMBSTONE});
  job.addOp(4, {MPIDBG_OP_SEND, "MPI_Issend", kWorld, 0, 1, 4, 15, 0xac000007,
                MPIDBG_OP_ACTIVE | MPIDBG_OP_SYNCHRONOUS | MPIDBG_OP_WAITED});

  job.setCall({"MPI_Recv", 1, 3, true, 42, kWorld});

  const char* functions[] = {"MPI_Barrier", "MPI_Bcast", "MPI_Allreduce"};
  for (std::uint64_t seq = 1; seq <= 6; ++seq)
    job.addHistory(seq, seq % 2 ? kWorld : kHalo, functions[seq % 3],
                   seq % 3 == 1 ? static_cast<std::int32_t>(seq % 2) : -1,
                   static_cast<std::int64_t>(seq * 10));
}

/// A FakeJob filled with the standard rank.
inline std::unique_ptr<FakeJob> standardJob(bool bigEndian = false,
                                            FakeLayout layout = FakeLayout::standard()) {
  auto job = std::make_unique<FakeJob>(bigEndian, std::move(layout));
  fillStandardRank(*job);
  return job;
}

}  // namespace mpidbg::mqs::test
