/* BenchError p2p_multiple (mpidbg check, issue 27): asks MPI_THREAD_SERIALIZED,
 * but every thread of a worksharing loop sends and receives: needs
 * MPI_THREAD_MULTIPLE. One run here (MPICH 4.0.2, 2 ranks of 2 threads) aborted
 * in MPI. Counterpart: p2p_multiple_ok.c. Usage: mpiexec -n 2 p2p_multiple */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int provided = 0, rank = 0, size = 1, got[4] = {0, 0, 0, 0};
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int peer = (rank + 1) % size;
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < 4; ++i)
    MPI_Sendrecv(&i, 1, MPI_INT, peer, i, &got[i], 1, MPI_INT, MPI_ANY_SOURCE, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 0) printf("p2p_multiple: %d %d %d %d\n", got[0], got[1], got[2], got[3]);
  MPI_Finalize();
  return 0;
}
