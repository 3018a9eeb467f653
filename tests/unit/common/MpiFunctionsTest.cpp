#include <catch2/catch.hpp>

#include "mpidbg/MpiFunctions.hpp"

using mpidbg::BlockingRole;
using mpidbg::blockingRoleOf;

// The ROLE column of the one MPI function table, read by the runtime's queues
// and by the mqs DLL: the large-count forms as their int forms (the DLL's own
// list missed them before).
TEST_CASE("blockingRoleOf: blocking point to point by side, from the function table", "[mpifunctions]") {
  for (const char* name : {"MPI_Send", "MPI_Bsend", "MPI_Rsend", "MPI_Send_c", "MPI_Bsend_c", "MPI_Rsend_c"})
    CHECK(blockingRoleOf(name) == BlockingRole::Send);
  for (const char* name : {"MPI_Ssend", "MPI_Ssend_c"}) CHECK(blockingRoleOf(name) == BlockingRole::SyncSend);
  for (const char* name : {"MPI_Recv", "MPI_Recv_c", "MPI_Probe", "MPI_Mprobe", "MPI_Sendrecv", "MPI_Sendrecv_c",
                           "MPI_Sendrecv_replace", "MPI_Sendrecv_replace_c"})
    CHECK(blockingRoleOf(name) == BlockingRole::Recv);
  for (const char* name : {"MPI_Isend", "MPI_Irecv", "MPI_Wait", "MPI_Barrier", "MPI_Mrecv", "MPI_Send_init",
                           "MPI_Isendrecv_c", "MPI_Nonexistent", ""})
    CHECK(blockingRoleOf(name) == BlockingRole::No);
  static_assert(blockingRoleOf("MPI_Ssend") == BlockingRole::SyncSend, "usable at compile time");
}
