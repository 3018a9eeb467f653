/* The correct counterpart of coll_serialized.c: MPI_THREAD_SERIALIZED, the
 * two `single` regions keep their implicit barrier, the sections run one
 * collective each in a critical region, one thread at a time. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int provided = 0, rank = 0, a = 0, b = 0, c = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm other;
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    MPI_Allreduce(&rank, &a, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
#pragma omp single
    MPI_Allreduce(&rank, &b, 1, MPI_INT, MPI_SUM, other);
#pragma omp critical
    {
      int one = 1, got = 0;
      MPI_Allreduce(&one, &got, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      c += got;
    }
  }
  if (rank == 0) printf("coll_serialized_ok: %d %d %d\n", a, b, c);
  MPI_Comm_free(&other);
  MPI_Finalize();
  return 0;
}
