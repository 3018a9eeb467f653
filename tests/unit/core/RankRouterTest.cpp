// RankRouter over a fake back end: which ranks are asked, the words for the
// others (written once, in RankRouter), and how the answers come back by
// rank, through a merged (tree) payload or rank by rank.
#include <catch2/catch.hpp>

#include <set>

#include "debugger/core/RankRequests.hpp"
#include "debugger/core/RankRouter.hpp"
#include "debugger/core/charm/CharmPes.hpp"

namespace rank_router_test {

using namespace mpidbg::core;
namespace proto = mpidbg::ccs::proto;

std::vector<std::uint8_t> bytesOf(const std::string& text) { return {text.begin(), text.end()}; }

/// A job of 6 ranks as a back end sees it: 0 and 1 live, 2 held by gdb, 3
/// exited with code 4, 4 attached by pid (no runtime), 5 never registered.
/// Records every request; answers with ControlReply records, merged (as
/// the tree does) or per rank, minus the ranks in `silent`.
class FakeBackend final : public RankBackend {
 public:
  FakeBackend() {
    for (int r = 0; r < 5; ++r) {
      RankInfo info;
      info.rank = r;
      info.pid = 100 + r;
      ranks_.push_back(info);
    }
    ranks_[2].heldByGdb = true;
    ranks_[3].life = RankLife::Exited;
    ranks_[3].exitCode = 4;
    ranks_[4].noRuntime = true;
  }

  std::vector<RankInfo> processes() override { return ranks_; }

  Gathered gather(const std::vector<RankInfo>& targets, std::string_view handler,
                  const std::vector<std::uint8_t>& data) override {
    asked.push_back(ranksOf(targets));
    handlers.emplace_back(handler);
    lastData = std::string(data.begin(), data.end());
    Gathered out;
    std::string merged;
    for (const auto& info : targets) {
      if (silent.count(info.rank)) {
        out.missing[info.rank] = "timed out after 3000 ms";
        continue;
      }
      if (empty) continue;
      proto::ControlReply reply;
      reply.rank = info.rank;
      reply.message = "rank " + std::to_string(info.rank) + " did " + std::string(handler);
      if (merge) merged += proto::encode(reply);
      else out.byRank[info.rank] = bytesOf(proto::encode(reply));
    }
    out.payload = bytesOf(merged);
    return out;
  }

  std::map<int, mpidbg::Expected<std::vector<std::uint8_t>>> each(const std::vector<RankInfo>& targets,
                                                                  std::string_view handler,
                                                                  const std::vector<std::uint8_t>&) override {
    asked.push_back(ranksOf(targets));
    handlers.emplace_back(handler);
    std::map<int, mpidbg::Expected<std::vector<std::uint8_t>>> out;
    for (const auto& info : targets) out.emplace(info.rank, bytesOf("reply of " + std::to_string(info.rank)));
    return out;
  }

  std::map<int, mpidbg::Expected<void>> post(const std::vector<RankInfo>& targets, std::string_view handler,
                                             const std::vector<std::uint8_t>&) override {
    asked.push_back(ranksOf(targets));
    handlers.emplace_back(handler);
    std::map<int, mpidbg::Expected<void>> out;
    for (const auto& info : targets) out.emplace(info.rank, mpidbg::Expected<void>{});
    return out;
  }

  std::map<int, std::string> endedMeanwhile(const std::map<int, std::string>& missing) override {
    std::map<int, std::string> out;
    for (const auto& [rank, why] : missing)
      if (endedDuring.count(rank)) out[rank] = "has exited with signal 11 (Segmentation fault)";
    return out;
  }

  static std::vector<int> ranksOf(const std::vector<RankInfo>& infos) {
    std::vector<int> out;
    for (const auto& info : infos) out.push_back(info.rank);
    return out;
  }

