/* A message sent with the wrong tag (issue 23 item 6): rank 0 sends rank 1
 * one int with tag 0 (small enough to complete eagerly), rank 2 sends it one
 * with tag 7 by MPI_Isend and MPI_Wait, rank 3 one with tag 0 that rank 1
 * receives. Rank 1 then waits in MPI_Recv(source=MPI_ANY_SOURCE, tag=1),
 * which none of them sends; they all go to MPI_Finalize.
 * Expected verdict: a dead end (every rank that could send it is done with
 * MPI), and two messages not received: "rank 0's MPI_Send(dest=1, tag=0,
 * comm=MPI_COMM_WORLD) sent 1 message that rank 1 has not received; rank 1
 * waits in MPI_Recv(source=MPI_ANY_SOURCE, tag=1, comm=MPI_COMM_WORLD): a
 * tag mismatch?", and the same for rank 2's MPI_Isend with tag 7. Rank 3's
 * message was received: not named. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, value = 42;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0 || rank == 3) {
    MPI_Send(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else if (rank == 2) {
    MPI_Request request;
    MPI_Isend(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    MPI_Recv(&value, 1, MPI_INT, 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
