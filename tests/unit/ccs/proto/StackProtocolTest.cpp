// The stacks record of one rank (ccs/proto/StackProtocol.hpp): round trips,
// concatenated replies, and hostile input.
#include <catch2/catch.hpp>

#include "ccs/proto/StackProtocol.hpp"

using namespace mpidbg::ccs::proto;

namespace {

const std::string kStackNasty = "a=b\\c\nd\\n==\n--\n==\r";

RankStacks sampleStacks(std::int32_t rank) {
  RankStacks s;
  s.worldRank = rank;
  s.pid = 4000 + rank;
  s.host = "node" + std::to_string(rank);
  s.modules = {{"/work/examples/ring", "0123456789abcdef0123456789abcdef01234567"},
               {"/lib/x86_64-linux-gnu/libc.so.6", "deadbeef"},
               {"[vdso]", ""},
               {kStackNasty, "00"}};
  ThreadStack main;
  main.tid = s.pid;
  main.name = "ring";
  main.mainThread = true;
  main.frames = {{2, 0xa3d, true}, {1, 0x11f2e0, false}, {0, 0x1189, false}, {-1, 0xffffffffffffffffull, false}};
  ThreadStack worker;
  worker.tid = s.pid + 1;
  worker.name = kStackNasty;
  worker.truncated = true;
  worker.frames = {{1, 0, true}, {3, 0x7fffffffffffull, true}, {0, 0x10, false}};
  ThreadStack silent;
  silent.tid = s.pid + 2;
  silent.name = "blocked";
  silent.error = "did not answer within 200 ms";
  s.threads = {main, worker, silent};
  return s;
}

void requireEqual(const RankStacks& a, const RankStacks& b) {
  REQUIRE(a.worldRank == b.worldRank);
  REQUIRE(a.pid == b.pid);
  REQUIRE(a.host == b.host);
  REQUIRE(a.modules.size() == b.modules.size());
  for (std::size_t i = 0; i < a.modules.size(); ++i) {
    CHECK(a.modules[i].path == b.modules[i].path);
    CHECK(a.modules[i].buildId == b.modules[i].buildId);
  }
  REQUIRE(a.threads.size() == b.threads.size());
  for (std::size_t t = 0; t < a.threads.size(); ++t) {
    const ThreadStack& x = a.threads[t];
    const ThreadStack& y = b.threads[t];
    CHECK(x.tid == y.tid);
    CHECK(x.name == y.name);
    CHECK(x.mainThread == y.mainThread);
    CHECK(x.truncated == y.truncated);
    CHECK(x.error == y.error);
    REQUIRE(x.frames.size() == y.frames.size());
    for (std::size_t f = 0; f < x.frames.size(); ++f) {
      CHECK(x.frames[f].module == y.frames[f].module);
      CHECK(x.frames[f].offset == y.frames[f].offset);
      CHECK(x.frames[f].exact == y.frames[f].exact);
    }
  }
}

/// A minimal valid record to which a test appends or from which it removes lines.
const std::string kMinimal =
    "world=0\npid=1\nhost=h\nmodules=1\nmodule.0.path=/a\nmodule.0.buildid=\n"
    "threads=1\nthread.0.tid=1\nthread.0.name=a\nthread.0.main=1\nthread.0.truncated=0\n"
    "thread.0.frames=1\nframe.0.0=0,0x10,1\n--\n";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return text;
}

}  // namespace

TEST_CASE("stacks: a multi-thread, multi-module record round-trips exactly", "[ccs][stacks]") {
  const RankStacks s = sampleStacks(7);
  const std::string text = encode(s);
  CHECK(text.ends_with("\n--\n"));
  CHECK(text.find("frame.0.0=2,0xa3d,1\n") != std::string::npos);
  CHECK(text.find("frame.0.3=-1,0xffffffffffffffff,0\n") != std::string::npos);
  auto decoded = decodeRankStacksList(text);
  REQUIRE(decoded);
  REQUIRE(decoded->size() == 1);
  requireEqual(decoded->front(), s);
}

