/* Generalized active target with a missing post: rank 0 opens an access
 * epoch to rank 1 (MPI_Win_start), puts and closes it (MPI_Win_complete),
 * but rank 1 never opens the matching exposure epoch (MPI_Win_post) and
 * goes to MPI_Barrier with the others. Expected verdict (4 ranks): ranks
 * 1-3 in MPI_Barrier waiting for rank 0; rank 0 in MPI_Win_start or
 * MPI_Win_complete (where the MPI waits for the post), "Not followed":
 * mpidbg does not follow PSCW epochs yet, so it names the wait and claims
 * no cycle. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, slot = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win win;
  MPI_Win_create(&slot, sizeof slot, sizeof slot, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  if (rank == 0) {
    MPI_Group world, target;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    const int one = 1;
    MPI_Group_incl(world, 1, &one, &target);
    MPI_Win_start(target, 0, win);
    MPI_Put(&rank, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
