#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "debugger/cli/HangTriage.hpp"

using namespace mpidbg;
using cli::ProgressDetector;
using cli::ProgressSample;
using std::chrono::milliseconds;

namespace {

const ProgressDetector::Clock::time_point t0{};

ProgressDetector::Clock::time_point at(long ms) { return t0 + milliseconds(ms); }

/// A rank that answered: `calls` MPI calls so far, inside MPI or not.
ProgressSample live(int rank, std::uint64_t calls, bool inMpi) {
  ProgressSample s;
  s.rank = rank;
  s.known = true;
  s.mpiCalls = calls;
  s.inMpi = inMpi;
  return s;
}
ProgressSample silent(int rank) {
  ProgressSample s;
  s.rank = rank;
  return s;
}
ProgressSample ended(int rank) {
  ProgressSample s;
  s.rank = rank;
  s.ended = true;
  return s;
}
ProgressSample frozen(int rank, std::uint64_t calls) {
  ProgressSample s = live(rank, calls, false);
  s.held = true;
  return s;
}
ProgressSample finalized(int rank, std::uint64_t calls) {
  ProgressSample s = live(rank, calls, false);
  s.finalized = true;
  return s;
}

/// One poll every second; `hungAfter` is the index of the first poll at
/// which the detector (timeout 3 s) must call the job hung (-1: never).
struct DetectorRow {
  const char* what;
  std::vector<std::vector<ProgressSample>> polls;
  int hungAt;
};

}  // namespace

TEST_CASE("the progress detector calls a hang only after the timeout without MPI progress", "[cli][triage]") {
  const std::vector<DetectorRow> rows = {
      {"counters frozen, both blocked in MPI: hung at 3 s",
       {{live(0, 5, true), live(1, 5, true)},
        {live(0, 5, true), live(1, 5, true)},
        {live(0, 5, true), live(1, 5, true)},
        {live(0, 5, true), live(1, 5, true)},
        {live(0, 5, true), live(1, 5, true)}},
       3},
      {"one rank's counter moves every poll: never hung",
       {{live(0, 5, true), live(1, 5, false)},
        {live(0, 5, true), live(1, 6, false)},
        {live(0, 5, true), live(1, 7, false)},
        {live(0, 5, true), live(1, 8, false)},
        {live(0, 5, true), live(1, 9, false)}},
       -1},
      {"a counter change restarts the clock",
       {{live(0, 1, true)}, {live(0, 1, true)}, {live(0, 2, true)}, {live(0, 2, true)}, {live(0, 2, true)},
        {live(0, 2, true)}},
       5},
      {"leaving an MPI call (counter unchanged) is progress",
       {{live(0, 4, true)}, {live(0, 4, true)}, {live(0, 4, false)}, {live(0, 4, false)}, {live(0, 4, false)},
        {live(0, 4, false)}},
       5},
      {"a rank ending is progress; then the rest stays idle",
       {{live(0, 3, true), live(1, 3, false)},
        {live(0, 3, true), ended(1)},
        {live(0, 3, true), ended(1)},
        {live(0, 3, true), ended(1)},
        {live(0, 3, true), ended(1)}},
       4},
      {"a computing rank (never in MPI) with the others waiting is a hang",
       {{live(0, 2, true), live(1, 2, true), live(2, 1, false)},
        {live(0, 2, true), live(1, 2, true), live(2, 1, false)},
        {live(0, 2, true), live(1, 2, true), live(2, 1, false)},
        {live(0, 2, true), live(1, 2, true), live(2, 1, false)}},
       3},
      {"a silent rank keeps its last answer: silence is not progress",
       {{live(0, 7, true), live(1, 7, true)},
        {live(0, 7, true), silent(1)},
        {live(0, 7, true), silent(1)},
        {live(0, 7, true), live(1, 7, true)}},
       3},
      {"a silent rank that answers with a new counter made progress",
       {{live(0, 7, true), live(1, 7, true)},
        {live(0, 7, true), silent(1)},
        {live(0, 7, true), live(1, 9, true)},
        {live(0, 7, true), live(1, 9, true)},
        {live(0, 7, true), live(1, 9, true)},
        {live(0, 7, true), live(1, 9, true)}},
       5},
      {"a rank answering for the first time is progress",
       {{live(0, 7, true), silent(1)},
        {live(0, 7, true), silent(1)},
        {live(0, 7, true), live(1, 2, true)},
        {live(0, 7, true), live(1, 2, true)},
        {live(0, 7, true), live(1, 2, true)},
        {live(0, 7, true), live(1, 2, true)}},
       5},
      {"a rank frozen by the debugger pauses the clock",
       {{live(0, 3, true), frozen(1, 3)},
        {live(0, 3, true), frozen(1, 3)},
        {live(0, 3, true), frozen(1, 3)},
        {live(0, 3, true), frozen(1, 3)},
        {live(0, 3, true), frozen(1, 3)}},
       -1},
      {"every rank finalized or ended: nothing can hang in MPI",
       {{finalized(0, 9), ended(1)},
        {finalized(0, 9), ended(1)},
        {finalized(0, 9), ended(1)},
        {finalized(0, 9), ended(1)},
        {finalized(0, 9), ended(1)}},
       -1},
      {"one rank finalized while another waits in MPI: hung",
       {{finalized(0, 9), live(1, 4, true)},
        {finalized(0, 9), live(1, 4, true)},
        {finalized(0, 9), live(1, 4, true)},
        {finalized(0, 9), live(1, 4, true)}},
       3},
  };
  for (const auto& row : rows) {
    INFO(row.what);
    ProgressDetector detector(milliseconds(3000));
    CHECK_FALSE(detector.hung(at(0)));
    int firstHung = -1;
    for (std::size_t i = 0; i < row.polls.size(); ++i) {
      detector.observe(row.polls[i], at(static_cast<long>(i) * 1000));
      if (firstHung < 0 && detector.hung(at(static_cast<long>(i) * 1000))) firstHung = static_cast<int>(i);
    }
    CHECK(firstHung == row.hungAt);
  }
}

