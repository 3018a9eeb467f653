// The queue-state record of one rank (ccs/proto/QueueProtocol.hpp): round trips,
// concatenated replies, and hostile input.
#include <catch2/catch.hpp>

#include "ccs/proto/QueueProtocol.hpp"

using namespace mpidbg::ccs::proto;

namespace {

const std::string kQueueNasty = "a=b\\c\nd\\n==\n--\n==";

PendingOp sampleOp(PendingOp::Kind kind, std::uint64_t seed) {
  PendingOp op;
  op.kind = kind;
  op.function = seed % 2 ? "MPI_Isend" : kQueueNasty;
  op.blocking = seed % 3 == 0;
  op.persistent = seed % 3 == 1;
  op.active = seed % 2 == 0;
  op.waited = seed % 5 == 0;
  op.synchronous = seed % 7 == 0;
  op.request = 0xac000000ull + seed;
  op.comm = 0x84000000ull + seed;
  op.peer = seed % 4 == 0 ? -2 : static_cast<std::int32_t>(seed);
  op.tag = seed % 4 == 1 ? -1 : static_cast<std::int32_t>(seed * 11);
  op.count = seed % 4 == 2 ? -1 : static_cast<std::int64_t>(seed * 1000000007ull);
  op.bytes = -1 - static_cast<std::int64_t>(seed);
  op.buffer = 0x7fffffffffffull - seed;
  op.collClass = kind == PendingOp::Kind::Collective ? static_cast<std::int32_t>(seed % 14) : -1;
  op.collCall = 18446744073709551615ull - seed;
  op.collSeq = seed * 3;
  return op;
}

RankQueues fullQueues() {
  RankQueues q;
  q.worldRank = 5;
  q.phase = MpiPhase::Finalizing;
  MpiCall call;
  call.function = "MPI_Waitall";
  call.peerRole = "";
  call.peer = 0;
  call.hasTag = true;
  call.tag = -1;
  call.comm = 0;
  call.commName = kQueueNasty;
  call.collCall = 9;
  call.elapsedUs = 123456;
  call.seq = 77;
  q.call = call;
  q.waitingOn = {0xac000001ull, 0xac000003ull, 18446744073709551615ull};
  for (std::uint64_t c = 0; c < 2; ++c) {
    CommQueues comm;
    comm.state.handle = 0x84000000ull + c;
    comm.state.rootWorldRank = static_cast<std::int32_t>(c);
    comm.state.size = 3;
    comm.state.localRank = 2;
    comm.state.name = c ? kQueueNasty : "MPI_COMM_WORLD";
    comm.state.worldRank = 5;
    for (std::size_t k = 0; k < kCollClassCount; ++k) {
      comm.state.counts[k] = k * 7 + c;
      comm.state.active[k] = (k + c) % 2 == 0;
    }
    comm.worldRanks = {4, -1, 5};
    comm.collSeq = 100 + c;
    for (std::uint64_t j = 0; j < 3; ++j) {
      comm.sends.push_back(sampleOp(PendingOp::Kind::Send, 10 * c + j));
      comm.recvs.push_back(sampleOp(PendingOp::Kind::Recv, 10 * c + j + 3));
      comm.unexpected.push_back(sampleOp(PendingOp::Kind::Recv, 10 * c + j + 5));
      comm.collectives.push_back(sampleOp(PendingOp::Kind::Collective, 10 * c + j + 7));
      if (c == 1) comm.rma.push_back(sampleOp(PendingOp::Kind::Rma, 10 * c + j + 9));
    }
    q.comms.push_back(std::move(comm));
  }
  q.history = {{0x84000000ull, 1, "MPI_Bcast", 0, 16}, {0x84000001ull, 2, kQueueNasty, -1, -1}};
  q.wildcards = {{0x44000000ull, "MPI_Recv", -1, 3, 7, 12}, {0x84000001ull, kQueueNasty, 5, 0, 5, 40}};
  q.locks = {{0xa0000000ull, 2, true, 17}, {0xa0000001ull, -1, false, 30}, {0xa0000000ull, 3, true, 31, false}};
  q.epochs = {{0xa0000000ull, 1, 3, 2, 0, 0, true, false}, {0xa0000001ull, 0, 0, 0, 5, 4, false, true}};
  q.messages = {{0x44000000ull, 1, 0, 3, 0, "MPI_Send"}, {0x84000001ull, -1, 7, 0, 2, ""},
                {0x84000001ull, 2, 0x7fffffff, 0, 5, kQueueNasty}};
  q.messagesPartial = true;
  q.frames = {"solve() at solver.c:88", kQueueNasty, ""};
  q.source = "mqs:/opt/lib/libmpidbg-mqs.so";
  q.error = kQueueNasty;
  q.held = "frozen (--now) in " + std::string(kQueueNasty);
  return q;
}

void checkSameOp(const PendingOp& a, const PendingOp& b) {
  CHECK(a.kind == b.kind);
  CHECK(a.function == b.function);
  CHECK(a.blocking == b.blocking);
  CHECK(a.persistent == b.persistent);
  CHECK(a.active == b.active);
  CHECK(a.waited == b.waited);
  CHECK(a.synchronous == b.synchronous);
  CHECK(a.request == b.request);
  CHECK(a.comm == b.comm);
  CHECK(a.peer == b.peer);
  CHECK(a.tag == b.tag);
  CHECK(a.count == b.count);
  CHECK(a.bytes == b.bytes);
  CHECK(a.buffer == b.buffer);
  CHECK(a.collClass == b.collClass);
  CHECK(a.collCall == b.collCall);
  CHECK(a.collSeq == b.collSeq);
}

void checkSameOps(const std::vector<PendingOp>& a, const std::vector<PendingOp>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) checkSameOp(a[i], b[i]);
}

