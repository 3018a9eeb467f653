/* The correct counterpart of coll_deadlock.c: the rank picks the buffer,
 * every rank calls the same collectives. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank = 0, size = 1, value = 0, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0)
    MPI_Reduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  else
    MPI_Reduce(&rank, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) value = size;
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  printf("coll_deadlock_ok: rank %d value %d\n", rank, value);
  MPI_Finalize();
  return 0;
}
