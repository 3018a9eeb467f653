/* coll_mismatch with MPI-4's large-count collectives: ranks 0..n-2
 * broadcast from rank 0 with MPI_Bcast_c and then reduce with
 * MPI_Allreduce_c, while the last rank starts MPI_Ireduce_c to itself and
 * waits for it. Expected verdict (an MPI 4 library such as MPICH 4):
 * collective #1 on MPI_COMM_WORLD differs (MPI_Bcast_c(root=0) vs
 * MPI_Ireduce_c(root=n-1)); the broadcasters wait for the last rank, which
 * waits for them. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, value = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank < size - 1) {
    MPI_Bcast_c(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allreduce_c(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  } else {
    MPI_Request request;
    MPI_Ireduce_c(&value, &sum, 1, MPI_INT, MPI_SUM, size - 1, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
