/* A collective MPI-IO call one rank skips: every rank opens one file
 * (MPI_File_open, collective on MPI_COMM_WORLD); ranks 0..n-2 then write
 * their block with MPI_File_write_at_all while the last rank goes straight
 * to MPI_Barrier. Expected verdict: collective #3 on MPI_COMM_WORLD (after
 * MPI_Bcast and MPI_File_open) differs
 * (MPI_File_write_at_all on ranks [0..n-2], MPI_Barrier on the last); the
 * writers wait for the last rank, which waits for them. The file is made in
 * $TMPDIR (or /tmp) and unlinked by rank 0 once every rank has it open. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[512] = {0};
  if (rank == 0) {
    const char* dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/io_skip-%ld.dat", dir && *dir ? dir : "/tmp", (long)getpid());
  }
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_File file;
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &file);
  if (rank == 0) unlink(path);
  const int block[4] = {rank, rank, rank, rank};
  if (rank < size - 1)
    MPI_File_write_at_all(file, (MPI_Offset)rank * sizeof block, block, 4, MPI_INT, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_close(&file);
  MPI_Finalize();
  return 0;
}
