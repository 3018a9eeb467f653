/* Collective mismatch: ranks 0..n-2 broadcast from rank 0 while the last
 * rank reduces to itself; the broadcasters then wait in a barrier.
 * Expected verdict: collective #1 on MPI_COMM_WORLD differs (MPI_Bcast(root=0)
 * vs MPI_Reduce(root=n-1)); ranks [0..n-2] wait in the barrier for rank n-1,
 * which waits in the reduce for them. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, value = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank < size - 1)
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  else
    MPI_Reduce(&value, &sum, 1, MPI_INT, MPI_SUM, size - 1, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
