/* mpidbg check (tests/integration/cases/check.sh): one site per OpenMP
 * construct the front end models; the expected word is in each comment.
 * Not a program to run. */
#include <mpi.h>

static void sync_team(void) {
#pragma omp barrier
}

static void bcast(MPI_Comm comm) { MPI_Bcast(0, 0, MPI_INT, 0, comm); } /* word of the caller */

int main(int argc, char **argv) {
  int provided = 0, rank = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm a = MPI_COMM_WORLD, b = MPI_COMM_SELF;
#pragma omp parallel
  {
#pragma omp sections
    {
      MPI_Barrier(a); /* PS: the first section needs no pragma */
#pragma omp section
      MPI_Barrier(b); /* PS, concurrent with the one above */
    }
#pragma omp task
    MPI_Send(0, 0, MPI_INT, 0, 0, a); /* PBS */
#pragma omp masked filter(1)
    MPI_Send(0, 0, MPI_INT, 0, 1, a); /* PBS */
#pragma omp single nowait
    bcast(a); /* PBS, concurrent with the task and masked filter(1) */
    sync_team();
#pragma omp master
    MPI_Send(0, 0, MPI_INT, 0, 2, a); /* PBBM: fine */
#pragma omp parallel num_threads(1)
    MPI_Send(0, 0, MPI_INT, 0, 3, a); /* PBB: every thread of the outer team */
  }
#pragma omp parallel master
  MPI_Send(0, 0, MPI_INT, 0, 4, a); /* PM: fine */
#pragma omp parallel sections
  {
#pragma omp section
    {
#pragma omp parallel
#pragma omp single
      MPI_Send(0, 0, MPI_INT, 0, 5, a); /* PSPS */
    }
  }
  for (int i = 0; i < rank; ++i)
    MPI_Barrier(a); /* rank-dependent loop */
  MPI_Finalize();
  return 0;
}