  std::vector<RankInfo> ranks_;
  bool merge = true;
  bool empty = false;  ///< every rank answers with no record
  std::set<int> silent, endedDuring;
  std::vector<std::vector<int>> asked;
  std::vector<std::string> handlers;
  std::string lastData;
};


TEST_CASE("rank router: sorts ranks into reachable, ended, held, no runtime and not registered",
          "[core][router]") {
  FakeBackend backend;
  RankRouter router(backend);
  const RankSort sorted = router.sort(RankSet::all(6));
  CHECK(FakeBackend::ranksOf(sorted.reachable) == std::vector<int>{0, 1});
  CHECK(sorted.refused == std::map<int, RankReach>{{2, RankReach::HeldByGdb},
                                                   {3, RankReach::Ended},
                                                   {4, RankReach::NoRuntime},
                                                   {5, RankReach::NotRegistered}});
  CHECK(sorted.why.at(2) == "is held by gdb (release it with: gdb detach 2)");
  CHECK(sorted.why.at(3) == "has exited with code 4");
  CHECK(sorted.why.at(4) == std::string(RankRouter::kNoRuntime));
  CHECK(sorted.why.at(5) == "has not registered");
  CHECK(sorted.infos.size() == 5);
  // Only the ranks asked for are sorted; an empty set asks nothing.
  CHECK(router.sort(RankSet::parse("[1,3]", 6).value()).refused == std::map<int, RankReach>{{3, RankReach::Ended}});
  CHECK(router.sort(RankSet{}).infos.empty());
}

TEST_CASE("rank router: an ended rank is ended even while gdb still holds it", "[core][router]") {
  RankInfo info;
  info.rank = 7;
  info.heldByGdb = true;
  info.noRuntime = true;
  CHECK(RankRouter::reachOf(info) == RankReach::HeldByGdb);
  info.life = RankLife::Signaled;
  info.signal = 9;
  CHECK(RankRouter::reachOf(info) == RankReach::Ended);
  info.heldByGdb = false;
  info.life = RankLife::Finalized;
  CHECK(RankRouter::reachOf(info) == RankReach::NoRuntime);
  info.noRuntime = false;
  CHECK(RankRouter::reachOf(info) == RankReach::Reachable);
  CHECK(RankRouter::refusal(RankReach::Reachable, info).empty());
}

TEST_CASE("rank router: ask sends the typed request to the reachable ranks only and decodes by rank",
          "[core][router]") {
  for (const bool merge : {true, false}) {
    DYNAMIC_SECTION((merge ? "merged by the tree" : "rank by rank")) {
      FakeBackend backend;
      backend.merge = merge;
      backend.silent = {1};
      RankRouter router(backend);
      proto::StepRequest step;
      step.count = 3;
      const auto answers = router.ask<proto::ControlReply>(
          RankSet::all(6), ControlRequest{proto::kStepHandler, proto::encode(step)});
      REQUIRE(backend.asked == std::vector<std::vector<int>>{{0, 1}});
      CHECK(backend.handlers.front() == proto::kStepHandler);
      CHECK(backend.lastData == proto::encode(step));
      REQUIRE(answers.replies.size() == 6);
      REQUIRE(answers.replies.at(0).has_value());
      CHECK(answers.replies.at(0)->message == "rank 0 did mpidbg/step");
      CHECK(answers.replies.at(1).error().message == "did not answer: timed out after 3000 ms");
      CHECK(answers.silent == std::map<int, std::string>{{1, "timed out after 3000 ms"}});
      CHECK(answers.replies.at(2).error().message == "is held by gdb (release it with: gdb detach 2)");
      CHECK(answers.replies.at(3).error().message == "has exited with code 4");
      CHECK(answers.replies.at(4).error().message == std::string(RankRouter::kNoRuntime));
      CHECK(answers.replies.at(5).error().message == "has not registered");
      CHECK(answers.unreadable.empty());
    }
  }
}

TEST_CASE("rank router: a rank that ended during the exchange says how, when asked to wait for ends",
          "[core][router]") {
  FakeBackend backend;
  backend.silent = {0, 1};
  backend.endedDuring = {1};
  RankRouter router(backend);
  const auto waited = router.ask<proto::ControlReply>(RankSet::all(2), ControlRequest{proto::kFreezeHandler, ""});
  CHECK(waited.replies.at(0).error().message == "did not answer: timed out after 3000 ms");
  CHECK(waited.replies.at(1).error().message == "has exited with signal 11 (Segmentation fault)");
  const auto quick =
      router.ask<proto::ControlReply>(RankSet::all(2), ControlRequest{proto::kFreezeHandler, ""}, false);
  CHECK(quick.replies.at(1).error().message == "did not answer: timed out after 3000 ms");
}

TEST_CASE("rank router: an unreadable or absent reply is said per rank", "[core][router]") {
  FakeBackend backend;
  RankRouter router(backend);
  // ControlReply records are not RankStatus records: each rank's reply is unreadable.
  backend.merge = false;
  const auto perRank = router.ask<proto::RankStatus>(RankSet::all(2), StatusRequest{});
  CHECK(backend.handlers.back() == proto::kStatusHandler);
  REQUIRE(perRank.unreadable.size() == 2);
  CHECK_THAT(perRank.replies.at(0).error().message, Catch::StartsWith("bad status reply: "));
  // Merged: one unreadable payload (-1) stands for every rank in it.
  backend.merge = true;
  const auto merged = router.ask<proto::RankStatus>(RankSet::all(2), StatusRequest{});
  CHECK(merged.unreadable.count(-1) == 1);
  CHECK_THAT(merged.replies.at(1).error().message, Catch::StartsWith("bad status reply: "));
  // An answer without the rank's record: no reply for the rank.
  backend.empty = true;
  const auto none = router.ask<std::vector<proto::CommState>>(RankSet::all(1), CollectivesRequest{});
  CHECK(none.replies.at(0).error().message == "sent no reply");
}

TEST_CASE("rank router: askEach and collect use the same sorting and words", "[core][router]") {
  FakeBackend backend;
  RankRouter router(backend);
  const auto each = router.askEach(RankSet::all(6), "mpidbg/objects", {});
  REQUIRE(each.size() == 6);
  CHECK(backend.asked.back() == std::vector<int>{0, 1});
  CHECK(std::string(each.at(1)->begin(), each.at(1)->end()) == "reply of 1");
  CHECK(each.at(2).error().message == "rank 2 is held by gdb (release it with: gdb detach 2)");
  CHECK(each.at(3).error().message == "rank 3 has exited with code 4");
  CHECK(each.at(4).error().message == "rank 4 " + std::string(RankRouter::kNoRuntime));
  CHECK(each.at(5).error().message == "rank 5 has not registered");

  backend.silent = {0};
  const auto [text, missing] = router.collect(RankSet::all(6), proto::kEntriesHandler);
  CHECK(backend.asked.back() == std::vector<int>{0, 1});
  CHECK(text.find("rank 1 did mpidbg/entries") != std::string::npos);
  CHECK(missing == std::map<int, std::string>{{0, "timed out after 3000 ms"}});
  // Nothing reachable: nothing sent.
  const auto before = backend.asked.size();
  CHECK(router.collect(RankSet::parse("[2-5]", 6).value(), proto::kEntriesHandler).first.empty());
  CHECK(backend.asked.size() == before);
}

TEST_CASE("rank router over a Charm++ program's PEs (CharmPes): every PE a process, none without runtime",
          "[core][router][charm]") {
  // PEs 0 and 2 attached by pid (for gdb), 2 held by gdb; 1 and 3 known only
  // to the program's CCS server. No link: what is sent fails with "no program".
  Job job;
  REQUIRE(job.addProcess(0, 4, 100, "localhost"));
  REQUIRE(job.addProcess(2, 4, 102, "localhost"));
  job.setHeldByGdb(2, true);
  bool ended = false;
  charm::CharmPes pes(job, charm::CharmProgram{[] { return nullptr; }, [] { return 4; }, [&] { return ended; }});
  RankRouter router(pes);

  const RankSort sorted = router.sort(RankSet::parse("0-5", 6).value());
  CHECK(FakeBackend::ranksOf(sorted.reachable) == std::vector<int>{0, 1, 3});
  CHECK(sorted.reachable.front().pid == 100);  // the Job's entry, noRuntime cleared
  CHECK(sorted.why.at(2) == "is held by gdb (release it with: gdb detach 2)");
  CHECK(sorted.refused.at(4) == RankReach::NotRegistered);  // not a PE of the program
  CHECK(sorted.refused.at(5) == RankReach::NotRegistered);

  const auto each = router.askEach(RankSet::all(4), "debug/converse/status", {});
  REQUIRE(each.size() == 4);
  CHECK(each.at(1).error().message == "no program");
  CHECK(each.at(2).error().message == "rank 2 is held by gdb (release it with: gdb detach 2)");
  const auto posted = pes.post(sorted.reachable, "debug/charm/continue", {});
  REQUIRE(posted.size() == 3);
  CHECK(posted.at(3).error().message == "no program");
  const Gathered gathered = pes.gather(sorted.reachable, "debug/converse/status", {});
  CHECK(gathered.payload.empty());
  CHECK(gathered.missing.size() == 3);

  // Once the program has ended, every PE has (Charm++ reports no end per PE).
  ended = true;
  const RankSort after = router.sort(RankSet::all(4));
  CHECK(after.reachable.empty());
  CHECK(after.refused.at(1) == RankReach::Ended);
  CHECK(after.why.at(3) == "was lost (its process ended without reporting an exit status)");
  CHECK(pes.endedMeanwhile({{1, "timed out"}, {3, "closed"}}) ==
        std::map<int, std::string>{{1, "was lost (its process ended without reporting an exit status)"},
                                   {3, "was lost (its process ended without reporting an exit status)"}});
}

}  // namespace rank_router_test
