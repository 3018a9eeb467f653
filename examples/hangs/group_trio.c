/* A hang on a communicator made by MPI_Comm_create_group, which only the
 * group's members call. Four ranks; rank 1 first duplicates MPI_COMM_SELF for
 * itself, so that its handles for later communicators differ from the other
 * ranks'. Ranks 1-3 make "trio" from the group of world ranks 1, 2 and 3.
 * Ranks 1 and 2 sum over trio with MPI_Allreduce; rank 3 waits in MPI_Recv
 * for a message rank 0 never sends; rank 0 waits in MPI_Barrier on
 * MPI_COMM_WORLD.
 * Expected verdict: ranks [1-2] are in call 1 to MPI_Allreduce on trio and
 * wait for rank 3, which waits in MPI_Recv for rank 0, which waits in the
 * barrier for ranks 1-3: the cycle 0 -> 3 -> 0. trio is one communicator
 * across its members although rank 1 holds another handle for it. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, value = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm mine = MPI_COMM_NULL, trio = MPI_COMM_NULL;
  if (rank == 1) MPI_Comm_dup(MPI_COMM_SELF, &mine);
  if (rank != 0) {
    MPI_Group world, members;
    const int ranks[3] = {1, 2, 3};
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 3, ranks, &members);
    MPI_Comm_create_group(MPI_COMM_WORLD, members, 5, &trio);
    MPI_Comm_set_name(trio, "trio");
    MPI_Group_free(&members);
    MPI_Group_free(&world);
  }
  if (rank == 1 || rank == 2)
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, trio);
  else if (rank == 3)
    MPI_Recv(&sum, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  if (trio != MPI_COMM_NULL) MPI_Comm_free(&trio);
  if (mine != MPI_COMM_NULL) MPI_Comm_free(&mine);
  MPI_Finalize();
  return 0;
}
