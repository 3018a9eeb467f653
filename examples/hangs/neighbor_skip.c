/* A neighbourhood collective one rank does not reach: on a periodic ring
 * (MPI_Cart_create), ranks 0..n-2 exchange with their two neighbours in
 * MPI_Neighbor_allgather while the last rank first waits in MPI_Recv for a
 * message rank 0 never sends. Expected verdict: the last rank has issued no
 * collective on the ring; its neighbours 0 and n-2 wait for it in the
 * allgather (a collective over the ring in MPI's sense), and it waits for
 * rank 0: "Deadlock: cycle 0 -> n-1 -> 0". */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int periodic = 1;
  MPI_Comm ring;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periodic, 0, &ring);
  int got[2] = {0, 0}, value = 0;
  if (rank == size - 1) MPI_Recv(&value, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, ring);
  MPI_Barrier(ring);
  MPI_Comm_free(&ring);
  MPI_Finalize();
  return 0;
}
