#include <catch2/catch.hpp>

#include "check/core/ThreadLevel.hpp"

using mpidbg::check::accepts;
using mpidbg::check::neededLevel;
using mpidbg::check::ThreadLevel;

namespace {

struct Row {
  const char* word;
  ThreadLevel needed;
};

// PARCOACH's automata: SINGLE {ε}; FUNNELED (P B* M)+; SERIALIZED (P B* S | P B* M)*; MULTIPLE all.
const Row kRows[] = {
    {"", ThreadLevel::Single},          // sequential code
    {"PM", ThreadLevel::Funneled},      // master in a parallel region
    {"PBBM", ThreadLevel::Funneled},    // master after two barriers
    {"PMPM", ThreadLevel::Funneled},    // master of a nested region inside master
    {"PS", ThreadLevel::Serialized},    // single
    {"PBS", ThreadLevel::Serialized},   // single after a barrier
    {"PMPS", ThreadLevel::Serialized},  // single of a nested region inside master
    {"PSPM", ThreadLevel::Serialized},  // master of a nested region inside single
    {"P", ThreadLevel::Multiple},       // every thread of a team
    {"PB", ThreadLevel::Multiple},      // every thread, after a barrier
    {"PP", ThreadLevel::Multiple},      // nested parallel regions
    {"PPS", ThreadLevel::Multiple},     // single of an inner team: one thread per outer thread
    {"PSP", ThreadLevel::Multiple},     // a team started inside single
    {"PMB", ThreadLevel::Multiple},     // word ending in B: not a monothreaded region
    {"S", ThreadLevel::Multiple},  // not a word the front end gives (no team): never accepted below
                                   // MULTIPLE
    {"PX", ThreadLevel::Multiple},  // unknown letter
};

}  // namespace

TEST_CASE("neededLevel is the lowest level whose automaton accepts the word", "[check]") {
  for (const Row& row : kRows) {
    INFO("word \"" << row.word << "\"");
    CHECK(neededLevel(row.word) == row.needed);
    // Each level accepts what the ones below accept, and nothing needing more.
    for (int l = 0; l <= 3; ++l)
      CHECK(accepts(static_cast<ThreadLevel>(l), row.word) == (l >= static_cast<int>(row.needed)));
  }
}

TEST_CASE("thread levels by name and by mpi.h value", "[check]") {
  using namespace mpidbg::check;
  CHECK(levelFromName("MPI_THREAD_SERIALIZED") == ThreadLevel::Serialized);
  CHECK_FALSE(levelFromName("MPI_THREAD_SOMETIMES"));
  CHECK(levelFromValue(1) == ThreadLevel::Funneled);
  CHECK_FALSE(levelFromValue(4));
  CHECK_FALSE(levelFromValue(-1));
  CHECK(levelName(ThreadLevel::Multiple) == "MPI_THREAD_MULTIPLE");
}
