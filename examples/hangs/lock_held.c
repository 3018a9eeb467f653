/* A passive-target lock held across a barrier: rank 0 locks rank 2's window
 * exclusively, puts and flushes, tells rank 1 it holds the lock, and goes on
 * to MPI_Barrier without unlocking. Rank 1 then locks the same window
 * exclusively: it waits for the lock rank 0 never gives back (in
 * MPI_Win_lock under MPICH's ch4; an MPI that takes locks lazily waits in
 * MPI_Win_unlock), and the others wait in the barrier for rank 1. Expected
 * verdict (4 ranks): ranks 0, 2 and 3 in MPI_Barrier, waiting for rank 1;
 * rank 1 in MPI_Win_lock(target=2, win ...) waiting for rank 0, which holds
 * an exclusive lock on rank 2: "Deadlock: cycle 0 -> 1 -> 0". With the
 * argument "shared", rank 0's lock is a shared one: rank 1's exclusive
 * request still conflicts with it, and the verdict says so. With "all",
 * rank 1 asks for MPI_Win_lock_all instead, a shared lock on every rank
 * that rank 0's exclusive one conflicts with: the same cycle. With "rput",
 * rank 1 first puts to rank 3 with MPI_Rput and waits for it (MPI_Wait on
 * its request), then goes on as without an argument. */
#include <mpi.h>
#include <stddef.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* mode = argc > 1 ? argv[1] : "";
  const int held = strcmp(mode, "shared") == 0 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE;
  int rank, slot = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win win;
  MPI_Win_create(&slot, sizeof slot, sizeof slot, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  if (rank == 0) {
    MPI_Win_lock(held, 2, 0, win);
    MPI_Put(&rank, 1, MPI_INT, 2, 0, 1, MPI_INT, win);
    MPI_Win_flush(2, win);
    MPI_Send(NULL, 0, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Recv(NULL, 0, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (strcmp(mode, "rput") == 0) {
      MPI_Request put;
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 3, 0, win);
      MPI_Rput(&rank, 1, MPI_INT, 3, 0, 1, MPI_INT, win, &put);
      MPI_Wait(&put, MPI_STATUS_IGNORE);
      MPI_Win_unlock(3, win);
    }
    if (strcmp(mode, "all") == 0) {
      MPI_Win_lock_all(0, win);
      MPI_Put(&rank, 1, MPI_INT, 2, 0, 1, MPI_INT, win);
      MPI_Win_unlock_all(win);
    } else {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 2, 0, win);
      MPI_Put(&rank, 1, MPI_INT, 2, 0, 1, MPI_INT, win);
      MPI_Win_unlock(2, win);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) MPI_Win_unlock(2, win);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
