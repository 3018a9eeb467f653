// mpidbg's runtime <-> front end text records.
#include <catch2/catch.hpp>

#include "ccs/proto/RankProtocol.hpp"

using namespace mpidbg::ccs::proto;

namespace {

const std::string kRankNasty = "a=b\\c\nd\\n==\n--";

MpiCall sampleCall() {
  MpiCall c;
  c.function = "MPI_Recv";
  c.peerRole = "source";
  c.peer = -1;
  c.hasTag = true;
  c.tag = -1;
  c.comm = 0x44000000;
  c.commName = kRankNasty;
  c.collCall = 0;
  c.elapsedUs = 18446744073709551615ull;
  c.seq = 42;
  return c;
}

}  // namespace

TEST_CASE("collective and state names", "[ccs][proto]") {
  CHECK(collName(CollClass::Barrier) == "MPI_Barrier");
  CHECK(collName(CollClass::ReduceScatter) == "MPI_Reduce_scatter");
  CHECK(collName(CollClass::Scatterv) == "MPI_Scatterv");
  CHECK(stateName(RankState::InMpi) == "in-mpi");
  CHECK(stateName(RankState::Finalized) == "finalized");
}

TEST_CASE("rank status round trip", "[ccs][proto]") {
  RankStatus s;
  s.rank = 7;
  s.size = 8;
  s.state = RankState::InMpi;
  s.mpiCalls = 123456789012ull;
  SECTION("without a call") {
    auto back = decodeRankStatus(encode(s));
    REQUIRE(back.has_value());
    CHECK(back->rank == 7);
    CHECK(back->size == 8);
    CHECK(back->state == RankState::InMpi);
    CHECK(back->mpiCalls == 123456789012ull);
    CHECK_FALSE(back->call.has_value());
    CHECK(back->stopNumber == 0);
    CHECK(encode(s).find("stopno") == std::string::npos);
  }
  SECTION("stopped, with the stop's number") {
    s.state = RankState::Frozen;
    s.stop = "breakpoint 1 at MPI_Bcast(root=0, count=16, comm=MPI_COMM_WORLD) call #3";
    s.stopNumber = 4294967295u;
    auto back = decodeRankStatus(encode(s));
    REQUIRE(back.has_value());
    CHECK(back->stop == s.stop);
    CHECK(back->stopNumber == 4294967295u);
    s.stopNumber = 0;
    CHECK_FALSE(decodeRankStatus(encode(s) + "stopno=x\n").has_value());  // not a number
  }
  SECTION("with a call and escapes") {
    s.call = sampleCall();
    std::string text = encode(s);
    CHECK(text.find("call.function=MPI_Recv\n") != std::string::npos);
    auto back = decodeRankStatus(text);
    REQUIRE(back.has_value());
    REQUIRE(back->call.has_value());
    const MpiCall& c = *back->call;
    CHECK(c.function == "MPI_Recv");
    CHECK(c.peerRole == "source");
    CHECK(c.peer == -1);
    CHECK(c.hasTag);
    CHECK(c.tag == -1);
    CHECK(c.comm == 0x44000000);
    CHECK(c.commName == kRankNasty);
    CHECK(c.elapsedUs == 18446744073709551615ull);
    CHECK(c.seq == 42);
    CHECK_FALSE(c.polling);
    CHECK(text.find("call.polling") == std::string::npos);
  }
  SECTION("a polling rank between two tests") {
    MpiCall c;
    c.function = "MPI_Testall";
    c.elapsedUs = 4000000;
    c.polling = true;
    c.sinceLastUs = 1234;
    s.state = RankState::Running;
    s.call = c;
    const std::string text = encode(s);
    CHECK(text.find("call.polling=1\n") != std::string::npos);
    auto back = decodeRankStatus(text);
    REQUIRE((back && back->call));
    CHECK(back->state == RankState::Running);
    CHECK(back->call->polling);
    CHECK(back->call->sinceLastUs == 1234);
    CHECK(back->call->elapsedUs == 4000000);
    // call.polling without call.sincelastus is malformed.
    std::string cut = text;
    const std::size_t at = cut.find("call.sincelastus=");
    REQUIRE(at != std::string::npos);
    cut.erase(at, cut.find('\n', at) + 1 - at);
    CHECK_FALSE(decodeRankStatus(cut).has_value());
  }
  SECTION("without a tag") {
    MpiCall c = sampleCall();
    c.hasTag = false;
    c.function = "MPI_Barrier";
    c.peerRole = "";
    c.collCall = 3;
    s.call = c;
    auto back = decodeRankStatus(encode(s));
    REQUIRE((back && back->call));
    CHECK_FALSE(back->call->hasTag);
    CHECK(back->call->peerRole.empty());
    CHECK(back->call->collCall == 3);
  }
  SECTION("unknown keys are ignored") {
    auto back = decodeRankStatus("future=1\n" + encode(s) + "another.key=x=y\n");
    REQUIRE(back.has_value());
    CHECK(back->rank == 7);
  }
}

