// Execution-control records (ccs/proto/ControlProtocol.hpp) and the control events
// and status field added to ccs/proto/RankProtocol.hpp.
#include <catch2/catch.hpp>

#include "ccs/proto/ControlProtocol.hpp"
#include "ccs/proto/RankProtocol.hpp"

using namespace mpidbg::ccs::proto;

TEST_CASE("breakpoint record bytes and round trip", "[ccs][control]") {
  Breakpoint b;
  b.id = 3;
  b.kind = BreakKind::Mpi;
  b.target = "MPI_Allreduce";
  b.condition = "comm=WORLD && count > 1\\";
  b.hit = 42;
  b.enabled = true;
  CHECK(encode(b) ==
        "id=3\nkind=mpi\ntarget=MPI_Allreduce\ncondition=comm=WORLD && count > 1\\\\\nhit=42\nenabled=1\n");
  auto back = decodeBreakpoint(encode(b));
  REQUIRE(back);
  CHECK(back->id == 3);
  CHECK(back->kind == BreakKind::Mpi);
  CHECK(back->target == "MPI_Allreduce");
  CHECK(back->condition == b.condition);
  CHECK(back->hit == 42);
  CHECK(back->enabled);

  Breakpoint e{7, BreakKind::Entry, "solver::step", "", 0, false, 9, 5};
  std::vector<Breakpoint> list{b, e};
  const std::string listed = encode(std::span<const Breakpoint>(list));
  CHECK(listed.ends_with("--\nid=7\nkind=entry\ntarget=solver::step\ncondition=\nhit=0\nenabled=0\nhits=9\nrank=5\n--\n"));
  auto all = decodeBreakpoints(listed);
  REQUIRE(all);
  REQUIRE(all->size() == 2);
  CHECK((*all)[1].kind == BreakKind::Entry);
  CHECK((*all)[1].hits == 9);
  CHECK((*all)[1].rank == 5);
  CHECK((*all)[0].rank == -1);
  CHECK_FALSE((*all)[1].enabled);
  CHECK(decodeBreakpoints("")->empty());
}

TEST_CASE("malformed breakpoint records", "[ccs][control]") {
  struct Row {
    std::string text;
    std::string error;
  };
  const Row rows[] = {
      {"", "bad breakpoint: record is missing key 'id'"},
      {"kind=mpi\ntarget=MPI_Send\nhit=0\nenabled=1\n", "bad breakpoint: record is missing key 'id'"},
      {"id=0\nkind=mpi\ntarget=MPI_Send\nhit=0\nenabled=1\n", "bad breakpoint: key 'id' must be > 0"},
      {"id=x\nkind=mpi\ntarget=MPI_Send\nhit=0\nenabled=1\n", "bad breakpoint: key 'id' has a bad integer value 'x'"},
      {"id=1\nkind=func\ntarget=MPI_Send\nhit=0\nenabled=1\n",
       "bad breakpoint: key 'kind' must be mpi, entry or violation, not 'func'"},
      {"id=1\nkind=mpi\ntarget=\nhit=0\nenabled=1\n", "bad breakpoint: key 'target' is empty"},
      {"id=1\nkind=mpi\ntarget=MPI_Send\nhit=-1\nenabled=1\n", "bad breakpoint: key 'hit' has a bad integer value '-1'"},
      {"id=1\nkind=mpi\ntarget=MPI_Send\nhit=0\nenabled=2\n", "bad breakpoint: key 'enabled' must be 0 or 1"},
      {"id=1\nid=2\n", "bad breakpoint: duplicate key 'id' in record"},
      {"id=1\nkind=mpi\ntarget=MPI_Send\ncondition=a\\q\nhit=0\nenabled=1\n",
       "bad breakpoint: bad escape in value of key 'condition'"},
      {"garbage\n", "bad breakpoint: malformed record line 'garbage': no '='"},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    auto b = decodeBreakpoint(row.text);
    REQUIRE_FALSE(b);
    CHECK(b.error().message == row.error);
  }
  std::string longTarget = "id=1\nkind=entry\nhit=0\nenabled=1\ntarget=" + std::string(300, 'x') + "\n";
  CHECK(decodeBreakpoint(longTarget).error().message == "bad breakpoint: key 'target' is longer than 256 bytes");
  std::string longCondition = "id=1\nkind=entry\ntarget=x\nhit=0\nenabled=1\ncondition=" + std::string(1025, ' ') + "\n";
  CHECK(decodeBreakpoint(longCondition).error().message ==
        "bad breakpoint: key 'condition' is longer than 1024 bytes");
}

