// Records of the mpidbg/gdbserver handler (ccs/proto/GdbServerProtocol.hpp).
#include <catch2/catch.hpp>

#include "ccs/proto/GdbServerProtocol.hpp"
#include "ccs/proto/Message.hpp"

using namespace mpidbg::ccs::proto;

TEST_CASE("gdbserver request bytes, round trip and defaults", "[ccs][gdbserver]") {
  GdbServerRequest r;
  r.connectTimeoutMs = 2500;
  CHECK(encode(r) == "connecttimeout=2500\n");
  auto back = decodeGdbServerRequest(encode(r));
  REQUIRE(back);
  CHECK(back->connectTimeoutMs == 2500);

  // Empty data, and unknown keys, mean the defaults.
  auto empty = decodeGdbServerRequest("");
  REQUIRE(empty);
  CHECK(empty->connectTimeoutMs == kDefaultGdbConnectTimeoutMs);
  auto future = decodeGdbServerRequest("mode=attach\n");
  REQUIRE(future);
  CHECK(future->connectTimeoutMs == kDefaultGdbConnectTimeoutMs);
}

TEST_CASE("malformed gdbserver requests", "[ccs][gdbserver]") {
  struct Row {
    std::string text;
    std::string error;
  };
  const Row rows[] = {
      {"connecttimeout=0\n", "bad gdbserver request: key 'connecttimeout' must be > 0"},
      {"connecttimeout=-5\n", "bad gdbserver request: key 'connecttimeout' has a bad integer value '-5'"},
      {"connecttimeout=99999999999\n",
       "bad gdbserver request: key 'connecttimeout' has a bad integer value '99999999999'"},
      {"connecttimeout=1\nconnecttimeout=2\n", "bad gdbserver request: duplicate key 'connecttimeout' in record"},
      {"connecttimeout=1\n--\nconnecttimeout=2\n", "bad gdbserver request: expected one record, got 2"},
      {"no equals sign\n", "bad gdbserver request: "},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    auto r = decodeGdbServerRequest(row.text);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::StartsWith(row.error));
  }
}

TEST_CASE("gdbserver reply bytes and round trip", "[ccs][gdbserver]") {
  GdbServerReply ok;
  ok.host = "127.0.0.1";
  ok.port = 41234;
  ok.pid = 4321;
  ok.serverPid = 4400;
  CHECK(encode(ok) == "host=127.0.0.1\nport=41234\npid=4321\nserverpid=4400\n");
  auto back = decodeGdbServerReply(encode(ok));
  REQUIRE(back);
  CHECK(back->error.empty());
  CHECK(back->host == "127.0.0.1");
  CHECK(back->port == 41234);
  CHECK(back->pid == 4321);
  CHECK(back->serverPid == 4400);

  // A wildcard-bound runtime sends an empty host: connect to its CCS host.
  GdbServerReply wildcard = ok;
  wildcard.host = "";
  auto any = decodeGdbServerReply(encode(wildcard));
  REQUIRE(any);
  CHECK(any->host.empty());

  // An error reply carries only the error, escaped like any value.
  GdbServerReply refused;
  refused.host = "ignored";
  refused.port = 1;
  refused.error = "rank 1 (pid 77) is already traced by process 9 (gdb)\nsecond line";
  CHECK(encode(refused) == "error=rank 1 (pid 77) is already traced by process 9 (gdb)\\nsecond line\n");
  auto why = decodeGdbServerReply(encode(refused));
  REQUIRE(why);
  CHECK(why->error == refused.error);
  CHECK(why->port == 0);
  CHECK(why->host.empty());
}

