/* A matched-probe cycle: ranks 0 and 1 each wait in MPI_Mprobe for a message
 * from the other before sending their own, so neither message is ever sent;
 * ranks 2 and 3 wait in MPI_Barrier. Expected verdict (4 ranks): rank 0
 * blocked in MPI_Mprobe(source=1, tag=7, ...), rank 1 in MPI_Mprobe(source=0,
 * tag=7, ...), "Deadlock: cycle 0 -> 1 -> 0". */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, value = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank < 2) {
    const int other = 1 - rank;
    MPI_Message message;
    MPI_Mprobe(other, 7, MPI_COMM_WORLD, &message, MPI_STATUS_IGNORE);
    MPI_Mrecv(&value, 1, MPI_INT, &message, MPI_STATUS_IGNORE);
    MPI_Send(&rank, 1, MPI_INT, other, 7, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
