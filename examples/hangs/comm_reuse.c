/* Communicator handles reused. Every iteration duplicates MPI_COMM_WORLD,
 * calls MPI_Barrier twice and MPI_Allreduce once on the copy and frees it, so
 * MPICH hands the same handle value out again. The last copy, named "reused",
 * gets two barriers from every rank and a third from every rank but the last,
 * which instead waits in MPI_Recv for a message rank 0 never sends.
 * Expected verdict: ranks [0..n-2] are in call 3 to MPI_Barrier on "reused"
 * (its counters start with the copy; the earlier copies' calls under the same
 * handle do not count) and wait for rank n-1, which is in MPI_Recv from rank
 * 0: the cycle 0 -> n-1 -> 0.
 * Argument: iterations (default 50). Rank 0 prints "comm_reuse: the last copy
 * has the first copy's handle" when MPI did reuse it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, value = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = argc > 1 ? atoi(argv[1]) : 50;
  MPI_Comm first = MPI_COMM_NULL, copy;
  for (int i = 0; i < iterations; ++i) {
    MPI_Comm_dup(MPI_COMM_WORLD, &copy);
    if (i == 0) first = copy;
    MPI_Barrier(copy);
    MPI_Barrier(copy);
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, copy);
    MPI_Comm_free(&copy);
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &copy);
  MPI_Comm_set_name(copy, "reused");
  if (rank == 0 && iterations > 0 && copy == first)
    fprintf(stderr, "comm_reuse: the last copy has the first copy's handle\n");
  MPI_Barrier(copy);
  MPI_Barrier(copy);
  if (rank != size - 1)
    MPI_Barrier(copy);
  else
    MPI_Recv(&sum, 1, MPI_INT, 0, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Comm_free(&copy);
  MPI_Finalize();
  return 0;
}
