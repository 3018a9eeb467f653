/* A persistent collective started by some ranks only (MPI-4): every rank
 * makes an MPI_Allreduce_init request; ranks 0..n-2 start it and wait for
 * it, the last rank never starts it and waits in MPI_Barrier. Expected
 * verdict (an MPI 4 library such as MPICH 4): collective #1 on
 * MPI_COMM_WORLD differs (MPI_Allreduce_init started by ranks [0..n-2],
 * MPI_Barrier on the last rank); the starters wait for the last rank, which
 * waits for them. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, value = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Request request;
  MPI_Allreduce_init(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &request);
  if (rank < size - 1) {
    MPI_Start(&request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Request_free(&request);
  MPI_Finalize();
  return 0;
}
