/* A receive from itself through a reversed communicator: MPI_Comm_split with
 * key = size - rank numbers the ranks backwards, and rank 0 receives from
 * "rank size-1" of it, which is rank 0 itself; the other ranks finish.
 * Expected verdict: a dead end, "rank 0 waits in MPI_Recv(source=3, tag=0,
 * comm=reversed) for itself (rank 3 of reversed is world rank 0), with no
 * send to itself pending"; ranks [1-3] in MPI_Finalize are bystanders. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, token = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
  MPI_Comm_set_name(reversed, "reversed");
  if (rank == 0) MPI_Recv(&token, 1, MPI_INT, size - 1, 0, reversed, MPI_STATUS_IGNORE);
  MPI_Comm_free(&reversed);
  MPI_Finalize();
  return 0;
}
