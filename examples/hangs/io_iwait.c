/* A nonblocking collective MPI-IO call one rank skips: every rank opens one
 * file (MPI_File_open, collective #2 on MPI_COMM_WORLD after MPI_Bcast);
 * ranks 0..n-2 then issue MPI_File_iwrite_all (collective #3) and wait on
 * its request in MPI_Wait, while the last rank waits in MPI_Recv for a
 * message rank 0 sends only after its wait.
 * Expected: `queues` lists each writer's request as a collective operation,
 * MPI_File_iwrite_all(count=4) collective #3; `collectives` says "Ranks
 * [0..n-2] have not completed MPI_File_iwrite_all (collective #3 on the
 * communicator)"; the verdict: the writers wait in MPI_Wait on collective #3
 * for the last rank, which waits in MPI_Recv for rank 0: "Deadlock: cycle
 * 0 -> n-1 -> 0". The file is made in $TMPDIR (or /tmp) and unlinked by
 * rank 0 once every rank has it open. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, token = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[512] = {0};
  if (rank == 0) {
    const char* dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/io_iwait-%ld.dat", dir && *dir ? dir : "/tmp", (long)getpid());
  }
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_File file;
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &file);
  if (rank == 0) unlink(path);
  const int block[4] = {rank, rank, rank, rank};
  if (rank < size - 1) {
    MPI_Request request;
    MPI_File_iwrite_all(file, block, 4, MPI_INT, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (rank == 0) MPI_Send(&token, 1, MPI_INT, size - 1, 9, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&token, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_File_close(&file);
  MPI_Finalize();
  return 0;
}
