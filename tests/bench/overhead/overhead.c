/* Overhead benchmark kernels (issue 4, tests/bench/overhead/run). Each mode
 * times its loop with MPI_Wtime after a warm-up and a barrier; rank 0 prints
 * one line "MODE BYTES ITERATIONS NS_PER_OP".
 *   pingpong BYTES ITERS  2 ranks: rank 0 sends, rank 1 echoes; ns per round trip
 *   allreduce ITERS       any ranks: MPI_Allreduce of one int on MPI_COMM_WORLD
 *   selfbarrier ITERS     MPI_Barrier on MPI_COMM_SELF (for callgrind: one
 *                         intercepted call with almost nothing inside)
 *   selfsend ITERS        MPI_Send of 0 bytes to MPI_PROC_NULL on MPI_COMM_SELF
 *                         (for callgrind: one intercepted point-to-point call
 *                         that returns at once) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double pingpong(int rank, int bytes, long iters) {
  char *buf = calloc(bytes > 0 ? (size_t)bytes : 1, 1);
  const int warmup = 1000;
  double start = 0;
  for (long i = -warmup; i < iters; ++i) {
    if (i == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      start = MPI_Wtime();
    }
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
  }
  const double elapsed = MPI_Wtime() - start;
  free(buf);
  return elapsed;
}

static double allreduce(long iters) {
  int in = 1, out = 0;
  double start = 0;
  for (long i = -1000; i < iters; ++i) {
    if (i == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      start = MPI_Wtime();
    }
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
  return MPI_Wtime() - start;
}

static double selfsend(long iters) {
  const double start = MPI_Wtime();
  for (long i = 0; i < iters; ++i) MPI_Send(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF);
  return MPI_Wtime() - start;
}

/* A real message to itself per MPI_Bsend + MPI_Recv pair on MPI_COMM_SELF,
 * with the tag going round `tags` values (2: every call another key than
 * the last, as in a halo exchange with two neighbours)
 * (MPI_Bsend, on the same fast path as MPI_Send, completes into the attached
 * buffer; MPICH's MPI_Send to itself waits for the receive): both calls
 * count it in the runtime's message ledger. ITERS pairs, 2 * ITERS
 * intercepted calls. */
static double selfpair(long iters, int tags) {
  int value = 0, size = 0;
  MPI_Pack_size(1, MPI_INT, MPI_COMM_SELF, &size);
  size += MPI_BSEND_OVERHEAD;
  void *buffer = malloc((size_t)size);
  MPI_Buffer_attach(buffer, size);
  const double start = MPI_Wtime();
  for (long i = 0; i < iters; ++i) {
    const int tag = (int)(i % tags);
    MPI_Bsend(&value, 1, MPI_INT, 0, tag, MPI_COMM_SELF);
    MPI_Recv(&value, 1, MPI_INT, 0, tag, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  }
  const double elapsed = MPI_Wtime() - start;
  MPI_Buffer_detach(&buffer, &size);
  free(buffer);
  return elapsed;
}

static double selfbarrier(long iters) {
  const double start = MPI_Wtime();
  for (long i = 0; i < iters; ++i) MPI_Barrier(MPI_COMM_SELF);
  return MPI_Wtime() - start;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *mode = argc > 1 ? argv[1] : "";
  int bytes = 0;
  long iters = 0;
  double elapsed = -1;
  if (strcmp(mode, "pingpong") == 0 && argc == 4) {
    bytes = atoi(argv[2]);
    iters = atol(argv[3]);
    elapsed = pingpong(rank, bytes, iters);
  } else if (strcmp(mode, "allreduce") == 0 && argc == 3) {
    bytes = (int)sizeof(int);
    iters = atol(argv[2]);
    elapsed = allreduce(iters);
  } else if (strcmp(mode, "selfsend") == 0 && argc == 3) {
    iters = atol(argv[2]);
    elapsed = selfsend(iters);
  } else if (strcmp(mode, "selfpair") == 0 && argc == 3) {
    iters = atol(argv[2]);
    elapsed = selfpair(iters, 1);
  } else if (strcmp(mode, "selfpair2") == 0 && argc == 3) {
    iters = atol(argv[2]);
    elapsed = selfpair(iters, 2);
  } else if (strcmp(mode, "selfbarrier") == 0 && argc == 3) {
    iters = atol(argv[2]);
    elapsed = selfbarrier(iters);
  } else {
    if (rank == 0) fprintf(stderr, "usage: overhead pingpong BYTES ITERS | allreduce ITERS | selfbarrier ITERS | selfsend ITERS | selfpair ITERS | selfpair2 ITERS\n");
    MPI_Finalize();
    return 2;
  }
  if (rank == 0) printf("%s %d %ld %.1f\n", mode, bytes, iters, iters > 0 ? elapsed * 1e9 / (double)iters : 0.0);
  MPI_Finalize();
  return 0;
}
