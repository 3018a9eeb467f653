/* fence_skip with MPI-4's large-count one-sided calls: the window is made
 * with MPI_Win_allocate_c and every rank puts its rank number into the
 * next rank's window with MPI_Put_c between two fences; ranks 0..size-2
 * then close the epoch with MPI_Win_fence while the last rank goes on to
 * MPI_Barrier on MPI_COMM_WORLD. Expected verdict (4 ranks, an MPI 4
 * library such as MPICH 4): ranks [0-2] "in call 2 to MPI_Win_fence on win
 * 0x...", rank 3 in MPI_Barrier, "Deadlock: cycle 0 -> 3 -> 0": the fence
 * waits for rank 3, the barrier for ranks 0-2. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, *slot;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win win;
  MPI_Win_allocate_c(sizeof *slot, sizeof *slot, MPI_INFO_NULL, MPI_COMM_WORLD, &slot, &win);
  MPI_Win_fence(0, win);
  MPI_Put_c(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
  if (rank < size - 1)
    MPI_Win_fence(0, win);
  else
    MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
