// ControlService over a fake channel: breakpoint numbers, the table kept from
// the ranks' outcomes, and the requests encoded (and replies decoded) by the
// service rather than by the commands.
#include <catch2/catch.hpp>

#include <vector>

#include "debugger/core/ControlService.hpp"

namespace control_service_test {

using namespace mpidbg::core;
namespace proto = mpidbg::ccs::proto;

/// One request the service sent.
struct Sent {
  RankSet ranks;
  std::string handler;
  std::string data;
};

/// A channel that records every request and answers with `outcome` for
/// each rank asked (rank 2 refused, as a rank gdb holds); lists come from
/// `listReply`, with rank 3 missing.
struct FakeChannel {
  std::vector<Sent> sent;
  std::string listReply;
  bool acceptAll = true;

  ControlChannel channel() {
    ControlChannel c;
    c.send = [this](const RankSet& ranks, std::string_view handler, const std::string& data) {
      sent.push_back({ranks, std::string(handler), data});
      ControlOutcomes out;
      for (int r : ranks.toVector()) {
        if (r == 2) out[r] = {false, "is held by gdb", true};
        else out[r] = {acceptAll, acceptAll ? "" : "refused"};
      }
      return out;
    };
    c.collect = [this](const RankSet& ranks, std::string_view handler) {
      sent.push_back({ranks, std::string(handler), ""});
      return std::pair<std::string, std::map<int, std::string>>{listReply, {{3, "did not answer"}}};
    };
    return c;
  }
};

TEST_CASE("ControlService numbers breakpoints and keeps the ranks that accepted them", "[control]") {
  FakeChannel fake;
  ControlService service(fake.channel());
  CHECK(service.nextId() == 1);
  proto::Breakpoint spec;
  spec.target = "MPI_Send";
  spec.condition = "dest == 1";
  const auto first = service.set(RankSet::range(0, 3), spec);
  CHECK(first.spec.id == 1);
  CHECK(first.ranks == RankSet::parse("0,1,3", 4).value());
  CHECK(first.outcomes.size() == 4);
  CHECK(first.outcomes.at(2).skipped);
  REQUIRE(fake.sent.size() == 1);
  CHECK(fake.sent[0].handler == proto::kBreakSetHandler);
  proto::Breakpoint sentSpec = spec;
  sentSpec.id = 1;
  CHECK(fake.sent[0].data == proto::encode(sentSpec));
  REQUIRE(service.find(1) != nullptr);
  CHECK(service.find(1)->ranks == first.ranks);
  CHECK(service.find(1)->spec.target == "MPI_Send");

  // No rank accepts: the number is used, nothing is recorded.
  fake.acceptAll = false;
  const auto second = service.set(RankSet::range(0, 1), spec);
  CHECK(second.spec.id == 2);
  CHECK(second.ranks.empty());
  CHECK(service.find(2) == nullptr);
  CHECK(service.nextId() == 3);
  CHECK(service.breakpoints().size() == 1);
}

TEST_CASE("ControlService deletes, enables and disables by number", "[control]") {
  FakeChannel fake;
  ControlService service(fake.channel());
  proto::Breakpoint spec;
  spec.target = "MPI_Bcast";
  service.set(RankSet::range(0, 1), spec);

  auto missing = service.remove(7);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().message == "no breakpoint 7");
  CHECK_FALSE(service.setEnabled(7, false).has_value());
  CHECK(fake.sent.size() == 1);  // nothing sent for an unknown number

  auto disabled = service.setEnabled(1, false);
  REQUIRE(disabled.has_value());
  CHECK(disabled->size() == 2);
  CHECK_FALSE(service.find(1)->spec.enabled);
  CHECK(fake.sent.back().handler == proto::kBreakEnableHandler);
  CHECK(fake.sent.back().data == "id=1\nenabled=0\n");
  CHECK(fake.sent.back().ranks == RankSet::range(0, 1));

  // Recorded whatever the ranks answer.
  fake.acceptAll = false;
  REQUIRE(service.setEnabled(1, true).has_value());
  CHECK(service.find(1)->spec.enabled);

  auto deleted = service.remove(1);
  REQUIRE(deleted.has_value());
  CHECK_FALSE(deleted->at(0).ok);
  CHECK(service.find(1) == nullptr);
  CHECK(fake.sent.back().handler == proto::kBreakDeleteHandler);
  CHECK(fake.sent.back().data == "id=1\n");
}