TEST_CASE("communicator states round trip", "[ccs][proto]") {
  std::vector<CommState> states(3);
  for (std::size_t i = 0; i < states.size(); ++i) {
    CommState& c = states[i];
    c.handle = 0x84000000u + i;
    c.rootWorldRank = static_cast<std::int32_t>(i);
    c.size = 4;
    c.localRank = 1;
    c.name = i == 1 ? kRankNasty : "MPI_COMM_WORLD";
    for (std::size_t k = 0; k < kCollClassCount; ++k) {
      c.counts[k] = k * 1000 + i;
      c.active[k] = (k + i) % 3 == 0;
    }
  }
  std::string text = encode(states);
  CHECK(text.find("counts=0,1000,2000,") != std::string::npos);
  auto back = decodeCommStates(text);
  REQUIRE(back.has_value());
  REQUIRE(back->size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK((*back)[i].handle == states[i].handle);
    CHECK((*back)[i].rootWorldRank == states[i].rootWorldRank);
    CHECK((*back)[i].size == 4);
    CHECK((*back)[i].localRank == 1);
    CHECK((*back)[i].name == states[i].name);
    CHECK((*back)[i].counts == states[i].counts);
    CHECK((*back)[i].active == states[i].active);
  }
  auto none = decodeCommStates(encode(std::span<const CommState>{}));
  REQUIRE(none.has_value());
  CHECK(none->empty());
}

TEST_CASE("a communicator's uid travels when known and reads as 0 when absent", "[ccs][proto]") {
  std::vector<CommState> states(2);
  states[0].handle = 0x84000005;
  states[0].uid = 0xaf4a23f445ac95e2ull;
  states[0].size = 3;
  states[1].handle = 0x84000003;
  states[1].size = 3;
  const std::string text = encode(states);
  CHECK(text.find("uid=") != std::string::npos);
  auto back = decodeCommStates(text);
  REQUIRE(back.has_value());
  REQUIRE(back->size() == 2);
  CHECK((*back)[0].uid == 0xaf4a23f445ac95e2ull);
  CHECK((*back)[1].uid == 0);
  // One communicator by uid whatever the handles; by (root, handle, size) without one.
  CommState other = (*back)[0];
  other.handle = 0x84000003;
  CHECK(identityOf(other) == identityOf((*back)[0]));
  CommState plain = (*back)[1];
  plain.handle = 0x84000005;
  CHECK_FALSE(identityOf(plain) == identityOf((*back)[1]));
}

TEST_CASE("registration round trip", "[ccs][proto]") {
  Registration r;
  r.rank = 3;
  r.size = 16;
  r.host = "node-7";
  r.pid = 4242;
  r.port = 65535;
  r.mpiLibrary = "MPICH Version:\t4.0.2\nMPICH Release date: ...";
  r.threadLevel = 3;
  r.mac = "00ff";
  std::string withoutMac = encode(r, false);
  CHECK(withoutMac.find("mac=") == std::string::npos);
  CHECK(withoutMac.starts_with("version=1\n"));
  auto back = decodeRegistration(encode(r));
  REQUIRE(back.has_value());
  CHECK(back->version == 1);
  CHECK(back->rank == 3);
  CHECK(back->size == 16);
  CHECK(back->host == "node-7");
  CHECK(back->pid == 4242);
  CHECK(back->port == 65535);
  CHECK(back->mpiLibrary == r.mpiLibrary);
  CHECK(back->threadLevel == 3);
  CHECK(back->mac == "00ff");
  CHECK(encode(*back, false) == withoutMac);
}

