// The forwarding envelope's wire format: round trips and hostile input.
#include <catch2/catch.hpp>

#include "ccs/tree/ForwardEnvelope.hpp"

using namespace mpidbg::ccs;
using namespace std::chrono_literals;
using Bytes = std::vector<std::uint8_t>;

namespace {

ForwardRequest sampleRequest() {
  ForwardRequest r;
  r.deadline = 1500ms;
  r.fanOut = 3;
  r.inner.pe = -2;
  r.inner.multicastPes = {3, 1};
  r.inner.handler = "debug/converse/status";
  r.inner.data = {0};
  r.table = {{3, "127.0.0.1", 4000}, {1, "node-b.example", 4001}};
  return r;
}

Bytes be32(std::uint32_t v) {
  return {static_cast<std::uint8_t>(v >> 24), static_cast<std::uint8_t>(v >> 16),
          static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v)};
}

Bytes cat(std::initializer_list<Bytes> pieces) {
  Bytes out;
  for (const auto& p : pieces) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace

TEST_CASE("forward envelope: request round trip and exact bytes", "[ccs][forward]") {
  auto request = sampleRequest();
  auto bytes = encodeForwardRequest(request);
  REQUIRE(bytes.has_value());
  std::string handler = "debug/converse/status";
  Bytes expected = cat(
      {be32(1), be32(1500), be32(3), Bytes{21}, Bytes(handler.begin(), handler.end()),
       be32(0xfffffffe), be32(2), be32(3), be32(1), be32(1), Bytes{0}, be32(2), be32(3), Bytes{9},
       Bytes{'1', '2', '7', '.', '0', '.', '0', '.', '1'}, Bytes{0x0f, 0xa0}, be32(1), Bytes{14}});
  std::string host = "node-b.example";
  expected.insert(expected.end(), host.begin(), host.end());
  expected.insert(expected.end(), {0x0f, 0xa1});
  CHECK(*bytes == expected);

  auto decoded = decodeForwardRequest(*bytes);
  REQUIRE(decoded.has_value());
  CHECK(decoded->deadline == 1500ms);
  CHECK(decoded->fanOut == 3);
  CHECK(decoded->inner.pe == -2);
  CHECK(decoded->inner.multicastPes == std::vector<std::int32_t>{3, 1});
  CHECK(decoded->inner.handler == handler);
  CHECK(decoded->inner.data == Bytes{0});
  CHECK(decoded->table == request.table);

  auto ccs = makeForwardCcsRequest(request);
  REQUIRE(ccs.has_value());
  CHECK(ccs->pe == 3);
  CHECK(ccs->handler == "mpidbg/forward");
  CHECK(ccs->data == *bytes);
}

TEST_CASE("forward envelope: every truncation and trailing byte is an Error", "[ccs][forward]") {
  auto bytes = encodeForwardRequest(sampleRequest()).value();
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    INFO("first " << n << " bytes");
    CHECK_FALSE(decodeForwardRequest(std::span(bytes).first(n)).has_value());
  }
  bytes.push_back(0);
  auto trailing = decodeForwardRequest(bytes);
  REQUIRE_FALSE(trailing.has_value());
  CHECK_THAT(trailing.error().message, Catch::Contains("trailing"));
}

TEST_CASE("forward envelope: invalid requests refused on encode and decode", "[ccs][forward]") {
  struct Row {
    std::function<void(ForwardRequest&)> spoil;
    std::string message;
  };
  std::vector<Row> rows = {
      {[](ForwardRequest& r) { r.table.clear(); }, "empty PE table"},
      {[](ForwardRequest& r) { r.deadline = 0ms; }, "deadline"},
      {[](ForwardRequest& r) { r.deadline = 3600001ms; }, "deadline"},
      {[](ForwardRequest& r) { r.fanOut = 0; }, "fan-out"},
      {[](ForwardRequest& r) { r.fanOut = 65; }, "fan-out"},
      {[](ForwardRequest& r) { r.inner.handler = ""; }, "1..31"},
      {[](ForwardRequest& r) { r.inner.handler = std::string(32, 'h'); }, "1..31"},
      {[](ForwardRequest& r) { r.inner.handler = "mpidbg/forward"; }, "another forward"},
      {[](ForwardRequest& r) { r.inner.multicastPes = {1}; }, "needs 2 multicast PEs"},
      {[](ForwardRequest& r) { r.inner.pe = 0; }, "needs 0 multicast PEs"},
      {[](ForwardRequest& r) { r.table[1].pe = -4; }, "negative PE"},
      {[](ForwardRequest& r) { r.table[1].host = ""; }, "bad host"},
      {[](ForwardRequest& r) { r.table[1].port = 0; }, "port 0"},
  };
  for (const auto& row : rows) {
    auto request = sampleRequest();
    row.spoil(request);
    auto encoded = encodeForwardRequest(request);
    REQUIRE_FALSE(encoded.has_value());
    CHECK_THAT(encoded.error().message, Catch::Contains(row.message));
  }
}

