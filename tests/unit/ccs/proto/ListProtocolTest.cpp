#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ccs/proto/CharmDebug.hpp"
#include "ccs/proto/ListProtocol.hpp"
#include "ccs/proto/NodeTable.hpp"
#include "tests/unit/ccs/Transcript.hpp"

using namespace mpidbg::ccs::proto;

namespace {

std::vector<std::uint8_t> hex(const std::string& digits) {
  std::vector<std::uint8_t> out;
  REQUIRE(mpidbg::ccs::test::decodeHex(digits, out));
  return out;
}

}  // namespace

TEST_CASE("ccs_list_len requests are the bytes CharmDebug sends", "[ccs][list]") {
  // Capture 05a: [pathLen 13]["charm/entries"][NUL].
  CHECK(encodeListLenRequest("charm/entries") == hex("0000000d636861726d2f656e747269657300"));
  auto path = decodeListLenRequest(hex("0000000d636861726d2f656e747269657300"));
  REQUIRE(path.has_value());
  CHECK(*path == "charm/entries");
  // The NUL is optional.
  auto bare = decodeListLenRequest(hex("0000000467726964"));
  REQUIRE(bare.has_value());
  CHECK(*bare == "grid");
}

TEST_CASE("ccs_list_items requests round-trip and match capture 05b", "[ccs][list]") {
  ListItemsRequest request;
  request.lo = 0;
  request.hiPlus1 = 4;
  request.path = "charm/entries";
  const auto bytes = encodeListItemsRequest(request);
  CHECK(bytes == hex("0000000000000004000000000000000d636861726d2f656e747269657300"));
  auto back = decodeListItemsRequest(bytes);
  REQUIRE(back.has_value());
  CHECK(back->lo == 0);
  CHECK(back->hiPlus1 == 4);
  CHECK(back->extra.empty());
  CHECK(back->path == "charm/entries");

  request.lo = 7;
  request.hiPlus1 = 9;
  request.extra = {1, 2, 3};
  auto withExtra = decodeListItemsRequest(encodeListItemsRequest(request));
  REQUIRE(withExtra.has_value());
  CHECK(withExtra->lo == 7);
  CHECK(withExtra->hiPlus1 == 9);
  CHECK(withExtra->extra == std::vector<std::uint8_t>{1, 2, 3});
}

TEST_CASE("malformed list requests are errors naming the problem", "[ccs][list]") {
  struct Row {
    const char* hexBody;
    const char* message;
  };
  const Row rows[] = {
      {"", "bad list request: the body ends before lo"},
      {"00000000", "bad list request: the body ends before hi+1"},
      {"0000000000000001", "bad list request: the body ends before the extra length"},
      {"ffffffff0000000100000000", "bad list request: lo -1 is negative"},
      {"000000020000000100000000", "bad list request: hi+1 1 is below lo 2"},
      {"00000000000186a100000000", "bad list request: 100001 items asked (at most 100000)"},
      {"0000000000000001ffffffff", "bad list request: extra length -1 (at most 4096)"},
      {"000000000000000100000004aabb", "bad list request: the body ends inside the extra bytes"},
      {"000000000000000100000000", "bad list request: the body ends before the path length"},
      {"00000000000000010000000000000100", "bad list request: path length 256 (at most 80)"},
      {"0000000000000001000000000000000467", "bad list request: the body ends inside the path"},
      {"000000000000000100000000000000046700726400", "bad list request: NUL inside the path"},
      {"00000000000000010000000000000004677269640000", "bad list request: 1 byte after the path"},
  };
  for (const Row& row : rows) {
    INFO(row.hexBody);
    auto decoded = decodeListItemsRequest(hex(row.hexBody));
    REQUIRE_FALSE(decoded.has_value());
    CHECK(decoded.error().message == row.message);
  }
  CHECK(decodeListLenRequest(hex("ffffffff")).error().message == "bad list request: path length -1 (at most 80)");
  CHECK(decodeListLenRequest(hex("000000")).error().message == "bad list request: the body ends before the path length");
}

TEST_CASE("list lengths and error replies", "[ccs][list]") {
  CHECK(encodeListLength(152) == hex("00000098"));  // capture 05a
  CHECK(*decodeListLength(hex("00000098")) == 152);
  CHECK(*decodeListLength(encodeListLength(-1)) == -1);
  CHECK(decodeListLength(hex("000098")).error().message == "bad ccs_list_len reply: the body ends before the length");
  CHECK(decodeListLength(hex("0000009800")).error().message == "bad ccs_list_len reply: 1 byte after the message");

  const auto error = encodeListError("no list named 'x'");
  CHECK(std::string(error.begin(), error.end()) == "mpidbg-error: no list named 'x'");
  CHECK(listErrorOf(error) == std::optional<std::string>("no list named 'x'"));
  // A .fmt reply starts with an intro byte, a .txt one with "sync=": neither is an error.
  CHECK_FALSE(listErrorOf(hex("0b71100000")).has_value());
  const std::string txt = "sync=0x71100000\n";
  CHECK_FALSE(listErrorOf(std::vector<std::uint8_t>(txt.begin(), txt.end())).has_value());
}