TEST_CASE("the progress detector's idle time and return value", "[cli][triage]") {
  ProgressDetector detector(milliseconds(2500));
  CHECK(detector.idleFor(at(100)) == milliseconds(0));
  CHECK(detector.observe({live(0, 1, true)}, at(0)));  // the first poll starts the clock
  CHECK_FALSE(detector.observe({live(0, 1, true)}, at(1000)));
  CHECK(detector.idleFor(at(1500)) == milliseconds(1500));
  CHECK_FALSE(detector.hung(at(2499)));
  CHECK(detector.hung(at(2500)));
  CHECK(detector.observe({live(0, 2, true)}, at(2600)));
  CHECK(detector.idleFor(at(2600)) == milliseconds(0));
  CHECK_FALSE(detector.hung(at(5000)));
  CHECK(detector.hung(at(5100)));
}

TEST_CASE("progressSamples reads the job model and the runtime's status", "[cli][triage]") {
  using ccs::proto::RankState;
  auto view = [](int rank, core::RankLife life, std::optional<RankState> state, std::uint64_t calls) {
    core::RankView v;
    v.info.rank = rank;
    v.info.life = life;
    if (state) {
      ccs::proto::RankStatus s;
      s.rank = rank;
      s.state = *state;
      s.mpiCalls = calls;
      v.status = s;
    }
    return v;
  };
  std::vector<core::RankView> views = {
      view(0, core::RankLife::Live, RankState::InMpi, 12),
      view(1, core::RankLife::Live, RankState::Running, 3),
      view(2, core::RankLife::Live, RankState::Frozen, 1),
      view(3, core::RankLife::Finalized, RankState::Finalized, 40),
      view(4, core::RankLife::Exited, std::nullopt, 0),
      view(5, core::RankLife::Live, std::nullopt, 0),
  };
  views[5].info.heldByGdb = true;
  const auto s = cli::progressSamples(views);
  REQUIRE(s.size() == 6);
  CHECK(s[0] == live(0, 12, true));
  CHECK(s[1] == live(1, 3, false));
  CHECK(s[2] == frozen(2, 1));
  CHECK(s[3] == finalized(3, 40));
  CHECK(s[4] == ended(4));
  CHECK(s[5].held);
  CHECK_FALSE(s[5].known);

  // A polling rank, between two tests or inside one, samples the same: in
  // MPI at its streak's first call number, so the detector sees no progress.
  ccs::proto::MpiCall test;
  test.function = "MPI_Test";
  test.polling = true;
  test.seq = 7;
  std::vector<core::RankView> polling = {view(0, core::RankLife::Live, RankState::Running, 90)};
  polling[0].status->call = test;
  cli::ProgressDetector detector(std::chrono::milliseconds(5000));
  detector.observe(cli::progressSamples(polling), at(0));
  CHECK(cli::progressSamples(polling)[0] == live(0, 7, true));
  polling[0].status->state = RankState::InMpi;
  polling[0].status->mpiCalls = 95;
  CHECK_FALSE(detector.observe(cli::progressSamples(polling), at(1000)));
  polling[0].status->state = RankState::Running;
  polling[0].status->mpiCalls = 130;
  CHECK_FALSE(detector.observe(cli::progressSamples(polling), at(5000)));
  CHECK(detector.hung(at(5000)));
  // The streak ends (a request completed): progress.
  polling[0].status->call.reset();
  CHECK(detector.observe(cli::progressSamples(polling), at(5100)));
}

