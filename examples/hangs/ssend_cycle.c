/* Send-send cycle with synchronous sends: ranks 0 and 1 both MPI_Ssend to
 * each other before receiving; a synchronous send completes only once the
 * receive is posted, so neither returns.
 * Expected verdict: cycle 0 -> 1 -> 0 in MPI_Ssend. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, out = 1, in = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0 || rank == 1) {
    const int other = 1 - rank;
    MPI_Ssend(&out, 1, MPI_INT, other, 3, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_INT, other, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