void checkSame(const RankQueues& a, const RankQueues& b) {
  CHECK(a.worldRank == b.worldRank);
  CHECK(a.phase == b.phase);
  REQUIRE(a.call.has_value() == b.call.has_value());
  if (a.call) {
    CHECK(a.call->function == b.call->function);
    CHECK(a.call->peerRole == b.call->peerRole);
    CHECK(a.call->peer == b.call->peer);
    CHECK(a.call->hasTag == b.call->hasTag);
    CHECK(a.call->tag == b.call->tag);
    CHECK(a.call->comm == b.call->comm);
    CHECK(a.call->commName == b.call->commName);
    CHECK(a.call->collCall == b.call->collCall);
    CHECK(a.call->elapsedUs == b.call->elapsedUs);
    CHECK(a.call->seq == b.call->seq);
  }
  CHECK(a.waitingOn == b.waitingOn);
  REQUIRE(a.comms.size() == b.comms.size());
  for (std::size_t i = 0; i < a.comms.size(); ++i) {
    const CommQueues& x = a.comms[i];
    const CommQueues& y = b.comms[i];
    CHECK(x.state.handle == y.state.handle);
    CHECK(x.state.rootWorldRank == y.state.rootWorldRank);
    CHECK(x.state.size == y.state.size);
    CHECK(x.state.localRank == y.state.localRank);
    CHECK(x.state.name == y.state.name);
    CHECK(x.state.worldRank == y.state.worldRank);
    CHECK(x.state.counts == y.state.counts);
    CHECK(x.state.active == y.state.active);
    CHECK(x.worldRanks == y.worldRanks);
    CHECK(x.collSeq == y.collSeq);
    checkSameOps(x.sends, y.sends);
    checkSameOps(x.recvs, y.recvs);
    checkSameOps(x.unexpected, y.unexpected);
    checkSameOps(x.collectives, y.collectives);
    checkSameOps(x.rma, y.rma);
  }
  REQUIRE(a.wildcards.size() == b.wildcards.size());
  for (std::size_t i = 0; i < a.wildcards.size(); ++i) {
    CHECK(a.wildcards[i].comm == b.wildcards[i].comm);
    CHECK(a.wildcards[i].function == b.wildcards[i].function);
    CHECK(a.wildcards[i].tag == b.wildcards[i].tag);
    CHECK(a.wildcards[i].source == b.wildcards[i].source);
    CHECK(a.wildcards[i].matchedTag == b.wildcards[i].matchedTag);
    CHECK(a.wildcards[i].call == b.wildcards[i].call);
  }
  REQUIRE(a.locks.size() == b.locks.size());
  for (std::size_t i = 0; i < a.locks.size(); ++i) {
    CHECK(a.locks[i].win == b.locks[i].win);
    CHECK(a.locks[i].target == b.locks[i].target);
    CHECK(a.locks[i].exclusive == b.locks[i].exclusive);
    CHECK(a.locks[i].call == b.locks[i].call);
    CHECK(a.locks[i].granted == b.locks[i].granted);
  }
  REQUIRE(a.epochs.size() == b.epochs.size());
  for (std::size_t i = 0; i < a.epochs.size(); ++i) {
    CHECK(a.epochs[i].win == b.epochs[i].win);
    CHECK(a.epochs[i].peer == b.epochs[i].peer);
    CHECK(a.epochs[i].started == b.epochs[i].started);
    CHECK(a.epochs[i].completed == b.epochs[i].completed);
    CHECK(a.epochs[i].posted == b.epochs[i].posted);
    CHECK(a.epochs[i].waited == b.epochs[i].waited);
    CHECK(a.epochs[i].access == b.epochs[i].access);
    CHECK(a.epochs[i].exposure == b.epochs[i].exposure);
  }
  REQUIRE(a.messages.size() == b.messages.size());
  for (std::size_t i = 0; i < a.messages.size(); ++i) {
    CHECK(a.messages[i].comm == b.messages[i].comm);
    CHECK(a.messages[i].peer == b.messages[i].peer);
    CHECK(a.messages[i].tag == b.messages[i].tag);
    CHECK(a.messages[i].sent == b.messages[i].sent);
    CHECK(a.messages[i].received == b.messages[i].received);
    CHECK(a.messages[i].function == b.messages[i].function);
  }
  CHECK(a.messagesPartial == b.messagesPartial);
  REQUIRE(a.history.size() == b.history.size());
  for (std::size_t i = 0; i < a.history.size(); ++i) {
    CHECK(a.history[i].comm == b.history[i].comm);
    CHECK(a.history[i].seq == b.history[i].seq);
    CHECK(a.history[i].function == b.history[i].function);
    CHECK(a.history[i].root == b.history[i].root);
    CHECK(a.history[i].count == b.history[i].count);
  }
  CHECK(a.frames == b.frames);
  CHECK(a.source == b.source);
  CHECK(a.error == b.error);
  CHECK(a.held == b.held);
}

}  // namespace

