/* Compliant with MPI_THREAD_FUNNELED (issue 12): two OpenMP threads
 * compute, only the master thread calls MPI, between barriers. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double part[2] = {0, 0}, total = 0;
#pragma omp parallel num_threads(2)
  {
    const int t = omp_get_thread_num();
    for (int i = 0; i < 1000; ++i) part[t] += i * (t + 1);
#pragma omp barrier
#pragma omp master
    {
      const double mine = part[0] + part[1];
      MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
#pragma omp barrier
  }
  if (rank == 0) printf("compliant: %.0f\n", total);
  MPI_Finalize();
  return 0;
}
