/* BenchError coll_deadlock (mpidbg check, issue 27): a collective not every
 * rank calls. The condition's value comes from MPI_Comm_rank through an
 * assignment and a function's return value; the odd ranks wait in
 * MPI_Barrier forever. Counterpart: coll_deadlock_ok.c. */
#include <mpi.h>
#include <stdio.h>

static int my_rank(void) {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = my_rank();
  int odd = rank % 2;
  if (odd)
    MPI_Barrier(MPI_COMM_WORLD);
  printf("coll_deadlock: rank %d done\n", rank);
  MPI_Finalize();
  return 0;
}