TEST_CASE("queue names", "[ccs][proto][queues]") {
  CHECK(phaseName(MpiPhase::NotInitialized) == "not-initialized");
  CHECK(phaseName(MpiPhase::Running) == "running");
  CHECK(phaseName(MpiPhase::Finalizing) == "finalizing");
  CHECK(phaseName(MpiPhase::Finalized) == "finalized");
  CHECK(opKindName(PendingOp::Kind::Send) == "send");
  CHECK(opKindName(PendingOp::Kind::Recv) == "recv");
  CHECK(opKindName(PendingOp::Kind::Collective) == "collective");
}

TEST_CASE("rank queues round trip with every field set", "[ccs][proto][queues]") {
  const RankQueues q = fullQueues();
  const std::string text = encode(q);
  CHECK(text.ends_with("\n==\n"));
  CHECK(text.find("\n--\n") == std::string::npos);
  CHECK(text.find("waiting=0xac000001,0xac000003,0xffffffffffffffff\n") != std::string::npos);
  CHECK(text.find("comm.1.coll.2.class=") != std::string::npos);
  auto back = decodeRankQueues(text);
  REQUIRE(back.has_value());
  checkSame(q, *back);
  CHECK(encode(*back) == text);

  SECTION("without the terminator") {
    auto again = decodeRankQueues(text.substr(0, text.size() - 3));
    REQUIRE(again.has_value());
    checkSame(q, *again);
  }
  SECTION("with CRLF line ends and unknown keys") {
    std::string crlf = "future.key=1\n";
    for (char ch : text) {
      if (ch == '\n') crlf += '\r';
      crlf += ch;
    }
    auto again = decodeRankQueues(crlf);
    REQUIRE(again.has_value());
    checkSame(q, *again);
  }
}