TEST_CASE("textReportPath puts the text report beside the JSON one", "[cli][triage]") {
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"hang.json", "hang.txt"},
      {"ci/out/hang.json", "ci/out/hang.txt"},
      {"hang", "hang.txt"},
      {"hang.out", "hang.out.txt"},
      {"dir/.json", "dir/.json.txt"},
      {".json", ".json.txt"},
  };
  for (const auto& [in, expected] : rows) {
    INFO(in);
    CHECK(cli::textReportPath(in) == expected);
  }
}

TEST_CASE("checkHangTriageOptions rejects what cannot work before the launch", "[cli][triage]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("mpidbg-triage-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  cli::HangTriageOptions o;
  CHECK(cli::checkHangTriageOptions(o, true));  // no triage: nothing to check

  o.reportPath = (dir / "hang.json").string();
  auto e = cli::checkHangTriageOptions(o, false);
  REQUIRE_FALSE(e);
  CHECK(e.error().message.find("--report needs --hang-timeout") != std::string::npos);

  o.timeoutSeconds = 3;
  CHECK(cli::checkHangTriageOptions(o, false));
  CHECK_FALSE(fs::exists(dir / "hang.json"));  // nothing created
  e = cli::checkHangTriageOptions(o, true);
  REQUIRE_FALSE(e);
  CHECK(e.error().message.find("without commands") != std::string::npos);

  o.reportPath = (dir / "nonesuch" / "hang.json").string();
  e = cli::checkHangTriageOptions(o, false);
  REQUIRE_FALSE(e);
  CHECK(e.error().message.find("does not exist") != std::string::npos);

  o.reportPath = dir.string();
  e = cli::checkHangTriageOptions(o, false);
  REQUIRE_FALSE(e);
  CHECK(e.error().message.find("is a directory") != std::string::npos);

  o.reportPath = "hang.json";  // the current directory
  CHECK(cli::checkHangTriageOptions(o, false));
  o.reportPath.clear();
  CHECK(cli::checkHangTriageOptions(o, false));
  fs::remove_all(dir);
}

