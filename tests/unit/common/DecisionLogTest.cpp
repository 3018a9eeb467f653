// The decision log of record and replay (common/include/mpidbg/DecisionLog.hpp),
// the front end's reading of it (debugger/core/RecordFiles.hpp) and the
// mpidbg/record reply (ccs/proto/RecordProtocol.hpp).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "ccs/proto/RecordProtocol.hpp"
#include "debugger/core/RecordFiles.hpp"
#include "DecisionBuilders.hpp"
#include "mpidbg/DecisionLog.hpp"

using namespace mpidbg;
using record::Decision;
using record::DecisionKind;

namespace {

using namespace decision_builders;

std::string encodeAll(const std::vector<Decision>& decisions, bool finish = true, int rank = 2, int size = 4) {
  record::Encoder e(rank, size);
  std::string out;
  for (const Decision& d : decisions) {
    e.add(d);
    if (e.pending().size() > 8) {  // write out in pieces, as the runtime does
      out += e.pending();
      e.consumed();
    }
  }
  if (finish) e.finish();
  else e.sealRun();
  out += e.pending();
  e.consumed();
  return out;
}

std::vector<Decision> expand(const record::Log& log) {
  std::vector<Decision> out;
  for (const record::Run& r : log.runs)
    for (std::uint64_t i = 0; i < r.count; ++i) out.push_back(r.decision);
  return out;
}

std::vector<Decision> everyKind() {
  Decision iprobeMatched = matchOf(DecisionKind::Iprobe, 3, 9);
  iprobeMatched.flag = true;
  return {matchOf(DecisionKind::RecvMatch, 1, 7),
          matchOf(DecisionKind::RecvMatch, 300, 7),  // same tag: no tag bytes
          matchOf(DecisionKind::ProbeMatch, 0, 123456),
          flagOf(DecisionKind::Iprobe, false),
          flagOf(DecisionKind::Iprobe, true),  // not a wildcard: no match kept
          iprobeMatched,
          irecvOf(0, 2, 1),
          irecvOf(5, 1, 1),
          irecvOf(3, 2, 4),  // ordinals may go back (completion order)
          flagOf(DecisionKind::Test, true),
          flagOf(DecisionKind::Testall, false),
          indexOf(DecisionKind::Waitany, -1),
          indexOf(DecisionKind::Waitany, 0),
          indexOf(DecisionKind::Waitany, 13),
          indexOf(DecisionKind::Waitany, 14),
          indexOf(DecisionKind::Waitany, 100000),
          indexOf(DecisionKind::Testany, -1, false),
          indexOf(DecisionKind::Testany, -1, true),
          indexOf(DecisionKind::Testany, 12, true),
          indexOf(DecisionKind::Testany, 4000, true),
          someOf(DecisionKind::Waitsome, {2, 0, 1}),
          someOf(DecisionKind::Waitsome, {}, true),
          someOf(DecisionKind::Testsome, {}),
          someOf(DecisionKind::Testsome, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})};
}

}  // namespace

TEST_CASE("a decision log round-trips every kind of decision", "[record]") {
  const std::vector<Decision> decisions = everyKind();
  const std::string bytes = encodeAll(decisions);
  auto log = record::decode(bytes);
  REQUIRE(log);
  CHECK(log->rank == 2);
  CHECK(log->size == 4);
  CHECK(log->complete);
  CHECK(log->decisions == decisions.size());
  CHECK(log->bytes == bytes.size());
  CHECK(expand(*log) == decisions);
}

TEST_CASE("equal decisions in a row are one run", "[record]") {
  std::vector<Decision> decisions(1000, flagOf(DecisionKind::Test, false));
  decisions.push_back(flagOf(DecisionKind::Test, true));
  decisions.insert(decisions.end(), 3, flagOf(DecisionKind::Test, false));
  const std::string bytes = encodeAll(decisions);
  auto log = record::decode(bytes);
  REQUIRE(log);
  REQUIRE(log->runs.size() == 3);
  CHECK(log->runs[0].count == 1000);
  CHECK(log->runs[1].count == 1);
  CHECK(log->runs[2].count == 3);
  CHECK(expand(*log) == decisions);
  // Header 16, three entries, two repeats (1 + varint), end marker: far below a byte per decision.
  CHECK(bytes.size() < 40);
}