TEST_CASE("event round trips", "[ccs][proto]") {
  std::vector<Event> events(5);
  events[4].kind = Event::Kind::Notice;  // a runtime diagnostic: text only
  events[4].text = kRankNasty;
  events[0].kind = Event::Kind::Finalized;
  events[1].kind = Event::Kind::Exited;
  events[1].code = 3;
  events[2].kind = Event::Kind::Signal;
  events[2].signal = 11;
  events[3].kind = Event::Kind::Abort;
  events[3].code = -1;
  events[3].text = kRankNasty;
  for (const Event& e : events) {
    auto back = decodeEvent(encode(e));
    REQUIRE(back.has_value());
    CHECK(back->kind == e.kind);
    CHECK(back->code == e.code);
    CHECK(back->signal == e.signal);
    CHECK(back->text == e.text);
  }
}

TEST_CASE("stop events carry their stop number; a continue quotes the ones seen", "[ccs][proto]") {
  Event hit;
  hit.kind = Event::Kind::Breakpoint;
  hit.id = 2;
  hit.where = "MPI_Send(dest=3, tag=0, count=1, comm=MPI_COMM_WORLD)";
  hit.stop = 7;
  auto back = decodeEvent(encode(hit));
  REQUIRE(back.has_value());
  CHECK(back->stop == 7);
  CHECK(back->id == 2);
  // An event without the key (an older runtime) numbers no stop.
  auto old = decodeEvent("kind=breakpoint\nid=1\nwhere=entry x\n");
  REQUIRE(old.has_value());
  CHECK(old->stop == 0);

  ContinueRequest request;
  request.seen = {{0, 0}, {2, 7}, {63, 4294967295u}};
  const std::string text = encode(request);
  CHECK(text == "seen=0:0,2:7,63:4294967295\n");
  auto decoded = decodeContinueRequest(text);
  REQUIRE(decoded.has_value());
  CHECK(decoded->seen == request.seen);
  auto none = decodeContinueRequest("seen=\n");
  REQUIRE(none.has_value());
  CHECK(none->seen.empty());

  for (const char* bad : {"", "seen=1\n", "seen=1:\n", "seen=a:1\n", "seen=1:-2\n", "seen=1:2,\n",
                          "stops=1:2\n", "seen=1:99999999999\n"}) {
    INFO(bad);
    CHECK_FALSE(decodeContinueRequest(bad).has_value());
  }
  CHECK(decodeContinueRequest("seen=1\n").error().message == "bad continue request: key 'seen': '1' is not KEY:VALUE");
  CHECK(decodeContinueRequest("seen=2:1,\n").error().message ==
        "bad continue request: key 'seen': '' is not KEY:VALUE");
  // A rank named twice keeps its last stop.
  REQUIRE(decodeContinueRequest("seen=2:1,2:5\n").has_value());
  CHECK(decodeContinueRequest("seen=2:1,2:5\n")->seen == std::map<std::int32_t, std::uint32_t>{{2, 5}});
}

