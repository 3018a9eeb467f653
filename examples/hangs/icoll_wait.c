/* Nonblocking collectives apart from blocking ones: rank 0 issues two
 * MPI_Iallreduce on MPI_COMM_WORLD (collectives #1 and #2), completes the
 * first and waits on the second; the other ranks issue only the first,
 * complete it, then wait in MPI_Recv for a message rank 0 sends only after
 * its wait.
 * Expected: `collectives` says "Rank 0 has not completed MPI_Iallreduce
 * (collective #2 on the communicator)", not that rank 0 is in a call to
 * MPI_Allreduce; the verdict: rank 0 waits in MPI_Wait on collective #2 for
 * ranks [1-3], they wait in MPI_Recv for rank 0: cycle 0 -> 1 -> 0. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, in = 1, out[2] = {0, 0}, token = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Request first, second;
  MPI_Iallreduce(&in, &out[0], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &first);
  if (rank == 0) {
    MPI_Iallreduce(&in, &out[1], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &second);
    MPI_Wait(&first, MPI_STATUS_IGNORE);
    MPI_Wait(&second, MPI_STATUS_IGNORE);
    for (int r = 1; r < size; ++r) MPI_Send(&token, 1, MPI_INT, r, 9, MPI_COMM_WORLD);
  } else {
    MPI_Wait(&first, MPI_STATUS_IGNORE);
    MPI_Recv(&token, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