TEST_CASE("a wildcard exchange costs at most 4 bytes per decision", "[record]") {
  // 4 senders, tags 0..99, each round: 4 wildcard matches in varying order,
  // a Waitany per receive and a Test flag.
  std::vector<Decision> decisions;
  for (int round = 0; round < 100; ++round) {
    for (int k = 0; k < 4; ++k) decisions.push_back(matchOf(DecisionKind::RecvMatch, 1 + (round * 7 + k * 3) % 4, round));
    for (int k = 0; k < 4; ++k) {
      decisions.push_back(irecvOf(round * 4 + k, 1 + (k + round) % 4, round));
      decisions.push_back(indexOf(DecisionKind::Waitany, (k * 3 + round) % 4));
    }
    decisions.push_back(flagOf(DecisionKind::Test, round % 3 == 0));
  }
  const std::string bytes = encodeAll(decisions);
  auto log = record::decode(bytes);
  REQUIRE(log);
  CHECK(expand(*log) == decisions);
  INFO(bytes.size() << " bytes for " << decisions.size() << " decisions");
  CHECK(static_cast<double>(bytes.size()) / static_cast<double>(decisions.size()) <= 4.0);
}

TEST_CASE("a log without its end marker is cut short, its decisions still valid", "[record]") {
  const std::vector<Decision> decisions = everyKind();
  auto log = record::decode(encodeAll(decisions, false));
  REQUIRE(log);
  CHECK_FALSE(log->complete);
  CHECK(expand(*log) == decisions);
}

TEST_CASE("a changed byte in a complete log fails its checksum", "[record]") {
  std::string bytes = encodeAll(everyKind());
  // Change the source of the first match (byte 17: the entry byte is 16).
  bytes[17] = static_cast<char>(bytes[17] ^ 1);
  auto log = record::decode(bytes);
  REQUIRE_FALSE(log);
  CHECK_THAT(log.error().message, Catch::Contains("checksum mismatch"));
}

TEST_CASE("malformed logs are errors with the byte offset", "[record]") {
  CHECK_THAT(record::decode("").error().message, Catch::Contains("no MPIDBGR1 header"));
  CHECK_THAT(record::decode("MPIDBGR2xxxxxxxx").error().message, Catch::Contains("no MPIDBGR1 header"));
  std::string header = encodeAll({}, false);
  REQUIRE(header.size() == record::kHeaderBytes);
  CHECK(record::decode(header).value().decisions == 0);
  CHECK_THAT(record::decode(header + "\xB0").error().message, Catch::Contains("byte 16: unknown entry kind 11"));
  CHECK_THAT(record::decode(header + "\xF0\x03").error().message, Catch::Contains("repeat without a decision"));
  CHECK_THAT(record::decode(header + "\x10\x81").error().message, Catch::Contains("byte 16: truncated entry"));
  CHECK_THAT(record::decode(header + "\x51").value().runs.at(0).decision.flag == true ? std::string("ok") : "x",
             Catch::Equals("ok"));
  CHECK_THAT(record::decode(header + "\x53").error().message, Catch::Contains("malformed MPI_Test entry"));
  CHECK_THAT(record::decode(header + "\x9F\xff\xff\xff\xff\x0f").error().message, Catch::Contains("beyond the end"));
  CHECK_THAT(record::decode(header + "\x51" + std::string(1, '\0') + "\x01").error().message,
             Catch::Contains("truncated end marker"));
  // Found by fuzz_decision_log: a Waitany index varint cut short left a huge
  // value that overflowed when turned into an index.
  CHECK_THAT(record::decode(header + "\x7F\xff\xff\xff\xff\xff\xff\xff\xff\xff").error().message,
             Catch::Contains("truncated entry"));
  // Found by fuzz_decision_log: an MPI_Irecv ordinal delta of -2^63 overflowed.
  CHECK_THAT(record::decode(header + "\x40\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x01\x01").error().message,
             Catch::Contains("malformed MPI_Irecv entry"));
}