TEST_CASE("hostile record text gives errors", "[ccs][proto]") {
  struct Row {
    const char* what;
    std::string text;
    const char* mention;
  };
  const std::string good = "rank=1\nsize=2\nstate=running\nmpicalls=0\n";
  const std::vector<Row> rows = {
      {"empty", "", "expected one record"},
      {"garbage", std::string("\x01\xff garbage", 10), "no '='"},
      {"missing key", "rank=1\nsize=2\nmpicalls=0\n", "'state'"},
      {"missing call key", good + "call.function=MPI_Send\n", "'call.peerrole'"},
      {"bad integer", "rank=one\nsize=2\nstate=running\nmpicalls=0\n", "'rank'"},
      {"huge integer", "rank=99999999999999999999\nsize=2\nstate=running\nmpicalls=0\n", "'rank'"},
      {"int32 overflow", "rank=2147483648\nsize=2\nstate=running\nmpicalls=0\n", "'rank'"},
      {"negative unsigned", "rank=1\nsize=2\nstate=running\nmpicalls=-1\n", "'mpicalls'"},
      {"trailing junk", "rank=1 \nsize=2\nstate=running\nmpicalls=0\n", "'rank'"},
      {"unknown state", "rank=1\nsize=2\nstate=dancing\nmpicalls=0\n", "'state'"},
      {"bad escape", good + "x=\\t\n", "escape"},
      {"dangling backslash", good + "x=\\", "escape"},
      {"empty key", good + "=1\n", "empty key"},
      {"duplicate key", good + "rank=2\n", "duplicate"},
      {"two records", good + "--\n" + good, "expected one record"},
  };
  for (const Row& row : rows) {
    SECTION(row.what) {
      auto decoded = decodeRankStatus(row.text);
      REQUIRE_FALSE(decoded.has_value());
      CHECK_THAT(decoded.error().message, Catch::Contains(row.mention));
    }
  }
  SECTION("communicator lists") {
    std::string base = "handle=1\nroot=0\nsize=1\nrank=0\nname=w\n";
    std::string active = "active=0,0,0,0,0,0,0,0,0,0,0,0,0,0\n";
    CHECK_FALSE(decodeCommStates(base + "counts=1,2\n" + active).has_value());
    CHECK_FALSE(decodeCommStates(base + "counts=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n" + active)
                    .has_value());
    CHECK_FALSE(
        decodeCommStates(base + "counts=1,,3,4,5,6,7,8,9,10,11,12,13,14\n" + active).has_value());
    CHECK_FALSE(decodeCommStates(base + "counts=0,0,0,0,0,0,0,0,0,0,0,0,0,0\n" +
                                 "active=0,2,0,0,0,0,0,0,0,0,0,0,0,0\n")
                    .has_value());
    auto missing = decodeCommStates(base);
    REQUIRE_FALSE(missing.has_value());
    CHECK_THAT(missing.error().message, Catch::Contains("'counts'"));
  }
  SECTION("events and registrations") {
    CHECK_FALSE(decodeEvent("kind=exploded\n").has_value());
    CHECK_FALSE(decodeEvent("kind=exited\n").has_value());
    CHECK_FALSE(decodeEvent("kind=signal\nsignal=x\n").has_value());
    auto reg = decodeRegistration(
        "version=1\nrank=0\nsize=1\nhost=h\npid=1\nport=70000\n"
        "mpi=m\nthreadlevel=0\n");
    REQUIRE_FALSE(reg.has_value());
    CHECK_THAT(reg.error().message, Catch::Contains("'port'"));
  }
  SECTION("random bytes never crash the decoders") {
    std::uint32_t seed = 12345;
    for (int round = 0; round < 2000; ++round) {
      std::string text;
      for (int i = 0; i < 64; ++i) {
        seed = seed * 1103515245u + 12345u;
        const char alphabet[] = "rank=size\n-\\0123456789,stateruning";
        text += alphabet[(seed >> 16) % (sizeof alphabet - 1)];
      }
      (void)decodeRankStatus(text);
      (void)decodeCommStates(text);
      (void)decodeRegistration(text);
      (void)decodeEvent(text);
    }
  }
}

TEST_CASE("a value ending in carriage returns survives the round trip (fuzz crash 58d3014e)", "[rankproto]") {
  mpidbg::ccs::proto::Event e;
  e.kind = mpidbg::ccs::proto::Event::Kind::Abort;
  e.code = 3;
  e.text = "MPI_Abort(\r\r\r\rn=\r\r";
  const std::string once = mpidbg::ccs::proto::encode(e);
  CHECK(once.find('\r') == std::string::npos);
  auto again = mpidbg::ccs::proto::decodeEvent(once);
  REQUIRE(again);
  CHECK(again->text == e.text);
}

namespace {

/// A registration without PMIx facts or bound address: rank 2 of 4 on "vm".
Registration plainRegistration() {
  Registration r;
  r.rank = 2;
  r.size = 4;
  r.host = "vm";
  r.pid = 42;
  r.port = 4000;
  return r;
}

}  // namespace

TEST_CASE("registration carries the PMIx facts when there are some", "[ccs][proto]") {
  Registration r = plainRegistration();
  r.mpiLibrary = "Open MPI v4.1.4";
  const std::string without = encode(r, false);
  CHECK(without.find("pmix") == std::string::npos);
  auto plain = decodeRegistration(without);
  REQUIRE(plain);
  CHECK(plain->pmixNamespace.empty());
  CHECK(plain->pmixRank == -1);
  r.pmixNamespace = "slurm.pmix.7.0";
  r.pmixRank = 2;
  r.node = "n1";
  r.pmixPublished = true;
  auto back = decodeRegistration(encode(r, false));
  REQUIRE(back);
  CHECK(back->pmixNamespace == "slurm.pmix.7.0");
  CHECK(back->pmixRank == 2);
  CHECK(back->node == "n1");
  CHECK(back->pmixPublished);
  std::string bad = encode(r, false);
  bad.replace(bad.find("pmix_published=1"), 16, "pmix_published=2");
  CHECK_THAT(decodeRegistration(bad).error().message, Catch::Contains("pmix_published"));
}

