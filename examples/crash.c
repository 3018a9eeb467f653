/* A rank that crashes: after a barrier, rank 1 dereferences a null pointer
 * (SIGSEGV) while the others wait for it in MPI_Allreduce.
 * Usage: crash [--own-handler | --abort-at-init].
 * With --own-handler every rank installs its own SIGSEGV handler before
 * MPI_Init (as a program with a crash reporter does); it prints the si_code
 * and fault address it was given and exits 3. Under mpidbg the runtime's
 * hook reports the signal first, then hands it on: the program's handler
 * must still see the kernel's siginfo (SEGV_MAPERR = 1, address (nil)), not
 * a re-raised signal.
 * With --abort-at-init every rank calls abort() as soon as MPI_Init returns:
 * under mpidbg the ranks die while the front end's 'run' is in flight. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int *volatile nowhere = 0;

static void on_segv(int sig, siginfo_t *info, void *context) {
  (void)context;
  char line[160];
  const int n = snprintf(line, sizeof line, "crash: signal %d reached the program's handler with si_code %d, address %p\n",
                         sig, info->si_code, info->si_addr);
  if (n > 0) (void)!write(STDOUT_FILENO, line, (size_t)n);
  _exit(3);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--own-handler") == 0) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_segv;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, NULL);
  }
  MPI_Init(&argc, &argv);
  if (argc > 1 && strcmp(argv[1], "--abort-at-init") == 0) abort();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) *nowhere = 42; /* the crash */
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
