#include <catch2/catch.hpp>

#include "debugger/cli/ControlCommands.hpp"

using namespace mpidbg;
using ccs::proto::BreakKind;

TEST_CASE("parseBreakpoint reads TARGET [if COND] [#N] after the rank set", "[cli][break]") {
  struct Row {
    const char* args;
    BreakKind kind;
    const char* target;
    const char* condition;
    std::uint64_t hit;
  };
  const Row rows[] = {
      {"MPI_Bcast", BreakKind::Mpi, "MPI_Bcast", "", 0},
      {"  MPI_Send if dest == 3 ", BreakKind::Mpi, "MPI_Send", "dest == 3", 0},
      {"MPI_Allreduce comm=WORLD #42", BreakKind::Mpi, "MPI_Allreduce", "comm=WORLD", 42},
      {"MPI_Recv\tif\tsource == 0 || tag >= 7 # 2", BreakKind::Mpi, "MPI_Recv",
       "source == 0 || tag >= 7", 2},
      {"entry solver::step", BreakKind::Entry, "solver::step", "", 0},
      {"entry io if rank < 2 #3", BreakKind::Entry, "io", "rank < 2", 3},
      {"violation", BreakKind::Violation, "violation", "", 0},
      {"violation #5", BreakKind::Violation, "violation", "", 5},
      {"MPI_Send if comm == \"halo#2\"", BreakKind::Mpi, "MPI_Send", "comm == \"halo#2\"", 0},
      {"MPI_Send if comm == \"a#b\" #7", BreakKind::Mpi, "MPI_Send", "comm == \"a#b\"", 7},
  };
  for (const auto& row : rows) {
    INFO(row.args);
    auto b = cli::parseBreakpoint(row.args);
    REQUIRE(b.has_value());
    CHECK(b->id == 0);
    CHECK(b->kind == row.kind);
    CHECK(b->target == row.target);
    CHECK(b->condition == row.condition);
    CHECK(b->hit == row.hit);
  }
}

TEST_CASE("parseBreakpoint rejects what the ranks would reject, with the reason", "[cli][break]") {
  struct Row {
    const char* args;
    const char* error;  // the message's start
  };
  const Row rows[] = {
      {"", "usage: break [RANKS] MPI_FUNCTION [if CONDITION] [#N]"},
      {"MPI_Sendd", "unknown MPI function 'MPI_Sendd' (did you mean MPI_Send?)"},
      {"entry", "usage: break [RANKS] entry NAME [if CONDITION]"},
      {"MPI_Send #", "bad hit count '#' (expected e.g. #42)"},
      {"MPI_Send #0", "bad hit count '#0' (expected e.g. #42)"},
      {"MPI_Send #-1", "bad hit count '#-1' (expected e.g. #42)"},
      {"MPI_Send #99999999999999999999", "bad hit count '#99999999999999999999'"},
      {"violation if tag == 1", "break violation takes no condition"},
      {"MPI_Send if root == 0", "MPI_Send has no argument 'root'"},
      {"MPI_Send if dest ==", "at column "},
  };
  for (const auto& row : rows) {
    INFO(row.args);
    auto b = cli::parseBreakpoint(row.args);
    REQUIRE_FALSE(b.has_value());
    CHECK_THAT(b.error().message, Catch::StartsWith(row.error));
  }
}