TEST_CASE("stacks: concatenated replies of several ranks decode in order", "[ccs][stacks]") {
  RankStacks empty;
  empty.worldRank = 1;
  empty.pid = 9;
  empty.host = "";
  const std::string text = encode(sampleStacks(0)) + encode(empty) + "\n--\n" + encode(sampleStacks(2));
  auto decoded = decodeRankStacksList(text);
  REQUIRE(decoded);
  REQUIRE(decoded->size() == 3);
  requireEqual((*decoded)[0], sampleStacks(0));
  requireEqual((*decoded)[1], empty);
  requireEqual((*decoded)[2], sampleStacks(2));
}

TEST_CASE("stacks: empty text, CRLF lines, and a last record without its separator", "[ccs][stacks]") {
  auto none = decodeRankStacksList("");
  REQUIRE(none);
  CHECK(none->empty());
  auto blank = decodeRankStacksList("\n\n--\n");
  REQUIRE(blank);
  CHECK(blank->empty());

  std::string crlf;
  for (char c : kMinimal) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  auto fromCrlf = decodeRankStacksList(crlf);
  REQUIRE(fromCrlf);
  REQUIRE(fromCrlf->size() == 1);
  CHECK(fromCrlf->front().threads.at(0).frames.at(0).offset == 0x10);

  auto unterminated = decodeRankStacksList(kMinimal.substr(0, kMinimal.size() - 3));
  REQUIRE(unterminated);
  CHECK(unterminated->size() == 1);
}

TEST_CASE("stacks: malformed input gives an error naming record and key", "[ccs][stacks]") {
  struct Row {
    std::string text;
    std::string error;
  };
  const std::vector<Row> rows = {
      {"world=0\n--\n", "stacks record 0: record is missing key 'pid'"},
      {replaced(kMinimal, "world=0", "world=x"), "stacks record 0: key 'world' has a bad integer value 'x'"},
      {replaced(kMinimal, "world=0", "world"), "stacks record 0: malformed record line 'world': no '='"},
      {replaced(kMinimal, "host=h", "host=a\\q"), "stacks record 0: bad escape in value of key 'host'"},
      {kMinimal + "world=1\npid=1\nworld=2\n--\n", "stacks record 1: duplicate key 'world' in record"},
      {replaced(kMinimal, "modules=1", "modules=99999999999"),
       "stacks record 0: key 'modules' claims 99999999999 elements (at most 65536)"},
      {replaced(kMinimal, "modules=1", "modules=-1"), "stacks record 0: key 'modules' has a bad integer value '-1'"},
      {replaced(kMinimal, "modules=1", "modules=2"), "stacks record 0: record is missing key 'module.1.path'"},
      {replaced(kMinimal, "threads=1", "threads=70000"),
       "stacks record 0: key 'threads' claims 70000 elements (at most 65536)"},
      {replaced(kMinimal, "thread.0.frames=1", "thread.0.frames=18446744073709551615"),
       "stacks record 0: key 'thread.0.frames' claims 18446744073709551615 elements (at most 65536)"},
      {replaced(kMinimal, "thread.0.frames=1", "thread.0.frames=2"),
       "stacks record 0: record is missing key 'frame.0.1'"},
      {replaced(kMinimal, "thread.0.main=1", "thread.0.main=2"), "stacks record 0: key 'thread.0.main' must be 0 or 1"},
      {replaced(kMinimal, "thread.0.truncated=0\n", ""), "stacks record 0: record is missing key 'thread.0.truncated'"},
      {replaced(kMinimal, "frame.0.0=0,0x10,1", "frame.0.0=1,0x10,1"),
       "stacks record 0: key 'frame.0.0' names module 1 but the record defines 1"},
      {replaced(kMinimal, "frame.0.0=0,0x10,1", "frame.0.0=2147483647,0x10,1"),
       "stacks record 0: key 'frame.0.0' names module 2147483647 but the record defines 1"},
      {replaced(kMinimal, "frame.0.0=0,0x10,1", "frame.0.0=-2,0x10,1"),
       "stacks record 0: key 'frame.0.0' names module -2 but the record defines 1"},
      {replaced(kMinimal, "frame.0.0=0,0x10,1", "frame.0.0=99999999999,0x10,1"),
       "stacks record 0: key 'frame.0.0' has a bad integer value '99999999999'"},
      {replaced(kMinimal, "frame.0.0=0,0x10,1", "frame.0.0=0,0x10"),
       "stacks record 0: key 'frame.0.0' is not 'module,offset,exact': '0,0x10'"},
      {replaced(kMinimal, "frame.0.0=0,0x10,1", "frame.0.0=0,0x10,1,1"),
       "stacks record 0: key 'frame.0.0' is not 'module,offset,exact': '0,0x10,1,1'"},
      {replaced(kMinimal, "frame.0.0=0,0x10,1", "frame.0.0=0,0x,1"),
       "stacks record 0: key 'frame.0.0' has a bad integer value '0x'"},
      {replaced(kMinimal, "frame.0.0=0,0x10,1", "frame.0.0=0,-0x10,1"),
       "stacks record 0: key 'frame.0.0' has a bad integer value '-0x10'"},
      {replaced(kMinimal, "frame.0.0=0,0x10,1", "frame.0.0=0,0x10,yes"),
       "stacks record 0: key 'frame.0.0' has an exact flag other than 0 or 1"},
      {replaced(kMinimal, "frame.0.0=0,0x10,1", "frame.0.0=,,"), "stacks record 0: key 'frame.0.0' has a bad integer value ''"},
      // A reply cut inside the second record.
      {kMinimal + kMinimal.substr(0, kMinimal.find("threads=")), "stacks record 1: record is missing key 'threads'"},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    auto decoded = decodeRankStacksList(row.text);
    REQUIRE_FALSE(decoded);
    CHECK(decoded.error().message.starts_with(row.error));
  }
}

