// heat2d: a small 2-D heat stencil whose tiles describe themselves with PUP,
// for object inspection (issue 8). The global grid is NX columns wide and
// split into horizontal bands, one per rank; each step exchanges halo rows
// with the neighbours (MPI_Sendrecv), relaxes the band (Jacobi) and sums the
// residual (MPI_Allreduce). Each rank watches:
//
//   grid        its Tile (mpidbg::watch): nx, ny, first_row, step, residual, cells, ...
//   probes      a few sample points (mpidbg::watch_list)
//   config      the run's settings, a plain C struct (mpidbg_watch_struct)
//
// The planted bug: the last rank computes its band width with an off-by-one
// (nx = NX - 1), so its last column never relaxes. `print grid.nx` shows it:
//   grid.nx = 128 on [0-2]; 127 on [3]
// Usage: heat2d [STEPS (default 50)] [MILLISECONDS of sleep per step (default 0)]
// Exits 0; rank 0 prints the final residual.
#include <mpi.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "mpidbg/entry.hpp"
#include "mpidbg/watch.hpp"

namespace {

constexpr int NX = 128;          // columns of the global grid
constexpr int ROWS_PER_RANK = 8;  // rows of each band

/// One rank's band of the grid, with halo rows above and below.
struct Tile {
  int nx = 0;         // columns this rank relaxes (NX; the bug makes it NX - 1 on the last rank)
  int ny = 0;         // rows owned
  int first_row = 0;  // global index of the first owned row
  int step = 0;
  double residual = 0;
  std::string owner;            // "rank N"
  std::vector<double> cells;    // (ny + 2) * NX values, halos included
  std::array<int, 2> neighbours{-1, -1};  // above, below (MPI_PROC_NULL shown as -1)

  double& at(int row, int col) { return cells[static_cast<std::size_t>(row) * NX + col]; }

  void pup(PUP::er& p) {
    PUP(nx);
    PUP(ny);
    PUP(first_row);
    PUP(step);
    PUP(residual);
    PUP(owner);
    PUP(neighbours);
    PUP(cells);
  }
};

/// A sample point the solver tracks.
struct Probe {
  int row = 0, col = 0;
  double value = 0;
  void pup(PUP::er& p) {
    PUP(row);
    PUP(col);
    PUP(value);
  }
};

/// The run's settings: a plain C struct, described by a field table.
struct Config {
  int steps;
  int delay_ms;
  double alpha;
  char scheme[16];
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  Config config{argc > 1 ? std::atoi(argv[1]) : 50, argc > 2 ? std::atoi(argv[2]) : 0, 0.25, "jacobi"};
  static const mpidbg_field kConfigFields[] = {
      MPIDBG_FIELD(Config, steps, MPIDBG_FIELD_INT, 1),
      MPIDBG_FIELD(Config, delay_ms, MPIDBG_FIELD_INT, 1),
      MPIDBG_FIELD(Config, alpha, MPIDBG_FIELD_DOUBLE, 1),
      MPIDBG_FIELD(Config, scheme, MPIDBG_FIELD_CHAR, 16),
  };
  mpidbg_watch_struct_if_loaded("config", &config, 1, sizeof config, kConfigFields, 4);

  Tile tile;
  tile.ny = ROWS_PER_RANK;
  tile.first_row = rank * ROWS_PER_RANK;
  // The planted off-by-one: the last band "leaves room" for a boundary column it does not have.
  tile.nx = rank == size - 1 ? NX - 1 : NX;
  tile.owner = "rank " + std::to_string(rank);
  tile.cells.assign(static_cast<std::size_t>(tile.ny + 2) * NX, 0.0);
  const int above = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int below = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  tile.neighbours = {rank > 0 ? rank - 1 : -1, rank < size - 1 ? rank + 1 : -1};
  if (rank == 0)
    for (int col = 0; col < NX; ++col) tile.at(0, col) = 100.0;  // the hot top edge

  std::vector<Probe> probes = {{1, 0, 0}, {1, NX / 2, 0}, {tile.ny, NX - 1, 0}};
  auto gridWatch = mpidbg::watch("grid", tile);
  auto probeWatch = mpidbg::watch_list(
      "probes", [&] { return static_cast<int>(probes.size()); }, [&](int i) -> Probe& { return probes[i]; });

  std::vector<double> next(tile.cells.size(), 0.0);
  double global = 0;
  for (int step = 0; step < config.steps; ++step) {
    mpidbg::entry<"heat2d::step">();
    tile.step = step;
    // Halo rows: send the first owned row up and the last down.
    MPI_Sendrecv(&tile.at(1, 0), NX, MPI_DOUBLE, above, 0, &tile.at(tile.ny + 1, 0), NX, MPI_DOUBLE, below, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&tile.at(tile.ny, 0), NX, MPI_DOUBLE, below, 1, &tile.at(0, 0), NX, MPI_DOUBLE, above, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0)
      for (int col = 0; col < NX; ++col) tile.at(0, col) = 100.0;

    double local = 0;
    next = tile.cells;
    for (int row = 1; row <= tile.ny; ++row) {
      for (int col = 1; col < tile.nx - 1; ++col) {
        const double v = tile.at(row, col) + config.alpha * (tile.at(row - 1, col) + tile.at(row + 1, col) +
                                                             tile.at(row, col - 1) + tile.at(row, col + 1) -
                                                             4 * tile.at(row, col));
        local += std::fabs(v - tile.at(row, col));
        next[static_cast<std::size_t>(row) * NX + col] = v;
      }
    }
    tile.cells.swap(next);
    for (Probe& probe : probes) probe.value = tile.at(probe.row, probe.col);
    tile.residual = local;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (config.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(config.delay_ms));
  }

  gridWatch.reset();
  probeWatch.reset();
  mpidbg_unwatch_if_loaded("config");
  if (rank == 0) std::printf("heat2d: %d steps on %d ranks, residual %.6f\n", config.steps, size, global);
  MPI_Finalize();
  return 0;
}