TEST_CASE("small control requests", "[ccs][control]") {
  CHECK(encode(BreakpointEnable{4, false}) == "id=4\nenabled=0\n");
  CHECK(encode(BreakpointRef{4}) == "id=4\n");
  CHECK(decodeBreakpointRef("id=4\n")->id == 4);
  CHECK(decodeBreakpointEnable("id=4\n").error().message ==
        "bad breakpoint reference: record is missing key 'enabled'");
  CHECK_FALSE(decodeBreakpointEnable("id=4\nenabled=0\n")->enabled);

  CHECK(encode(FreezeRequest{true}) == "now=1\n");
  CHECK_FALSE(decodeFreezeRequest("")->now);
  CHECK(decodeFreezeRequest("now=1\n")->now);
  CHECK(decodeFreezeRequest("now=yes\n").error().message ==
        "bad freeze request: key 'now' has a bad integer value 'yes'");

  CHECK(encode(StepRequest{5}) == "count=5\n");
  CHECK(decodeStepRequest("")->count == 1);
  CHECK(decodeStepRequest("count=12\n")->count == 12);
  CHECK(decodeStepRequest("count=0\n").error().message ==
        "bad step request: key 'count' must be between 1 and 1000000000");
  CHECK_FALSE(decodeStepRequest("count=1000000001\n"));
}

TEST_CASE("entries and control replies", "[ccs][control]") {
  std::vector<EntryInfo> entries{{"solver::step", 12, 3}, {"io", 1, -1}};
  const std::string text = encode(std::span<const EntryInfo>(entries));
  CHECK(text == "name=solver::step\nhits=12\nrank=3\n--\nname=io\nhits=1\n--\n");
  auto back = decodeEntries(text);
  REQUIRE(back);
  REQUIRE(back->size() == 2);
  CHECK((*back)[0].name == "solver::step");
  CHECK((*back)[1].hits == 1);
  CHECK((*back)[0].rank == 3);
  CHECK(decodeEntries("")->empty());
  CHECK(decodeEntries("name=x\n").error().message == "bad entry record 0: record is missing key 'hits'");

  CHECK(encode(ControlReply{true, {}, -1}) == "result=ok\n--\n");
  CHECK(encode(ControlReply{true, "already stopped", 2}) == "result=ok\nmessage=already stopped\nrank=2\n--\n");
  CHECK(encode(ControlReply{false, "no breakpoint 9", 0}) == "result=error\nmessage=no breakpoint 9\nrank=0\n--\n");
  auto merged = decodeControlReplies(encode(ControlReply{true, {}, 0}) + encode(ControlReply{false, "no breakpoint 9", 1}));
  REQUIRE(merged);
  REQUIRE(merged->size() == 2);
  CHECK((*merged)[0].ok);
  CHECK((*merged)[1].rank == 1);
  CHECK((*merged)[1].message == "no breakpoint 9");
  CHECK(decodeControlReplies("")->empty());
  CHECK(decodeControlReplies("result=ok\n--\nresult=bad\n--\n").error().message ==
        "bad control reply 1: key 'result' must be error or ok, not 'bad'");
  auto error = decodeControlReply("result=error\nmessage=unknown MPI function 'MPI_Bcats'\n");
  REQUIRE(error);
  CHECK_FALSE(error->ok);
  CHECK(error->message == "unknown MPI function 'MPI_Bcats'");
  CHECK(decodeControlReply("result=maybe\n").error().message ==
        "bad control reply: key 'result' must be error or ok, not 'maybe'");
  CHECK(decodeControlReply("result=error\n").error().message == "bad control reply: an error reply has no message");
  CHECK_FALSE(decodeControlReply(""));
}

TEST_CASE("breakpoint and stopped events, status stop text", "[ccs][control]") {
  Event hit;
  hit.kind = Event::Kind::Breakpoint;
  hit.id = 1;
  hit.where = "MPI_Bcast(root=0, count=16, comm=MPI_COMM_WORLD) call #3";
  CHECK(encode(hit) == "kind=breakpoint\nid=1\nwhere=MPI_Bcast(root=0, count=16, comm=MPI_COMM_WORLD) call #3\n");
  auto back = decodeEvent(encode(hit));
  REQUIRE(back);
  CHECK(back->kind == Event::Kind::Breakpoint);
  CHECK(back->id == 1);
  CHECK(back->where == hit.where);
  CHECK(decodeEvent("kind=breakpoint\nwhere=x\n").error().message == "bad event: record is missing key 'id'");

  Event stopped;
  stopped.kind = Event::Kind::Stopped;
  stopped.where = "compute (freeze --now)";
  stopped.text = "freeze --now";
  CHECK(encode(stopped) == "kind=stopped\nwhere=compute (freeze --now)\ntext=freeze --now\n");
  auto s = decodeEvent(encode(stopped));
  REQUIRE(s);
  CHECK(s->kind == Event::Kind::Stopped);
  CHECK(s->where == "compute (freeze --now)");
  CHECK(s->text == "freeze --now");
  CHECK_FALSE(decodeEvent("kind=stopped\n"));

  RankStatus status;
  status.rank = 2;
  status.size = 4;
  status.state = RankState::Frozen;
  status.stop = "breakpoint 1 at MPI_Send(dest=3, tag=0, count=1, comm=MPI_COMM_WORLD)";
  auto st = decodeRankStatus(encode(status));
  REQUIRE(st);
  CHECK(st->stop == status.stop);
  CHECK(encode(status).find("stop=breakpoint 1 at MPI_Send(") != std::string::npos);
  status.stop.clear();
  CHECK(encode(status).find("stop=") == std::string::npos);
  CHECK(decodeRankStatus("rank=0\nsize=1\nstate=running\nmpicalls=0\n")->stop.empty());
}