TEST_CASE("registration carries the server's bound address when there is one", "[ccs][proto]") {
  Registration r = plainRegistration();
  r.mpiLibrary = "MPICH Version: 4.0.2";
  // An older runtime sends none: the front end then uses 127.0.0.1.
  const std::string without = encode(r, false);
  CHECK(without.find("address") == std::string::npos);
  auto old = decodeRegistration(without);
  REQUIRE(old);
  CHECK(old->address.empty());
  r.address = "127.0.0.2";
  auto back = decodeRegistration(encode(r, false));
  REQUIRE(back);
  CHECK(back->address == "127.0.0.2");
  CHECK(back->port == 4000);
}

TEST_CASE("rank records keep their wire bytes (derived from their field lists)", "[ccs][proto]") {
  RankStatus s;
  s.rank = 2;
  s.size = 4;
  s.state = RankState::Frozen;
  s.mpiCalls = 17;
  s.stop = "a\nb";
  s.stopNumber = 3;
  MpiCall c;
  c.function = "MPI_Testall";
  c.peer = -1;
  c.comm = 0x44000000;
  c.commName = "MPI_COMM_WORLD";
  c.elapsedUs = 5;
  c.seq = 9;
  c.polling = true;
  c.sinceLastUs = 12;
  s.call = c;
  const std::string status =
      "rank=2\n"
      "size=4\n"
      "state=frozen\n"
      "mpicalls=17\n"
      "stop=a\\nb\n"
      "stopno=3\n"
      "call.function=MPI_Testall\n"
      "call.peerrole=\n"
      "call.peer=-1\n"
      "call.comm=1140850688\n"
      "call.commname=MPI_COMM_WORLD\n"
      "call.collcall=0\n"
      "call.elapsedus=5\n"
      "call.seq=9\n"
      "call.polling=1\n"
      "call.sincelastus=12\n";
  CHECK(encode(s) == status);
  auto statusBack = decodeRankStatus(status);
  REQUIRE(statusBack);
  CHECK(encode(*statusBack) == status);

  CommState cs;
  cs.handle = 0x84000001;
  cs.rootWorldRank = 1;
  cs.size = 2;
  cs.name = "sub";
  cs.uid = 0xabc;
  cs.worldRank = 3;
  cs.counts[1] = 5;
  cs.active[13] = true;
  const std::string comm =
      "handle=2214592513\n"
      "root=1\n"
      "world=3\n"
      "uid=2748\n"
      "size=2\n"
      "rank=0\n"
      "name=sub\n"
      "counts=0,5,0,0,0,0,0,0,0,0,0,0,0,0\n"
      "active=0,0,0,0,0,0,0,0,0,0,0,0,0,1\n";
  CHECK(encode(std::span<const CommState>(&cs, 1)) == comm);
  auto commBack = decodeCommStates(comm);
  REQUIRE(commBack);
  CHECK(encode(std::span<const CommState>(*commBack)) == comm);

  Registration r;
  r.rank = 1;
  r.size = 2;
  r.host = "h";
  r.pid = 7;
  r.port = 4000;
  r.mpiLibrary = "m";
  r.threadLevel = 1;
  r.pmixNamespace = "ns";
  r.pmixRank = 1;
  r.node = "n1";
  r.pmixPublished = true;
  r.mac = "ff";
  const std::string reg =
      "version=1\n"
      "rank=1\n"
      "size=2\n"
      "host=h\n"
      "pid=7\n"
      "port=4000\n"
      "mpi=m\n"
      "threadlevel=1\n"
      "pmix_nspace=ns\n"
      "pmix_rank=1\n"
      "node=n1\n"
      "pmix_published=1\n"
      "mac=ff\n";
  CHECK(encode(r) == reg);
  CHECK(encode(r, false) == reg.substr(0, reg.size() - std::string("mac=ff\n").size()));
  auto regBack = decodeRegistration(reg);
  REQUIRE(regBack);
  CHECK(encode(*regBack) == reg);

  Event e;
  e.kind = Event::Kind::Violation;
  e.code = 2;
  e.where = "MPI_Send";
  e.text = "t";
  e.stacks = "x";
  const std::string event =
      "kind=violation\n"
      "code=2\n"
      "where=MPI_Send\n"
      "text=t\n"
      "stacks=x\n";
  CHECK(encode(e) == event);
  auto eventBack = decodeEvent(event);
  REQUIRE(eventBack);
  CHECK(encode(*eventBack) == event);
}
