/* Ranks compute outside MPI between two barriers, for `freeze --now`: the
 * loop makes no MPI call and reaches no entry point, so only the real-time
 * signal can stop it. Bounded: it stops after SECONDS of wall time (default
 * 20) or the iteration limit, whichever comes first. Rank 0 prints how long
 * the loop ran. Exits 0.
 * Usage: spin [SECONDS (default 20)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const double seconds = argc > 1 ? atof(argv[1]) : 20.0;

  MPI_Barrier(MPI_COMM_WORLD);
  const double start = now_s();
  volatile double x = 1.0;
  unsigned long long iterations = 0;
  const unsigned long long limit = 100000000000ull;
  while (iterations < limit) {
    for (int i = 0; i < 100000; ++i) x = x * 1.0000001 + 1e-9;
    iterations += 100000;
    if (now_s() - start >= seconds) break;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("spin: computed %.1f s (%llu iterations), x=%.3f\n", now_s() - start, iterations, (double)x);
  MPI_Finalize();
  return 0;
}