TEST_CASE("decisions describe themselves in the words of MPI", "[record]") {
  CHECK(record::describe(matchOf(DecisionKind::RecvMatch, 3, 7)) == "MPI_Recv matched source=3 tag=7");
  CHECK(record::describe(irecvOf(4, 1, 0)) == "MPI_Irecv #4 matched source=1 tag=0");
  CHECK(record::describe(indexOf(DecisionKind::Testany, 2, true)) == "MPI_Testany flag=1 index=2");
  CHECK(record::describe(indexOf(DecisionKind::Waitany, -1)) == "MPI_Waitany index=MPI_UNDEFINED");
  CHECK(record::describe(someOf(DecisionKind::Waitsome, {0, 3})) == "MPI_Waitsome indices=[0,3]");
  CHECK(record::describe(flagOf(DecisionKind::Iprobe, false)) == "MPI_Iprobe flag=0");
}

TEST_CASE("firstDifference finds where two runs' decisions part", "[record]") {
  std::vector<Decision> a(50, flagOf(DecisionKind::Test, false));
  a.push_back(indexOf(DecisionKind::Waitany, 2));
  std::vector<Decision> b = a;
  auto la = record::decode(encodeAll(a)).value();
  CHECK(core::firstDifference(la, record::decode(encodeAll(b)).value()).empty());
  b[50] = indexOf(DecisionKind::Waitany, 0);
  CHECK(core::firstDifference(la, record::decode(encodeAll(b)).value()) ==
        "decision #51: MPI_Waitany index=2 in one, MPI_Waitany index=0 in the other");
  b.resize(49);  // runs of different lengths
  CHECK(core::firstDifference(la, record::decode(encodeAll(b)).value()) ==
        "decision #50: the second log ends, the first goes on with MPI_Test flag=0");
}

TEST_CASE("readRecordDir reads the ranks' logs and names the broken ones", "[record]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("mpidbg-record-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  CHECK_THAT(core::readRecordDir(dir.string()).error().message, Catch::Contains("is not a directory"));
  fs::create_directories(dir);
  CHECK_THAT(core::readRecordDir(dir.string()).error().message, Catch::Contains("holds no decision logs"));
  std::ofstream(dir / "rank-0.rec", std::ios::binary) << encodeAll(everyKind(), true, 0, 2);
  std::ofstream(dir / "rank-1.rec", std::ios::binary) << "garbage";
  std::ofstream(dir / "notes.txt") << "not a log";
  auto run = core::readRecordDir(dir.string());
  REQUIRE(run);
  REQUIRE(run->logs.size() == 1);
  CHECK(run->logs.at(0).decisions == everyKind().size());
  REQUIRE(run->errors.size() == 1);
  CHECK_THAT(run->errors.at(1), Catch::Contains("rank-1.rec: not an mpidbg decision log"));
  CHECK_THAT(core::summarize(run->logs.at(0)), Catch::StartsWith("24 decisions (MPI_Iprobe 3, MPI_Irecv 3,"));
  fs::remove_all(dir);
}

TEST_CASE("mpidbg/record replies round-trip", "[record]") {
  ccs::proto::RecordInfo a;
  a.rank = 3;
  a.recording = true;
  a.recordPath = "/tmp/rec/rank-3.rec";
  a.recorded = 40;
  a.recordBytes = 97;
  a.byKind = "MPI_Recv:20,MPI_Waitany:20";
  ccs::proto::RecordInfo b;
  b.rank = 4;
  b.replaying = false;
  b.replayPath = "/tmp/old/rank-4.rec";
  b.replayed = 7;
  b.replayTotal = 9;
  b.diverged = "decision #8: the program asks for MPI_Recv\nbut ...";
  const std::vector<ccs::proto::RecordInfo> infos{a, b};
  auto back = ccs::proto::decodeRecordInfos(ccs::proto::encode(infos));
  REQUIRE(back);
  REQUIRE(back->size() == 2);
  CHECK((*back)[0].byKind == a.byKind);
  CHECK((*back)[0].recording);
  CHECK((*back)[1].diverged == b.diverged);
  CHECK((*back)[1].replayTotal == 9);
  CHECK_THAT(ccs::proto::decodeRecordInfos("rank=1\n--\n").error().message, Catch::Contains("missing key 'recording'"));
}
