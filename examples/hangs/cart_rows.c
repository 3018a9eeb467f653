/* A hang on a Cartesian grid's row. Four ranks make a node-local
 * communicator (MPI_Comm_split_type) and a 2x2 periodic grid named "grid"
 * (MPI_Cart_create), and slice it into rows named "row" (MPI_Cart_sub: ranks
 * {0,1} and {2,3}). Every rank sums over its row with MPI_Allreduce, except
 * rank 3, which waits in MPI_Recv for a message rank 0 never sends; then
 * every rank calls MPI_Barrier on the grid.
 * Expected verdict: ranks [0-1] are in call 1 to MPI_Barrier on grid and wait
 * for ranks 2 and 3; rank 2 is in call 1 to MPI_Allreduce on row and waits
 * for rank 3; rank 3 waits in MPI_Recv for rank 0: the cycle 0 -> 3 -> 0.
 * The communicators are known across ranks although MPICH's rank 0 holds
 * other handle values for them than the other ranks. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, value = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm node, grid, row;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Barrier(node);
  const int dims[2] = {2, 2}, periods[2] = {1, 1}, keep[2] = {0, 1};
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  MPI_Comm_set_name(grid, "grid");
  MPI_Cart_sub(grid, keep, &row);
  MPI_Comm_set_name(row, "row");
  if (rank != 3)
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, row);
  else
    MPI_Recv(&sum, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(grid);
  MPI_Comm_free(&row);
  MPI_Comm_free(&grid);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return 0;
}
