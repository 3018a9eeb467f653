/* BenchError coll_funneled (mpidbg check, issue 27): the program asks
 * MPI_THREAD_FUNNELED, but any thread of the team may run the `single`
 * region that calls MPI_Reduce, reached through a function call: needs
 * MPI_THREAD_SERIALIZED. Counterpart: coll_funneled_ok.c. */
#include <mpi.h>
#include <stdio.h>

static int total(int mine) {
  int sum = 0;
  MPI_Reduce(&mine, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  return sum;
}

int main(int argc, char **argv) {
  int provided = 0, rank = 0, sum = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    sum = total(rank);
  }
  if (rank == 0) printf("coll_funneled: %d\n", sum);
  MPI_Finalize();
  return 0;
}