TEST_CASE("rank queues round trip with empty lists", "[ccs][proto][queues]") {
  RankQueues q;
  q.worldRank = 0;
  q.source = "ccs";
  SECTION("nothing at all") {
    const std::string text = encode(q);
    CHECK(text.find("waiting=\n") != std::string::npos);
    CHECK(text.find("call.") == std::string::npos);
    CHECK(text.find("error=") == std::string::npos);
    auto back = decodeRankQueues(text);
    REQUIRE(back.has_value());
    checkSame(q, *back);
  }
  SECTION("a communicator with no operations and no world ranks") {
    CommQueues c;
    c.state.handle = 0x44000000;
    c.state.name = "MPI_COMM_WORLD";
    q.comms.push_back(c);
    q.phase = MpiPhase::NotInitialized;
    auto back = decodeRankQueues(encode(q));
    REQUIRE(back.has_value());
    checkSame(q, *back);
    REQUIRE(back->comms.size() == 1);
    CHECK(back->comms[0].worldRanks.empty());
    CHECK(back->comms[0].state.worldRank == -1);
  }
  SECTION("a call without a tag") {
    MpiCall call;
    call.function = "MPI_Barrier";
    call.comm = 0x44000000;
    call.commName = "MPI_COMM_WORLD";
    call.collCall = 4;
    q.call = call;
    q.phase = MpiPhase::Finalized;
    auto back = decodeRankQueues(encode(q));
    REQUIRE(back.has_value());
    checkSame(q, *back);
    CHECK_FALSE(back->call->hasTag);
  }
}

TEST_CASE("a concatenation of rank queues splits", "[ccs][proto][queues]") {
  RankQueues a = fullQueues();
  RankQueues b;
  b.worldRank = 1;
  b.source = "ccs";
  RankQueues c = fullQueues();
  c.worldRank = 2;
  c.comms.clear();
  const std::string text = encode(a) + encode(b) + encode(c);
  auto all = decodeRankQueuesList(text);
  REQUIRE(all.has_value());
  REQUIRE(all->size() == 3);
  checkSame(a, (*all)[0]);
  checkSame(b, (*all)[1]);
  checkSame(c, (*all)[2]);

  auto none = decodeRankQueuesList("");
  REQUIRE(none.has_value());
  CHECK(none->empty());
  auto blank = decodeRankQueuesList("\n\n");
  REQUIRE(blank.has_value());
  CHECK(blank->empty());

  SECTION("a cut-short reply is an error") {
    auto cut = decodeRankQueuesList(text.substr(0, text.size() - 20));
    REQUIRE_FALSE(cut.has_value());
    CHECK_THAT(cut.error().message, Catch::Contains("bad rank queues 2"));
    CHECK_THAT(cut.error().message, Catch::Contains("'=='"));
  }
  SECTION("a bad middle record names its index") {
    std::string broken = encode(a) + "world=x\n==\n" + encode(c);
    auto bad = decodeRankQueuesList(broken);
    REQUIRE_FALSE(bad.has_value());
    CHECK_THAT(bad.error().message, Catch::Contains("bad rank queues 1"));
    CHECK_THAT(bad.error().message, Catch::Contains("'world'"));
  }
  SECTION("one decode refuses two encodings") {
    auto two = decodeRankQueues(encode(b) + encode(b));
    REQUIRE_FALSE(two.has_value());
    CHECK_THAT(two.error().message, Catch::Contains("after the '==' line"));
  }
}

