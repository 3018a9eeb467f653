/* A wildcard-receive race (issue 11): rank 0 sums one double from every
 * other rank per round, in the order the messages arrive. Rank 1 sends
 * 1e16, rank 2 sends -1e16, every other rank sends 1.0. In double
 * precision 1e16 + 1.0 == 1e16, so a round sums to the exact ranks-3 only
 * when the 1.0s arrive after both big values cancelled; they usually do,
 * because those ranks wait DELAY_US microseconds before sending, but not
 * always. Rank 0 prints a checksum of all rounds and exits 1 when it
 * differs from the exact one.
 *
 * Each round collects in one of four ways, so that a record holds most
 * kinds of matching decision: a blocking MPI_Recv(MPI_ANY_SOURCE);
 * MPI_Irecv(MPI_ANY_SOURCE) for every sender completed by MPI_Waitany;
 * MPI_Iprobe(MPI_ANY_SOURCE) polling followed by MPI_Recv of the probed
 * sender; and wildcard MPI_Irecv polled with MPI_Testsome; with MPI_Test on
 * a round trailer.
 *
 * Usage: mpiexec.mpich -n 4 race [ROUNDS [DELAY_US]]   (defaults 6 and 3000)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static double value_of(int rank) { return rank == 1 ? 1e16 : rank == 2 ? -1e16 : 1.0; }

/* Round `round` by blocking wildcard receives. */
static double collect_recv(int senders, int round) {
  double sum = 0.0;
  for (int i = 0; i < senders; ++i) {
    double v;
    MPI_Recv(&v, 1, MPI_DOUBLE, MPI_ANY_SOURCE, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sum += v;
  }
  return sum;
}

/* Round `round` by wildcard MPI_Irecv, completed in any order. */
static double collect_waitany(int senders, int round) {
  double* values = malloc(sizeof(double) * (size_t)senders);
  MPI_Request* requests = malloc(sizeof(MPI_Request) * (size_t)senders);
  for (int i = 0; i < senders; ++i)
    MPI_Irecv(&values[i], 1, MPI_DOUBLE, MPI_ANY_SOURCE, round, MPI_COMM_WORLD, &requests[i]);
  double sum = 0.0;
  for (int i = 0; i < senders; ++i) {
    int index;
    MPI_Waitany(senders, requests, &index, MPI_STATUS_IGNORE);
    sum += values[index];
  }
  free(requests);
  free(values);
  return sum;
}

/* Round `round` by wildcard MPI_Irecv, polled with MPI_Testsome. */
static double collect_testsome(int senders, int round) {
  double* values = malloc(sizeof(double) * (size_t)senders);
  MPI_Request* requests = malloc(sizeof(MPI_Request) * (size_t)senders);
  int* done = malloc(sizeof(int) * (size_t)senders);
  /* (Statuses, not MPI_STATUSES_IGNORE: GCC 12 warns on MPICH's annotated prototype.) */
  MPI_Status* statuses = malloc(sizeof(MPI_Status) * (size_t)senders);
  for (int i = 0; i < senders; ++i)
    MPI_Irecv(&values[i], 1, MPI_DOUBLE, MPI_ANY_SOURCE, round, MPI_COMM_WORLD, &requests[i]);
  double sum = 0.0;
  for (int received = 0; received < senders;) {
    int outcount = 0;
    MPI_Testsome(senders, requests, &outcount, done, statuses);
    for (int k = 0; k < outcount; ++k) sum += values[done[k]];
    if (outcount > 0) received += outcount;
  }
  free(statuses);
  free(done);
  free(requests);
  free(values);
  return sum;
}

/* Round `round` by polling with MPI_Iprobe, then receiving what was found. */
static double collect_iprobe(int senders, int round) {
  double sum = 0.0;
  for (int i = 0; i < senders;) {
    int found = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, round, MPI_COMM_WORLD, &found, &status);
    if (!found) continue;
    double v;
    MPI_Recv(&v, 1, MPI_DOUBLE, status.MPI_SOURCE, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sum += v;
    ++i;
  }
  return sum;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 6;
  const int delay_us = argc > 2 ? atoi(argv[2]) : 3000;
  if (size < 4) {
    if (rank == 0) fprintf(stderr, "race: needs at least 4 ranks\n");
    MPI_Finalize();
    return 2;
  }
  const int senders = size - 1;
  int status = 0;
  if (rank == 0) {
    double checksum = 0.0;
    for (int round = 0; round < rounds; ++round) {
      double sum = round % 4 == 0 ? collect_recv(senders, round)
                   : round % 4 == 1 ? collect_waitany(senders, round)
                   : round % 4 == 2 ? collect_iprobe(senders, round)
                                    : collect_testsome(senders, round);
      checksum += sum;
      /* The round's trailer: every sender says it is done. */
      MPI_Request trailer;
      int done = 0, polls = 0;
      MPI_Irecv(&done, 1, MPI_INT, 1, 1000 + round, MPI_COMM_WORLD, &trailer);
      for (int flag = 0; !flag; ++polls) MPI_Test(&trailer, &flag, MPI_STATUS_IGNORE);
      (void)polls;
    }
    const double exact = (double)rounds * (double)(size - 3);
    printf("race: checksum %.1f (exact %.1f)%s\n", checksum, exact,
           checksum == exact ? "" : ": the arrival order changed the sum");
    fflush(stdout);
    status = checksum == exact ? 0 : 1;
  } else {
    const double v = value_of(rank);
    for (int round = 0; round < rounds; ++round) {
      if (rank >= 3 && delay_us > 0) usleep((useconds_t)delay_us);
      MPI_Send(&v, 1, MPI_DOUBLE, 0, round, MPI_COMM_WORLD);
      if (rank == 1) {
        int done = 1;
        MPI_Send(&done, 1, MPI_INT, 0, 1000 + round, MPI_COMM_WORLD);
      }
    }
  }
  MPI_Finalize();
  return status;
}
