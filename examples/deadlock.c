/* A job that hangs: ranks 0, 1 and 3 enter MPI_Allreduce on MPI_COMM_WORLD
 * while rank 2 waits in MPI_Recv for a message from rank 0 (tag 99) that is
 * never sent. Run it with 4 ranks:
 *   mpidbg -- mpiexec.mpich -n 4 ./deadlock
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  int local = rank + 1, total = 0;
  if (rank == 2) {
    int token = 0;
    /* The bug: rank 0 never sends this message. */
    MPI_Recv(&token, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("sum of 1..%d = %d\n", size, total);

  MPI_Finalize();
  return 0;
}