TEST_CASE("hostile rank queues text gives errors", "[ccs][proto][queues]") {
  struct Row {
    const char* what;
    std::string text;
    const char* mention;
  };
  RankQueues small;
  small.worldRank = 1;
  small.source = "ccs";
  CommQueues comm;
  comm.state.handle = 1;
  comm.sends.push_back(sampleOp(PendingOp::Kind::Send, 1));
  small.comms.push_back(comm);
  const std::string good = encode(small);
  auto without = [&](const std::string& key) {
    std::string out = good;
    const auto at = out.find(key + "=");
    REQUIRE(at != std::string::npos);
    out.erase(at, out.find('\n', at) - at + 1);
    return out;
  };
  auto replaced = [&](const std::string& line, const std::string& by) {
    std::string out = good;
    const auto at = out.find(line);
    REQUIRE(at != std::string::npos);
    out.replace(at, line.size(), by);
    return out;
  };
  const std::vector<Row> rows = {
      {"empty", "", "expected one record"},
      {"only a terminator", "==\n", "expected one record"},
      {"garbage", std::string("\x01\xff garbage\n", 11), "no '='"},
      {"missing world", without("world"), "'world'"},
      {"missing phase", without("phase"), "'phase'"},
      {"missing waiting", without("waiting"), "'waiting'"},
      {"missing comms", without("comms"), "'comms'"},
      {"missing op key", without("comm.0.send.0.tag"), "'comm.0.send.0.tag'"},
      {"missing comm key", without("comm.0.collseq"), "'comm.0.collseq'"},
      {"unknown phase", replaced("phase=running", "phase=dancing"), "'phase'"},
      {"unknown kind", replaced("comm.0.send.0.kind=send", "comm.0.send.0.kind=teleport"), "'comm.0.send.0.kind'"},
      {"bad flag", replaced("comm.0.send.0.active=", "comm.0.send.0.active=2"), "'comm.0.send.0.active'"},
      {"count beyond the ops", replaced("comm.0.sends=1", "comm.0.sends=2"), "'comm.0.send.1.kind'"},
      {"huge count", replaced("comm.0.sends=1", "comm.0.sends=99999999999"), "'comm.0.sends' claims"},
      {"negative count", replaced("comms=1", "comms=-1"), "'comms'"},
      {"bad waited list", replaced("waiting=", "waiting=1,,2"), "'waiting'"},
      {"bad world ranks", replaced("comm.0.worldranks=", "comm.0.worldranks=x"), "'comm.0.worldranks'"},
      {"int32 overflow", replaced("world=1", "world=2147483648"), "'world'"},
      {"duplicate key", replaced("world=1\n", "world=1\nworld=2\n"), "duplicate"},
      {"record separator inside", replaced("phase=running\n", "phase=running\n--\n"), "expected one record"},
      {"bad escape", replaced("world=1\n", "world=1\nx=\\t\n"), "escape"},
      {"text after the terminator", good + "world=2\n", "after the '==' line"},
      {"too many wildcard matches", replaced("comms=1\n", "wild=17\ncomms=1\n"), "'wild' claims 17"},
      {"a wildcard match cut short", replaced("comms=1\n", "wild=1\nwild.0.comm=0x1\ncomms=1\n"), "'wild.0.function'"},
      {"too many message counts", replaced("comms=1\n", "msgs=4097\ncomms=1\n"), "'msgs' claims 4097"},
      {"too many epoch rows", replaced("comms=1\n", "epochs=1025\ncomms=1\n"), "'epochs' claims 1025"},
      {"an epoch row cut short", replaced("comms=1\n", "epochs=1\nepoch.0.win=0xa0000000\nepoch.0.peer=1\ncomms=1\n"),
       "'epoch.0.started'"},
      {"a message count cut short", replaced("comms=1\n", "msgs=1\nmsg.0.comm=0x1\nmsg.0.peer=0\ncomms=1\n"),
       "'msg.0.tag'"},
      {"a negative message count", replaced("comms=1\n", "msgs=1\nmsg.0.comm=0x1\nmsg.0.peer=0\nmsg.0.tag=0\n"
                                                          "msg.0.sent=-1\nmsg.0.recvd=0\ncomms=1\n"),
       "'msg.0.sent'"},
  };
  for (const Row& row : rows) {
    SECTION(row.what) {
      auto decoded = decodeRankQueues(row.text);
      REQUIRE_FALSE(decoded.has_value());
      CHECK_THAT(decoded.error().message, Catch::StartsWith("bad rank queues"));
      CHECK_THAT(decoded.error().message, Catch::Contains(row.mention));
      auto list = decodeRankQueuesList(row.text.ends_with("==\n") ? row.text : row.text + "==\n");
      CHECK_FALSE(list.has_value());
    }
  }
}