TEST_CASE("forward envelope: hostile counts are refused before allocation", "[ccs][forward]") {
  auto good = encodeForwardRequest(sampleRequest()).value();
  // Version 2.
  Bytes v2 = good;
  v2[3] = 2;
  CHECK_THAT(decodeForwardRequest(v2).error().message, Catch::Contains("version 2"));
  // A multicast count of 2^32-1 with no PEs behind it.
  Bytes huge =
      cat({be32(1), be32(100), be32(4), Bytes{1, 'x'}, be32(0xffffffff), be32(0xffffffff)});
  CHECK_THAT(decodeForwardRequest(huge).error().message, Catch::Contains("multicast PE list"));
  // A table of 2^32-1 entries.
  Bytes table = cat(
      {be32(1), be32(100), be32(4), Bytes{1, 'x'}, be32(0), be32(0), be32(0), be32(0xffffffff)});
  CHECK_THAT(decodeForwardRequest(table).error().message, Catch::Contains("PE table"));
  // A data length past the end.
  Bytes data = cat({be32(1), be32(100), be32(4), Bytes{1, 'x'}, be32(0), be32(0), be32(1000)});
  CHECK_THAT(decodeForwardRequest(data).error().message, Catch::Contains("inner request data"));
}

TEST_CASE("forward envelope: reply round trip and hostile replies", "[ccs][forward]") {
  ForwardReply reply;
  reply.answered = 5;
  reply.missing = {{7, "connection refused"}, {8, std::string(300, 'r')}};
  reply.payload = {1, 2, 3};
  auto bytes = encodeForwardReply(reply);
  auto decoded = decodeForwardReply(bytes);
  REQUIRE(decoded.has_value());
  CHECK(decoded->answered == 5);
  REQUIRE(decoded->missing.size() == 2);
  CHECK(decoded->missing[0] == MissingPe{7, "connection refused"});
  CHECK(decoded->missing[1].reason.size() == kMaxMissingReason);  // cut on encode
  CHECK_FALSE(decoded->error.has_value());
  CHECK(decoded->payload == Bytes{1, 2, 3});
  for (std::size_t n = 0; n < bytes.size(); ++n)
    CHECK_FALSE(decodeForwardReply(std::span(bytes).first(n)).has_value());

  ForwardReply failed;
  failed.error = "handler 'x' has no merge rule";
  auto failedBytes = encodeForwardReply(failed);
  auto failedDecoded = decodeForwardReply(failedBytes);
  REQUIRE(failedDecoded.has_value());
  CHECK(failedDecoded->error == failed.error);
  CHECK(failedDecoded->payload.empty());

  Bytes badStatus = cat({be32(1), be32(0), be32(0), Bytes{2}, be32(0)});
  CHECK_THAT(decodeForwardReply(badStatus).error().message, Catch::Contains("status 2"));
  Bytes longReason = cat({be32(1), be32(0), be32(1), be32(3), Bytes{0x01, 0x00}});
  longReason.resize(longReason.size() + 256 + 5, 'a');
  CHECK_THAT(decodeForwardReply(longReason).error().message, Catch::Contains("reason of 256"));
  Bytes manyMissing = cat({be32(1), be32(0), be32(0x7fffffff)});
  CHECK_FALSE(decodeForwardReply(manyMissing).has_value());
}
