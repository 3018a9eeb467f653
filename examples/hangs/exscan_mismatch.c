/* Collectives outside the 14 classes of the message-queue interface:
 * ranks 0-2 call MPI_Exscan while the last rank calls MPI_Barrier.
 * Expected verdict: ranks [0-2] "in call 1 to MPI_Exscan (counted with
 * MPI_Scan) on MPI_COMM_WORLD", the last rank "in call 1 to MPI_Barrier",
 * and "MPI_COMM_WORLD: collective #1 differs: ranks [0-2] called
 * MPI_Exscan, rank 3 called MPI_Barrier" (with 4 ranks). */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, value, prefix = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  value = rank + 1;
  if (rank < size - 1)
    MPI_Exscan(&value, &prefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  else
    MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