TEST_CASE("a queue record keeps its wire bytes (derived from its field lists)", "[ccs][proto]") {
  RankQueues q;
  q.worldRank = 1;
  q.source = "ccs";
  q.waitingOn = {0xac000001, 2};
  q.frames = {"f"};
  q.history = {{0x84000000, 1, "MPI_Bcast", 0, 16}};
  q.wildcards = {{0x1, "MPI_Recv", -1, 3, 4, 99}};
  q.locks = {{0xa, -1, true, 5, false}};
  q.epochs = {{0xc, 1, 2, 3, 4, 5, true, false}};
  q.messages = {{0xd, 1, 2, 3, 4, ""}};
  q.messagesPartial = true;
  CommQueues cq;
  cq.state.handle = 0x84000000;
  cq.state.name = "w";
  cq.worldRanks = {0, 1};
  cq.collSeq = 2;
  PendingOp op;
  op.function = "MPI_Isend";
  op.request = 0xac000001;
  op.datatype = 0x4c00;
  cq.rma = {op};
  q.comms = {cq};
  const std::string bytes =
      "world=1\n"
      "phase=running\n"
      "source=ccs\n"
      "waiting=0xac000001,0x2\n"
      "frames=1\n"
      "frame.0=f\n"
      "history=1\n"
      "hist.0.comm=0x84000000\n"
      "hist.0.seq=1\n"
      "hist.0.function=MPI_Bcast\n"
      "hist.0.root=0\n"
      "hist.0.count=16\n"
      "wild=1\n"
      "wild.0.comm=0x1\n"
      "wild.0.function=MPI_Recv\n"
      "wild.0.tag=-1\n"
      "wild.0.source=3\n"
      "wild.0.mtag=4\n"
      "wild.0.call=99\n"
      "locks=1\n"
      "lock.0.win=0xa\n"
      "lock.0.target=-1\n"
      "lock.0.excl=1\n"
      "lock.0.call=5\n"
      "lock.0.granted=0\n"
      "epochs=1\n"
      "epoch.0.win=0xc\n"
      "epoch.0.peer=1\n"
      "epoch.0.started=2\n"
      "epoch.0.completed=3\n"
      "epoch.0.posted=4\n"
      "epoch.0.waited=5\n"
      "epoch.0.access=1\n"
      "epoch.0.exposure=0\n"
      "msgs=1\n"
      "msg.0.comm=0xd\n"
      "msg.0.peer=1\n"
      "msg.0.tag=2\n"
      "msg.0.sent=3\n"
      "msg.0.recvd=4\n"
      "msgs.partial=1\n"
      "comms=1\n"
      "comm.0.handle=2214592512\n"
      "comm.0.root=0\n"
      "comm.0.size=0\n"
      "comm.0.rank=0\n"
      "comm.0.name=w\n"
      "comm.0.counts=0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
      "comm.0.active=0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
      "comm.0.worldranks=0,1\n"
      "comm.0.collseq=2\n"
      "comm.0.sends=0\n"
      "comm.0.recvs=0\n"
      "comm.0.unexpected=0\n"
      "comm.0.collectives=0\n"
      "comm.0.rma=1\n"
      "comm.0.rma.0.kind=send\n"
      "comm.0.rma.0.function=MPI_Isend\n"
      "comm.0.rma.0.blocking=0\n"
      "comm.0.rma.0.persistent=0\n"
      "comm.0.rma.0.active=1\n"
      "comm.0.rma.0.waited=0\n"
      "comm.0.rma.0.sync=0\n"
      "comm.0.rma.0.request=0xac000001\n"
      "comm.0.rma.0.comm=0x0\n"
      "comm.0.rma.0.peer=-1\n"
      "comm.0.rma.0.tag=-1\n"
      "comm.0.rma.0.count=-1\n"
      "comm.0.rma.0.bytes=-1\n"
      "comm.0.rma.0.buffer=0x0\n"
      "comm.0.rma.0.datatype=0x4c00\n"
      "comm.0.rma.0.class=-1\n"
      "comm.0.rma.0.collcall=0\n"
      "comm.0.rma.0.collseq=0\n"
      "==\n";
  CHECK(encode(q) == bytes);
  auto back = decodeRankQueues(bytes);
  REQUIRE(back);
  CHECK(encode(*back) == bytes);
}
