/* A wildcard receive nobody will answer: rank 0 waits in
 * MPI_Recv(source=MPI_ANY_SOURCE, tag=5) while every other rank goes
 * straight to MPI_Finalize.
 * Expected verdict: a dead end, "rank 0 waits in MPI_Recv(source=MPI_ANY_SOURCE,
 * tag=5, comm=MPI_COMM_WORLD), but every rank that could send it is done with
 * MPI: ranks [1-3] in MPI_Finalize (a bystander): no message will come". */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, token = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
