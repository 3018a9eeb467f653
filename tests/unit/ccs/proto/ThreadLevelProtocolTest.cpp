// Thread-level records (ccs/proto/ThreadLevelProtocol.hpp), the violation event
// (ccs/proto/RankProtocol.hpp) and the violation breakpoint kind
// (ccs/proto/ControlProtocol.hpp).
#include <catch2/catch.hpp>

#include "ccs/proto/ControlProtocol.hpp"
#include "ccs/proto/RankProtocol.hpp"
#include "ccs/proto/ThreadLevelProtocol.hpp"

using namespace mpidbg::ccs::proto;

TEST_CASE("thread-level records: bytes and round trip of a merged reply", "[ccs][threadlevel]") {
  const std::vector<ThreadLevelInfo> infos{{0, 1, 1, 2, 3}, {5, 3, 3, kThreadLevelDistinctComms, 1}};
  const std::string text = encode(std::span<const ThreadLevelInfo>(infos));
  CHECK(text ==
        "rank=0\nrequested=1\nprovided=1\nrequired=2\nviolations=3\n--\n"
        "rank=5\nrequested=3\nprovided=3\nrequired=4\nviolations=1\n--\n");
  auto back = decodeThreadLevels(text);
  REQUIRE(back);
  REQUIRE(back->size() == 2);
  CHECK((*back)[0].rank == 0);
  CHECK((*back)[0].requested == 1);
  CHECK((*back)[0].provided == 1);
  CHECK((*back)[0].required == 2);
  CHECK((*back)[0].violations == 3);
  CHECK((*back)[1].rank == 5);
  CHECK((*back)[1].required == kThreadLevelDistinctComms);
  auto none = decodeThreadLevels("");
  REQUIRE(none);
  CHECK(none->empty());
}

TEST_CASE("thread-level records: malformed input is an error naming the key", "[ccs][threadlevel]") {
  const struct {
    const char* input;
    const char* error;
  } rows[] = {
      {"rank=0\nrequested=1\nprovided=1\nrequired=2\n--\n", "missing key 'violations'"},
      {"rank=0\nrequested=9\nprovided=1\nrequired=2\nviolations=0\n--\n", "'requested' must be between 0 and 3"},
      {"rank=0\nrequested=1\nprovided=-1\nrequired=2\nviolations=0\n--\n", "'provided' must be between 0 and 3"},
      {"rank=0\nrequested=1\nprovided=1\nrequired=5\nviolations=0\n--\n", "'required' must be between 0 and 4"},
      {"rank=x\nrequested=1\nprovided=1\nrequired=2\nviolations=0\n--\n", "rank"},
      {"rank=0\nrank=1\n--\n", "duplicate"},
  };
  for (const auto& row : rows) {
    INFO(row.input);
    auto r = decodeThreadLevels(row.input);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains(row.error));
  }
}

TEST_CASE("thread level names", "[ccs][threadlevel]") {
  const struct {
    int level;
    const char* name;
  } rows[] = {{0, "MPI_THREAD_SINGLE"},
              {1, "MPI_THREAD_FUNNELED"},
              {2, "MPI_THREAD_SERIALIZED"},
              {3, "MPI_THREAD_MULTIPLE"},
              {4, "MPI_THREAD_MULTIPLE and distinct communicators"},
              {7, "level 7"}};
  for (const auto& row : rows) CHECK(threadLevelName(row.level) == row.name);
}

TEST_CASE("violation event round trip", "[ccs][threadlevel]") {
  Event e;
  e.kind = Event::Kind::Violation;
  e.code = 2;
  e.where = "MPI_Allreduce(comm=MPI_COMM_WORLD)";
  e.text = "MPI_THREAD_FUNNELED violated: thread 12 (a) called MPI_Allreduce(comm=MPI_COMM_WORLD), but MPI was "
           "initialized by thread 11 (a); needs MPI_THREAD_SERIALIZED";
  const std::string text = encode(e);
  CHECK(text.starts_with("kind=violation\ncode=2\nwhere=MPI_Allreduce(comm=MPI_COMM_WORLD)\n"));
  auto back = decodeEvent(text);
  REQUIRE(back);
  CHECK(back->kind == Event::Kind::Violation);
  CHECK(back->code == 2);
  CHECK(back->where == e.where);
  CHECK(back->text == e.text);
  CHECK_FALSE(decodeEvent("kind=violation\nwhere=x\n"));  // code is required
}

TEST_CASE("violation breakpoint kind round trip", "[ccs][threadlevel]") {
  Breakpoint b;
  b.id = 4;
  b.kind = BreakKind::Violation;
  b.target = "violation";
  CHECK(encode(b) == "id=4\nkind=violation\ntarget=violation\ncondition=\nhit=0\nenabled=1\n");
  auto back = decodeBreakpoint(encode(b));
  REQUIRE(back);
  CHECK(back->kind == BreakKind::Violation);
  CHECK(breakKindName(BreakKind::Violation) == "violation");
  auto bad = decodeBreakpoint("id=4\nkind=thread\ntarget=x\nhit=0\nenabled=1\n");
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::Contains("mpi, entry or violation"));
}