TEST_CASE("stacks: unknown keys are ignored and a frame may name no module", "[ccs][stacks]") {
  const std::string text =
      replaced(kMinimal, "frame.0.0=0,0x10,1", "frame.0.0=-1,0x7f0000001000,0\nfuture.key=1");
  auto decoded = decodeRankStacksList(text);
  REQUIRE(decoded);
  const StackFrame& f = decoded->at(0).threads.at(0).frames.at(0);
  CHECK(f.module == -1);
  CHECK(f.offset == 0x7f0000001000ull);
  CHECK_FALSE(f.exact);
}

TEST_CASE("stacks: arbitrary prefixes of a valid reply never crash", "[ccs][stacks]") {
  const std::string text = encode(sampleStacks(3)) + encode(sampleStacks(4));
  for (std::size_t n = 0; n <= text.size(); ++n) {
    auto decoded = decodeRankStacksList(text.substr(0, n));
    if (decoded) CHECK(decoded->size() <= 2);
  }
  // Every single byte flipped to a separator-ish character.
  for (std::size_t i = 0; i < text.size(); i += 3) {
    std::string bent = text;
    bent[i] = i % 2 ? '\n' : ',';
    (void)decodeRankStacksList(bent);
  }
}

TEST_CASE("stacks: a record keeps its wire bytes (derived from its field lists)", "[ccs][stacks]") {
  RankStacks st;
  st.worldRank = 1;
  st.pid = 5;
  st.host = "h";
  st.modules = {{"/a", ""}};
  ThreadStack t;
  t.tid = 5;
  t.name = "m";
  t.mainThread = true;
  t.frames = {{0, 0x10, true}};
  ThreadStack u;
  u.tid = 6;
  u.name = "w";
  u.error = "e";
  u.frames = {{-1, 0x20, false}, {0, 0x30, false}};
  st.threads = {t, u};
  const std::string bytes =
      "world=1\n"
      "pid=5\n"
      "host=h\n"
      "modules=1\n"
      "module.0.path=/a\n"
      "module.0.buildid=\n"
      "threads=2\n"
      "thread.0.tid=5\n"
      "thread.0.name=m\n"
      "thread.0.main=1\n"
      "thread.0.truncated=0\n"
      "thread.0.frames=1\n"
      "frame.0.0=0,0x10,1\n"
      "thread.1.tid=6\n"
      "thread.1.name=w\n"
      "thread.1.main=0\n"
      "thread.1.truncated=0\n"
      "thread.1.error=e\n"
      "thread.1.frames=2\n"
      "frame.1.0=-1,0x20,0\n"
      "frame.1.1=0,0x30,0\n"
      "--\n";
  CHECK(encode(st) == bytes);
  auto back = decodeRankStacksList(bytes);
  REQUIRE(back);
  REQUIRE(back->size() == 1);
  CHECK(encode(back->front()) == bytes);
}
