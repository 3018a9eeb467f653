/* A rank that crashes: after a barrier, rank 1 dereferences a null pointer
 * (SIGSEGV) while the others wait for it in MPI_Allreduce. */
#include <mpi.h>
#include <stdio.h>

static int *volatile nowhere = 0;

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) *nowhere = 42; /* the crash */
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
