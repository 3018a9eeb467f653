/* A rank stuck computing: every rank but the last enters MPI_Barrier; the
 * last one loops in compute() and never reaches it (until killed).
 * Expected verdict: ranks [0..n-2] are in call 1 to MPI_Barrier and wait for
 * rank n-1, which is computing (not in MPI) in compute(). */
#include <mpi.h>

static volatile int keep_going = 1;

static double compute(void) {
  double x = 0.0;
  while (keep_going) x += 1e-9;
  return x;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == size - 1) compute();
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