TEST_CASE("the hang report joins verdict, stacks, queues and the job", "[cli][triage]") {
  core::HangInput input;
  input.worldSize = 3;
  for (int r = 0; r < 2; ++r) {
    ccs::proto::RankQueues q;
    q.worldRank = r;
    q.source = "ccs";
    ccs::proto::MpiCall call;
    call.function = "MPI_Recv";
    call.peerRole = "source";
    call.peer = 1 - r;
    call.hasTag = true;
    call.tag = 7;
    call.comm = 0x44000000;
    call.commName = "MPI_COMM_WORLD";
    q.call = call;
    ccs::proto::CommQueues c;
    c.state.handle = 0x44000000;
    c.state.name = "MPI_COMM_WORLD";
    c.state.size = 3;
    c.state.localRank = r;
    c.worldRanks = {0, 1, 2};
    ccs::proto::PendingOp op;
    op.kind = ccs::proto::PendingOp::Kind::Recv;
    op.function = "MPI_Recv";
    op.blocking = true;
    op.comm = 0x44000000;
    op.peer = 1 - r;
    op.tag = 7;
    c.recvs.push_back(op);
    q.comms.push_back(c);
    input.ranks.push_back(q);
  }
  input.ended[2] = "exited with code 0";
  const core::HangVerdict verdict = core::analyzeHang(input);
  REQUIRE(verdict.cycles == std::vector<std::vector<int>>{{0, 1}});

  core::stacks::StackTree tree;
  cli::TriageJob job{{"mpiexec.mpich", "-n", "3", "./recv cycle"}, 3, 4.26, 3.04, 3};

  const auto json = cli::hangReportJson(verdict, tree, input, job);
  CHECK(json["version"] == 1);
  CHECK(json["hang"]["cycles"] == nlohmann::json::parse("[[0,1]]"));
  CHECK(json["hang"]["no_hang"] == false);
  CHECK(json["stacks"].contains("tree"));
  CHECK(json["job"]["argv"][3] == "./recv cycle");
  CHECK(json["job"]["ranks"] == 3);
  CHECK(json["job"]["seconds"] == 4.3);
  CHECK(json["job"]["idle_seconds"] == 3.0);
  CHECK(json["job"]["hang_timeout"] == 3.0);
  const auto& queues = json["queues"];
  REQUIRE(queues["ranks"].size() == 2);
  CHECK(queues["ranks"][0]["rank"] == 0);
  CHECK(queues["ranks"][0]["call"] == "MPI_Recv(source=1, tag=7, comm=MPI_COMM_WORLD)");
  CHECK(queues["ranks"][0]["comms"][0]["handle"] == "0x44000000");
  CHECK(queues["ranks"][0]["comms"][0]["recvs"][0].get<std::string>().find("MPI_Recv(source=1, tag=7") == 0);
  CHECK(queues["ranks"][0]["comms"][0]["sends"].empty());
  CHECK(queues["ended"] == nlohmann::json::parse(R"([{"rank":2,"how":"exited with code 0"}])"));
  CHECK(queues["unreadable"].empty());

  const std::string text = cli::hangReportText(verdict, tree, input, job);
  CHECK(text.starts_with("Hang: no MPI progress on any rank for 3 s (--hang-timeout 3 s); the job ran 4.3 s.\n"));
  CHECK(text.find("Job: mpiexec.mpich -n 3 './recv cycle' (3 ranks)\n") != std::string::npos);
  CHECK(text.find("\nHang verdict:\n") != std::string::npos);
  CHECK(text.find("Deadlock: cycle 0 -> 1 -> 0") != std::string::npos);
  CHECK(text.find("\nMerged stacks (main to the MPI call):\n") != std::string::npos);
  CHECK(text.find("\nQueues:\n") != std::string::npos);
  CHECK(text.find("MPI_Recv(source=1, tag=7") != std::string::npos);
}

TEST_CASE("hangTimeoutError accepts positive seconds and words the rest", "[cli][triage]") {
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"60", ""},
      {"2.5", ""},
      {"1000000", ""},
      {"abc", "expected a number of seconds, got 'abc'"},
      {"", "expected a number of seconds, got ''"},
      {"10s", "expected a number of seconds, got '10s'"},
      {"nan", "expected a number of seconds, got 'nan'"},
      {"inf", "expected a number of seconds, got 'inf'"},
      {"0", "must be more than 0 and at most 1000000 seconds, got '0'"},
      {"-5", "must be more than 0 and at most 1000000 seconds, got '-5'"},
      {"1e7", "must be more than 0 and at most 1000000 seconds, got '1e7'"},
  };
  for (const auto& [in, expected] : rows) {
    INFO(in);
    CHECK(cli::hangTimeoutError(in) == expected);
  }
}
