/* A correct program: a token travels around the ring of ranks three times,
 * each rank adding its rank number; then every rank checks the sum with an
 * MPI_Allreduce. Exits 0 when the sums agree. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int laps = 3;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;

  long token = 0;
  for (int lap = 0; lap < laps; ++lap) {
    if (rank == 0) {
      token += rank;
      MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      token += rank;
      MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
    }
  }
  MPI_Bcast(&token, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  long expected = (long)laps * size * (size - 1) / 2, agreed = 0;
  long ok = token == expected;
  MPI_Allreduce(&ok, &agreed, 1, MPI_LONG, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) printf("ring: token %ld after %d laps (expected %ld): %s\n", token, laps, expected,
                        agreed ? "ok" : "WRONG");
  MPI_Finalize();
  return agreed ? 0 : 1;
}
