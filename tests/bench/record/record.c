/* The wildcard-heavy exchange timed by tests/bench/record/run (issue 11):
 * rank 1 sends ITERS messages with varying tags to rank 0, which receives
 * each with MPI_ANY_SOURCE/MPI_ANY_TAG (even iterations by MPI_Recv, odd ones
 * by MPI_Irecv + MPI_Waitany) and answers it, so every iteration is one
 * round trip with two matching decisions on rank 0. Prints
 *   wildcard ITERS ns/roundtrip NS
 * from rank 0.
 * Usage: mpiexec -n 2 mpidbg_record_bench ITERS
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long iters = argc > 1 ? atol(argv[1]) : 100000;
  if (size != 2 || iters <= 0) {
    if (rank == 0) fprintf(stderr, "usage: mpiexec -n 2 %s ITERS\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  int value = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (long i = 0; i < iters; ++i) {
    const int tag = (int)(i % 5);
    if (rank == 1) {
      MPI_Send(&value, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
      MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      continue;
    }
    MPI_Status status;
    if (i % 2 == 0) {
      MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    } else {
      MPI_Request request;
      int index;
      MPI_Irecv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &request);
      MPI_Waitany(1, &request, &index, &status);
    }
    ++value;
    MPI_Send(&value, 1, MPI_INT, status.MPI_SOURCE, 0, MPI_COMM_WORLD);
  }
  const double seconds = MPI_Wtime() - start;
  if (rank == 0) printf("wildcard %ld ns/roundtrip %.1f\n", iters, seconds * 1e9 / (double)iters);
  MPI_Finalize();
  return 0;
}