TEST_CASE("malformed gdbserver replies", "[ccs][gdbserver]") {
  struct Row {
    std::string text;
    std::string error;
  };
  const Row rows[] = {
      {"", "bad gdbserver reply: empty (the rank's runtime does not serve mpidbg/gdbserver?)"},
      {"port=1\npid=2\nserverpid=3\n", "bad gdbserver reply: record is missing key 'host'"},
      {"host=h\npid=2\nserverpid=3\n", "bad gdbserver reply: record is missing key 'port'"},
      {"host=h\nport=1\nserverpid=3\n", "bad gdbserver reply: record is missing key 'pid'"},
      {"host=h\nport=1\npid=2\n", "bad gdbserver reply: record is missing key 'serverpid'"},
      {"host=h\nport=0\npid=2\nserverpid=3\n", "bad gdbserver reply: key 'port' is 0"},
      {"host=h\nport=65536\npid=2\nserverpid=3\n", "bad gdbserver reply: key 'port' has a bad integer value '65536'"},
      {"host=h\nport=1\npid=0\nserverpid=3\n", "bad gdbserver reply: key 'pid' must be > 0"},
      {"host=h\nport=1\npid=-4\nserverpid=3\n", "bad gdbserver reply: key 'pid' must be > 0"},
      {"host=h\nport=1\npid=2\nserverpid=0\n", "bad gdbserver reply: key 'serverpid' must be > 0"},
      {"error=\n", "bad gdbserver reply: key 'error' is empty"},
      {"error=a\\qb\n", "bad gdbserver reply: "},
      {"host=h\nport=1\npid=2\nserverpid=3\n--\nhost=h\n", "bad gdbserver reply: expected one record, got 2"},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    auto r = decodeGdbServerReply(row.text);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::StartsWith(row.error));
  }
}

// The encoder and decoder every described message gets (ccs/proto/Message.hpp),
// on a message that uses each kind of field; kept here, next to the first
// protocol with optional and bounded fields.
namespace gdbserver_test_message {

struct Sample {
  std::int32_t rank = 0;
  bool held = false;
  std::uint64_t comm = 0;
  std::string note;
  std::uint32_t timeoutMs = 7;
  std::int32_t level = 0;

  static constexpr std::string_view kName = "sample record";
  static constexpr bool kListItem = true;
  static constexpr auto fields() {
    using T = Sample;
    return std::tuple{field("rank", &T::rank),          field("held", &T::held),
                      field("comm", &T::comm).hex(),    field("note", &T::note),
                      field("timeout", &T::timeoutMs).orDefault().positive(),
                      field("level", &T::level).between(0, 3)};
  }
};

}  // namespace gdbserver_test_message

TEST_CASE("described messages: bytes, round trip and errors naming the key", "[ccs][message]") {
  using gdbserver_test_message::Sample;
  const std::vector<Sample> samples{{3, true, 0x44000000, "a\nb", 250, 2}, {-1, false, 0, "", 1, 0}};
  const std::string text = encodeRecords(std::span<const Sample>(samples));
  CHECK(text ==
        "rank=3\nheld=1\ncomm=0x44000000\nnote=a\\nb\ntimeout=250\nlevel=2\n--\n"
        "rank=-1\nheld=0\ncomm=0x0\nnote=\ntimeout=1\nlevel=0\n--\n");
  CHECK(encodeRecord(samples[0]) == text.substr(0, text.find("--\n") + 3));
  auto back = decodeRecords<Sample>(text, "sample reply");
  REQUIRE(back);
  REQUIRE(back->size() == 2);
  CHECK((*back)[0].comm == 0x44000000);
  CHECK((*back)[0].note == "a\nb");
  CHECK((*back)[0].held);
  CHECK((*back)[1].rank == -1);
  auto defaulted = decodeRecord<Sample>("rank=1\nheld=0\ncomm=0x1\nnote=x\nlevel=1\n");
  REQUIRE(defaulted);
  CHECK(defaulted->timeoutMs == 7);

  const struct {
    const char* input;
    const char* error;
  } rows[] = {
      {"rank=1\nheld=0\ncomm=1\nnote=\nlevel=4\n", "bad sample record 0: key 'level' must be between 0 and 3"},
      {"rank=1\nheld=0\ncomm=1\nnote=\ntimeout=0\nlevel=1\n", "bad sample record 0: key 'timeout' must be > 0"},
      {"rank=1\nheld=2\ncomm=1\nnote=\nlevel=1\n", "bad sample record 0: key 'held' must be 0 or 1"},
      {"rank=1\nheld=0\nnote=\nlevel=1\n", "bad sample record 0: record is missing key 'comm'"},
      {"--\nrank=1\nrank=2\n", "bad sample reply: "},
  };
  for (const auto& row : rows) {
    INFO(row.input);
    auto r = decodeRecords<Sample>(row.input, "sample reply");
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::StartsWith(row.error));
  }
}
