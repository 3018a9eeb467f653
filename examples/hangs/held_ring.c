/* Not a hang: the ranks pass tokens around the ring with MPI_Sendrecv, and
 * nothing else, for SECONDS (default 20), then finish. Rank 0 decides when:
 * it puts the exchange after which every rank stops (now + size) into its
 * message, and each rank forwards the latest stop it knows, so all know it
 * in time. A rank the debugger holds (`freeze 1`, `freeze --now 1`, a
 * breakpoint) stops the others in their next exchange.
 * Expected verdict under `freeze --now 1` on 4 ranks: rank 1 is held
 * (frozen), ranks [0,2-3] are blocked in MPI_Sendrecv and wait for it
 * directly or through each other: "No hang of the program: ranks [0,2-3]
 * wait for rank 1, which you froze (continue 1)", no cycle. Exits 0.
 * Usage: held_ring [SECONDS (default 20)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double seconds = argc > 1 ? atof(argv[1]) : 20.0;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const double start = MPI_Wtime();
  long out[2] = {rank, -1}, in[2] = {0, -1};  /* token, the last exchange (-1: not decided) */
  long stop = -1, exchange = 0;
  for (; stop < 0 || exchange <= stop; ++exchange) {
    if (rank == 0 && stop < 0 && MPI_Wtime() - start >= seconds) stop = exchange + size;
    out[1] = stop;
    MPI_Sendrecv(out, 2, MPI_LONG, next, 3, in, 2, MPI_LONG, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    out[0] = in[0];
    if (stop < 0) stop = in[1];
  }
  if (rank == 0) printf("held_ring: %ld exchanges\n", exchange);
  MPI_Finalize();
  return 0;
}
