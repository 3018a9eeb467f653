/* A hang on graph topologies. Four ranks make a distributed graph of a ring
 * (MPI_Dist_graph_create_adjacent, rank r's neighbours r-1 and r+1) named
 * "ring", and a graph of the same ring (MPI_Graph_create) named "graph".
 * Every rank but 3 sums over "ring" with MPI_Allreduce; rank 3 waits in
 * MPI_Recv for a message rank 0 never sends. Then every rank would call
 * MPI_Barrier on "graph".
 * Expected verdict: ranks [0-2] are in call 1 to MPI_Allreduce on ring and
 * wait for rank 3, which waits in MPI_Recv for rank 0: the cycle 0 -> 3 -> 0.
 * Both communicators are known across ranks although MPICH's rank 0 holds
 * other handle values for them than the other ranks. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, value = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int neighbours[2] = {(rank + size - 1) % size, (rank + 1) % size};
  MPI_Comm ring, graph;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, neighbours, MPI_UNWEIGHTED, 2, neighbours, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &ring);
  MPI_Comm_set_name(ring, "ring");
  int index[64], edges[128];
  for (int r = 0; r < size && r < 64; ++r) {
    index[r] = 2 * (r + 1);
    edges[2 * r] = (r + size - 1) % size;
    edges[2 * r + 1] = (r + 1) % size;
  }
  MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
  MPI_Comm_set_name(graph, "graph");
  if (rank != 3)
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, ring);
  else
    MPI_Recv(&sum, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(graph);
  MPI_Comm_free(&graph);
  MPI_Comm_free(&ring);
  MPI_Finalize();
  return 0;
}