TEST_CASE("ControlService reads hits and entries from the ranks' lists", "[control]") {
  FakeChannel fake;
  ControlService service(fake.channel());
  std::vector<proto::Breakpoint> listed(3);
  listed[0].id = 1, listed[0].target = "MPI_Send", listed[0].rank = 0, listed[0].hits = 4;
  listed[1].id = 1, listed[1].target = "MPI_Send", listed[1].rank = 1, listed[1].hits = 5;
  listed[2].id = 2, listed[2].target = "MPI_Recv", listed[2].rank = 1, listed[2].hits = 0;
  fake.listReply = proto::encode(std::span<const proto::Breakpoint>(listed));
  const auto hits = service.hits(RankSet::range(0, 3));
  CHECK(fake.sent.back().handler == proto::kBreakListHandler);
  REQUIRE(hits.size() == 2);
  CHECK(hits.at(1).at(0) == 4);
  CHECK(hits.at(1).at(1) == 5);
  CHECK(hits.at(2).at(1) == 0);
  fake.listReply = "garbage";
  CHECK(service.hits(RankSet::range(0, 3)).empty());

  std::vector<proto::EntryInfo> reached(1);
  reached[0].name = "solver";
  reached[0].hits = 2;
  reached[0].rank = 1;
  fake.listReply = proto::encode(std::span<const proto::EntryInfo>(reached));
  auto entries = service.entries(RankSet::range(0, 3));
  CHECK(fake.sent.back().handler == proto::kEntriesHandler);
  REQUIRE(entries.has_value());
  REQUIRE(entries->items.size() == 1);
  CHECK(entries->items[0].name == "solver");
  CHECK(entries->missing.at(3) == "did not answer");
  fake.listReply = "garbage";
  CHECK_FALSE(service.entries(RankSet::range(0, 3)).has_value());

  // The thread levels and the record/replay state come the same way: the
  // service names the handler and decodes; the commands get typed items.
  std::vector<proto::ThreadLevelInfo> levels(2);
  levels[0].rank = 0;
  levels[0].provided = 3;
  levels[1].rank = 1;
  levels[1].violations = 2;
  fake.listReply = proto::encode(std::span<const proto::ThreadLevelInfo>(levels));
  auto threadLevels = service.threadLevels(RankSet::range(0, 3));
  CHECK(fake.sent.back().handler == proto::kThreadLevelHandler);
  REQUIRE(threadLevels.has_value());
  REQUIRE(threadLevels->items.size() == 2);
  CHECK(threadLevels->items[0].provided == 3);
  CHECK(threadLevels->items[1].violations == 2);
  CHECK(threadLevels->missing.at(3) == "did not answer");
  std::vector<proto::RecordInfo> records(1);
  records[0].rank = 2;
  records[0].recording = true;
  records[0].recordPath = "/tmp/rec/2.log";
  fake.listReply = proto::encode(std::span<const proto::RecordInfo>(records));
  auto recordReport = service.records(RankSet::range(0, 3));
  CHECK(fake.sent.back().handler == proto::kRecordHandler);
  REQUIRE(recordReport.has_value());
  REQUIRE(recordReport->items.size() == 1);
  CHECK(recordReport->items[0].recordPath == "/tmp/rec/2.log");
  fake.listReply = "garbage";
  CHECK_FALSE(service.threadLevels(RankSet::range(0, 3)).has_value());
  CHECK_FALSE(service.records(RankSet::range(0, 3)).has_value());
}

TEST_CASE("ControlService encodes freeze and step", "[control]") {
  FakeChannel fake;
  ControlService service(fake.channel());
  const auto frozen = service.freeze(RankSet::range(0, 1), true);
  CHECK(frozen.size() == 2);
  proto::FreezeRequest freeze;
  freeze.now = true;
  CHECK(fake.sent.back().handler == proto::kFreezeHandler);
  CHECK(fake.sent.back().data == proto::encode(freeze));
  service.step(RankSet::range(1, 1), 3);
  proto::StepRequest step;
  step.count = 3;
  CHECK(fake.sent.back().handler == proto::kStepHandler);
  CHECK(fake.sent.back().data == proto::encode(step));
  CHECK(fake.sent.back().ranks == RankSet::range(1, 1));
}

TEST_CASE("ControlService restores a kept table and numbers after it", "[control]") {
  FakeChannel fake;
  ControlService service(fake.channel());
  service.restore({5, RankSet::range(0, 3), {}});
  CHECK(service.nextId() == 6);
  service.restore({2, RankSet::range(0, 1), {}});
  CHECK(service.nextId() == 6);
  CHECK(service.breakpoints().size() == 2);
  CHECK(fake.sent.empty());
  proto::Breakpoint spec;
  spec.target = "MPI_Send";
  CHECK(service.set(RankSet::range(0, 0), spec).spec.id == 6);
  service.clear();
  CHECK(service.breakpoints().empty());
  CHECK(service.nextId() == 7);
}

}  // namespace control_service_test