TEST_CASE("ccs_getinfo node tables match capture 01b and reject what is not one", "[ccs][list]") {
  // Capture 01b (+p4, non-SMP): 4 nodes of 1 PE each.
  const auto p4 = hex("0000000400000001000000010000000100000001");
  auto table = decodeBinary<NodeTable>(p4);
  REQUIRE(table.has_value());
  CHECK(table->pesPerNode == std::vector<std::int32_t>{1, 1, 1, 1});
  CHECK(encodeBinary(*table) == p4);
  // An SMP layout: 2 nodes of 4 and 3 PEs.
  CHECK(encodeBinary(NodeTable{{4, 3}}) == hex("000000020000000400000003"));

  struct Row {
    const char* bytes;
    const char* error;
  };
  for (const Row& row : {
           Row{"", "bad ccs_getinfo reply: the body ends before the node table count"},
           Row{"000000", "bad ccs_getinfo reply: the body ends before the node table count"},
           Row{"00000000", "bad ccs_getinfo reply: node table count 0 (between 1 and 1000000)"},
           Row{"ffffffff", "bad ccs_getinfo reply: node table count -1 (between 1 and 1000000)"},
           Row{"0000000200000001", "bad ccs_getinfo reply: the body ends inside the node table"},
           Row{"0000000100000000", "bad ccs_getinfo reply: node table 0 is 0 (between 1 and 1000000)"},
           Row{"00000002000000017fffffff", "bad ccs_getinfo reply: node table 1 is 2147483647 (between 1 and 1000000)"},
           Row{"000000010000000100", "bad ccs_getinfo reply: 1 byte after the node table"},
       }) {
    INFO(row.bytes);
    auto bad = decodeBinary<NodeTable>(hex(row.bytes));
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().message == row.error);
  }
}

TEST_CASE("Charm++'s debug handler messages match captures 03a, 06a and 06e", "[ccs][list][charm]") {
  // 03a: debug/converse/status on PE 0 of a running program.
  auto status = decodeBinary<CharmPeStatus>(hex("0000000000000001"));
  REQUIRE(status.has_value());
  CHECK(status->pe == 0);
  CHECK(status->running == 1);
  CHECK(encodeBinary(CharmPeStatus{3, 0}) == hex("0000000300000000"));
  // 06a: bp/set of entry 148 is '148' and a NUL; done is ffffffff.
  CHECK(encodeBinary(CharmEntryIndex{148}) == hex("31343800"));
  auto index = decodeBinary<CharmEntryIndex>(hex("31343800"));
  REQUIRE(index.has_value());
  CHECK(index->index == 148);
  auto done = decodeBinary<CharmBreakReply>(hex("ffffffff"));
  REQUIRE(done.has_value());
  CHECK(done->done());
  // 06e: an index Charm++ does not have is refused with 0.
  auto refused = decodeBinary<CharmBreakReply>(hex("00000000"));
  REQUIRE(refused.has_value());
  CHECK_FALSE(refused->done());
  // removeall's 1 is a native int, as Charm++ writes it on this machine.
  const std::int32_t one = 1;
  const auto* oneBytes = reinterpret_cast<const std::uint8_t*>(&one);
  CHECK(encodeBinary(CharmBreakReply{1}) == std::vector<std::uint8_t>(oneBytes, oneBytes + 4));
  // An index is read as Charm++'s sscanf and atoi read it: up to the NUL, blanks and what follows the digits ignored.
  CHECK(decodeBinary<CharmEntryIndex>(hex("2037783200ffff")).value().index == 7);  // " 7x2" NUL ...

  struct Row {
    const char* bytes;
    const char* error;
  };
  for (const Row& row : {
           Row{"00000000", "bad debug/converse/status reply: the body ends before the running flag"},
           Row{"0000000000000002", "bad debug/converse/status reply: running flag 2 (0 or 1)"},
           Row{"000000000000000100", "bad debug/converse/status reply: 1 byte after the message"},
       })
    CHECK(decodeBinary<CharmPeStatus>(hex(row.bytes)).error().message == row.error);
  CHECK(decodeBinary<CharmBreakReply>(hex("ffff")).error().message == "bad breakpoint reply: the body ends before the outcome");
  CHECK(decodeBinary<CharmBreakReply>(hex("ffffffff00")).error().message == "bad breakpoint reply: 1 byte after the message");
  for (const Row& row : {
           Row{"", "bad breakpoint request: the entry index '' is not a number from 0 to 2147483647"},
           Row{"616200", "bad breakpoint request: the entry index 'ab' is not a number from 0 to 2147483647"},
           Row{"2d3100", "bad breakpoint request: the entry index '-1' is not a number from 0 to 2147483647"},
           Row{"3231343734383336343800",
               "bad breakpoint request: the entry index '2147483648' is not a number from 0 to 2147483647"},
       })
    CHECK(decodeBinary<CharmEntryIndex>(hex(row.bytes)).error().message == row.error);
}
