/* recv_cycle with MPI-4's large-count calls: ranks 0 and 1 each wait in
 * MPI_Recv_c for the other before sending with MPI_Send_c; ranks 2 and 3
 * each wait in MPI_Wait on an MPI_Irecv_c from the other before sending
 * with MPI_Isend_c. Expected verdict (4 ranks, an MPI 4 library such as
 * MPICH 4): rank 0 blocked in MPI_Recv_c(source=1, tag=3, ...), rank 1 in
 * MPI_Recv_c(source=0, tag=3, ...), "Deadlock: cycle 0 -> 1 -> 0"; ranks 2
 * and 3 in MPI_Wait: MPI_Irecv_c(source=3 / 2, tag=4, count=1),
 * "Deadlock: cycle 2 -> 3 -> 2". */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, value = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank < 2) {
    const int other = 1 - rank;
    MPI_Recv_c(&value, 1, MPI_INT, other, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send_c(&rank, 1, MPI_INT, other, 3, MPI_COMM_WORLD);
  } else {
    const int other = 5 - rank;
    MPI_Request request;
    MPI_Irecv_c(&value, 1, MPI_INT, other, 4, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Isend_c(&rank, 1, MPI_INT, other, 4, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
