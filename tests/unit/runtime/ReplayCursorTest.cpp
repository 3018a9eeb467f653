// The replay cursor of record and replay (runtime/ReplayCursor.hpp): which
// recorded decision a call gets, and the divergence reports when the log
// cannot answer it. Logs are made with the runtime's own encoder
// (common/include/mpidbg/DecisionLog.hpp).
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "../common/DecisionBuilders.hpp"
#include "mpidbg/DecisionLog.hpp"
#include "runtime/ReplayCursor.hpp"

namespace replay_cursor_test {

using mpidbg::record::Decision;
using mpidbg::record::DecisionKind;
using mpidbg::rt::ReplayCursor;
using mpidbg::rt::ReplayStep;
using namespace decision_builders;

/// The log of `decisions` as rank 1 of 3 would write it; `finished`: with
/// its end marker (else cut short).
std::string logOf(const std::vector<Decision>& decisions, bool finished = true, int rank = 1, int size = 3) {
  mpidbg::record::Encoder encoder(rank, size);
  for (const Decision& d : decisions) encoder.add(d);
  if (finished) encoder.finish();
  else encoder.sealRun();
  return encoder.pending();
}

ReplayCursor cursorOf(const std::string& bytes, int rank = 1, int size = 3) {
  ReplayCursor cursor;
  cursor.load("dir/rank-1.rec", bytes, rank, size);
  return cursor;
}


TEST_CASE("ReplayCursor hands out the recorded decisions in order", "[runtime][replay]") {
  // A run of three equal receives (one Repeat entry in the file), wildcard
  // MPI_Irecv matches between them (taken out of the sequence), then one of
  // each other kind.
  const std::vector<Decision> recorded = {
      matchOf(DecisionKind::RecvMatch, 2, 7),  matchOf(DecisionKind::RecvMatch, 2, 7),
      irecvOf(0, 1, 3),                          matchOf(DecisionKind::RecvMatch, 2, 7),
      matchOf(DecisionKind::ProbeMatch, 0, 1), flagOf(DecisionKind::Iprobe, false),
      flagOf(DecisionKind::Test, true),       flagOf(DecisionKind::Testall, false),
      indexOf(DecisionKind::Waitany, 4),       indexOf(DecisionKind::Waitany, -1),
      indexOf(DecisionKind::Testany, 2, true), irecvOf(1, 0, 9),
      someOf(DecisionKind::Waitsome, {0, 3}),    someOf(DecisionKind::Testsome, {}),
  };
  ReplayCursor cursor = cursorOf(logOf(recorded));
  REQUIRE(cursor.replaying());
  REQUIRE(cursor.broken().empty());
  CHECK(cursor.path() == "dir/rank-1.rec");
  CHECK(cursor.total() == recorded.size());
  CHECK(cursor.complete());

  std::uint64_t replayed = 0;
  for (const Decision& expected : recorded) {
    if (expected.kind == DecisionKind::IrecvMatch) continue;
    INFO(mpidbg::record::describe(expected));
    const ReplayStep step = cursor.next(expected.kind);
    CHECK(step.why.empty());
    REQUIRE(step.decision.has_value());
    CHECK(*step.decision == expected);
    CHECK(cursor.replayed() == ++replayed);
  }
  CHECK(replayed == recorded.size() - 2);
  CHECK(cursor.replaying());
  CHECK(cursor.diverged().empty());
}

TEST_CASE("ReplayCursor diverges when the log cannot answer the call", "[runtime][replay]") {
  const std::vector<Decision> two = {matchOf(DecisionKind::RecvMatch, 0, 5), flagOf(DecisionKind::Test, false)};
  struct Case {
    const char* name;
    std::string bytes;
    int rank;
    std::vector<DecisionKind> answered;  ///< asked first, answered
    DecisionKind asked;                  ///< then this diverges
    std::string why;
    std::string report;
  };
  const std::vector<Case> cases = {
      {"another kind first", logOf(two), 1, {}, DecisionKind::Waitany,
       "the program asks for MPI_Waitany but the record holds MPI_Recv matched source=0 tag=5",
       "decision #1: the program asks for MPI_Waitany but the record holds MPI_Recv matched source=0 tag=5"},
      {"another kind later", logOf(two), 1, {DecisionKind::RecvMatch}, DecisionKind::Testall,
       "the program asks for MPI_Testall but the record holds MPI_Test flag=0",
       "decision #2: the program asks for MPI_Testall but the record holds MPI_Test flag=0"},
      {"log used up, run finished", logOf(two), 1, {DecisionKind::RecvMatch, DecisionKind::Test},
       DecisionKind::Test,
       "the program asks for MPI_Test but the record ends after 2 decisions (the recorded run made no more)",
       "decision #3: the program asks for MPI_Test but the record ends after 2 decisions (the recorded run made no "
       "more)"},
      {"log used up, run cut short", logOf(two, false), 1, {DecisionKind::RecvMatch, DecisionKind::Test},
       DecisionKind::Iprobe,
       "the program asks for MPI_Iprobe but the record ends after 2 decisions (the recorded run was cut short)",
       "decision #3: the program asks for MPI_Iprobe but the record ends after 2 decisions (the recorded run was "
       "cut short)"},
      {"empty log", logOf({}), 1, {}, DecisionKind::RecvMatch,
       "the program asks for MPI_Recv but the record ends after 0 decisions (the recorded run made no more)",
       "decision #1: the program asks for MPI_Recv but the record ends after 0 decisions (the recorded run made no "
       "more)"},
      {"not a log", "this is not a decision log", 1, {}, DecisionKind::RecvMatch,
       "the record cannot be replayed: dir/rank-1.rec: not an mpidbg decision log (no MPIDBGR1 header)",
       "decision #1: the record cannot be replayed: dir/rank-1.rec: not an mpidbg decision log (no MPIDBGR1 "
       "header)"},
      {"another rank's log", logOf(two), 2, {}, DecisionKind::RecvMatch,
       "the record cannot be replayed: dir/rank-1.rec was recorded as rank 1 of 3, this is rank 2 of 3",
       "decision #1: the record cannot be replayed: dir/rank-1.rec was recorded as rank 1 of 3, this is rank 2 of 3"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      ReplayCursor cursor = cursorOf(c.bytes, c.rank);
      for (DecisionKind kind : c.answered) REQUIRE(cursor.next(kind).decision.has_value());
      const std::uint64_t before = cursor.replayed();
      const ReplayStep step = cursor.next(c.asked);
      CHECK_FALSE(step.decision.has_value());
      CHECK(step.why == c.why);
      CHECK(cursor.replayed() == before);  // a divergence takes nothing
      CHECK(cursor.replaying());           // until the owner reports it
      const std::optional<std::string> report = cursor.diverge(step.why);
      REQUIRE(report.has_value());
      CHECK(*report == c.report);
      CHECK(cursor.diverged() == c.report);
      CHECK_FALSE(cursor.replaying());
      // Only the first divergence is reported; afterwards calls run as asked.
      CHECK_FALSE(cursor.diverge("again").has_value());
      const ReplayStep after = cursor.next(DecisionKind::RecvMatch);
      CHECK_FALSE(after.decision.has_value());
      CHECK(after.why.empty());
      CHECK(cursor.diverged() == c.report);
    }
  }
}

TEST_CASE("ReplayCursor reports an unreadable log at the first decision", "[runtime][replay]") {
  ReplayCursor cursor;
  cursor.open("/nonexistent-mpidbg-dir/rank-0.rec", 0, 1);
  CHECK(cursor.replaying());
  CHECK(cursor.broken() == "cannot read /nonexistent-mpidbg-dir/rank-0.rec: No such file or directory");
  CHECK(cursor.diverged() == cursor.broken());
  CHECK_FALSE(cursor.irecvMatch(0).has_value());
  const ReplayStep step = cursor.next(DecisionKind::Test);
  CHECK_FALSE(step.decision.has_value());
  CHECK(step.why ==
        "the record cannot be replayed: cannot read /nonexistent-mpidbg-dir/rank-0.rec: No such file or directory");
}

TEST_CASE("ReplayCursor answers nothing before replay starts", "[runtime][replay]") {
  ReplayCursor cursor;
  CHECK_FALSE(cursor.replaying());
  const ReplayStep step = cursor.next(DecisionKind::RecvMatch);
  CHECK_FALSE(step.decision.has_value());
  CHECK(step.why.empty());
  CHECK_FALSE(cursor.irecvMatch(0).has_value());
  CHECK_FALSE(cursor.diverge("why").has_value());
  CHECK(cursor.replayed() == 0);
}

TEST_CASE("ReplayCursor looks wildcard MPI_Irecv matches up by ordinal", "[runtime][replay]") {
  // Matches are recorded when the receives complete: out of ordinal order,
  // some never (ordinal 1 was freed or never completed).
  const std::vector<Decision> recorded = {flagOf(DecisionKind::Test, false), irecvOf(2, 3, 8),
                                          flagOf(DecisionKind::Test, true), irecvOf(0, 1, 4)};
  ReplayCursor cursor = cursorOf(logOf(recorded));
  struct Lookup {
    std::int64_t ordinal;
    std::optional<Decision> expected;
    std::uint64_t replayedAfter;
  };
  const std::vector<Lookup> lookups = {
      {0, irecvOf(0, 1, 4), 1},
      {1, std::nullopt, 1},  // not recorded: the receive runs as the program asked, no divergence
      {2, irecvOf(2, 3, 8), 2},
      {2, irecvOf(2, 3, 8), 3},  // a lookup, not a consumption
      {7, std::nullopt, 3},
      {-1, std::nullopt, 3},
  };
  for (const Lookup& l : lookups) {
    INFO("ordinal " << l.ordinal);
    const std::optional<Decision> got = cursor.irecvMatch(l.ordinal);
    CHECK(got == l.expected);
    CHECK(cursor.replayed() == l.replayedAfter);
  }
  CHECK(cursor.replaying());
  // The matches are not in the sequence: the two tests come next, in order.
  const ReplayStep first = cursor.next(DecisionKind::Test);
  REQUIRE(first.decision.has_value());
  CHECK_FALSE(first.decision->flag);
  const ReplayStep second = cursor.next(DecisionKind::Test);
  REQUIRE(second.decision.has_value());
  CHECK(second.decision->flag);
  CHECK(cursor.next(DecisionKind::Test).why ==
        "the program asks for MPI_Test but the record ends after 5 decisions (the recorded run made no more)");
  // Once replay diverged, no match is handed out either.
  REQUIRE(cursor.diverge("stop").has_value());
  CHECK_FALSE(cursor.irecvMatch(0).has_value());
}

}  // namespace replay_cursor_test
