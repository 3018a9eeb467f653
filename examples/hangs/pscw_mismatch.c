/* Generalized active target (PSCW) with one side missing. By default rank
 * 0 opens an access epoch to rank 1 (MPI_Win_start), puts and closes it
 * (MPI_Win_complete), but rank 1 never opens the matching exposure epoch
 * (MPI_Win_post) and goes to MPI_Barrier with the others. Expected verdict
 * (4 ranks): ranks 1-3 in MPI_Barrier waiting for rank 0; rank 0 in
 * MPI_Win_start or MPI_Win_complete (where the MPI waits for the post)
 * waiting for rank 1, which "has posted 0 exposure epochs to rank 0":
 * "Deadlock: cycle 0 -> 1 -> 0".
 * With the argument "wait" the other way round: rank 1 posts an exposure
 * epoch to rank 0 and waits for it to end (MPI_Win_wait), but rank 0 never
 * starts one: rank 1 waits for rank 0, which "has completed 0 access epochs
 * to rank 1", and the others wait in the barrier for rank 1. */
#include <mpi.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int waitSide = argc > 1 && strcmp(argv[1], "wait") == 0;
  int rank, slot = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win win;
  MPI_Win_create(&slot, sizeof slot, sizeof slot, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Group world, peer;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  if (!waitSide && rank == 0) {
    const int one = 1;
    MPI_Group_incl(world, 1, &one, &peer);
    MPI_Win_start(peer, 0, win);
    MPI_Put(&rank, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
  } else if (waitSide && rank == 1) {
    const int zero = 0;
    MPI_Group_incl(world, 1, &zero, &peer);
    MPI_Win_post(peer, 0, win);
    MPI_Win_wait(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
