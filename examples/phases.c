/* A phased solver for execution control (issue 4): each step starts at the
 * entry point "solver::step", broadcasts 16 ints from rank 0, passes a value
 * around a ring (rank r sends to r+1, so `break MPI_Send if dest == 3` hits
 * only rank 2 of 4), and sums it with MPI_Allreduce on MPI_COMM_WORLD. At the
 * end a barrier on a duplicate of MPI_COMM_WORLD named "solver" (for
 * `comm == solver` conditions); rank 0 prints the checksum. Exits 0 when the
 * checksum is right.
 * Usage: phases [STEPS (default 5)] [MILLISECONDS of sleep per step (default 0)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mpidbg/mpidbg.h"

static void pause_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (ms > 0 && nanosleep(&ts, &ts) != 0) {
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int steps = argc > 1 ? atoi(argv[1]) : 5;
  const long delay = argc > 2 ? atol(argv[2]) : 0;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;

  MPIDBG_ENTRY("solver::setup");
  MPI_Comm solver;
  MPI_Comm_dup(MPI_COMM_WORLD, &solver);
  MPI_Comm_set_name(solver, "solver");

  long checksum = 0;
  for (int step = 0; step < steps; ++step) {
    MPIDBG_ENTRY("solver::step");
    int params[16];
    for (int i = 0; i < 16; ++i) params[i] = rank == 0 ? step + i : -1;
    MPI_Bcast(params, 16, MPI_INT, 0, MPI_COMM_WORLD);

    long mine = params[rank % 16] + rank, from_prev = 0;
    if (rank % 2 == 0) {
      MPI_Send(&mine, 1, MPI_LONG, next, step, MPI_COMM_WORLD);
      MPI_Recv(&from_prev, 1, MPI_LONG, prev, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&from_prev, 1, MPI_LONG, prev, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&mine, 1, MPI_LONG, next, step, MPI_COMM_WORLD);
    }
    long total = 0;
    MPI_Allreduce(&from_prev, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    checksum += total;
    pause_ms(delay);
  }
  MPI_Barrier(solver);
  MPI_Comm_free(&solver);

  /* Every rank received prev's (step + prev % 16) + prev: sum over ranks and steps. */
  long expected = 0;
  for (int step = 0; step < steps; ++step)
    for (int r = 0; r < size; ++r) expected += step + r % 16 + r;
  if (rank == 0)
    printf("phases: checksum %ld after %d steps (expected %ld): %s\n", checksum, steps, expected,
           checksum == expected ? "ok" : "WRONG");
  MPI_Finalize();
  return checksum == expected ? 0 : 1;
}
