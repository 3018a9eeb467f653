// Plain CCS framing: encoder, incremental parsers, malformed streams.
#include <catch2/catch.hpp>

#include "ccs/transport/Endpoint.hpp"
#include "ccs/transport/Frame.hpp"

using namespace mpidbg::ccs;

namespace {

using Bytes = std::vector<std::uint8_t>;

/// A header with the given length, pe and 32 raw handler bytes.
Bytes header(std::int32_t length, std::int32_t pe, const std::string& handler) {
  Bytes out;
  appendBigEndian32(out, length);
  appendBigEndian32(out, pe);
  out.insert(out.end(), handler.begin(), handler.end());
  out.resize(kHeaderSize, 0);
  return out;
}

Request makeRequest(std::int32_t pe, std::vector<std::int32_t> pes, std::string handler,
                    Bytes data) {
  Request r;
  r.pe = pe;
  r.multicastPes = std::move(pes);
  r.handler = std::move(handler);
  r.data = std::move(data);
  return r;
}

/// Feeds `bytes` in chunks of `chunk`; collects requests, stops at an error.
struct FeedResult {
  std::vector<Request> requests;
  std::optional<std::string> error;
  bool idle = false;
};
FeedResult feedAll(const Bytes& bytes, std::size_t chunk, std::size_t limit = 1024) {
  FeedResult result;
  RequestParser parser(limit);
  for (std::size_t at = 0; at < bytes.size() && !result.error; at += chunk) {
    std::span<const std::uint8_t> input(bytes.data() + at, std::min(chunk, bytes.size() - at));
    while (!input.empty()) {
      auto step = parser.feed(input);
      if (!step) {
        result.error = step.error().message;
        break;
      }
      if (*step) result.requests.push_back(std::move(**step));
    }
  }
  result.idle = parser.idle();
  return result;
}

}  // namespace

TEST_CASE("big-endian helpers", "[ccs][frame]") {
  Bytes out;
  appendBigEndian32(out, 0x01020304);
  appendBigEndian32(out, -2);
  CHECK(out == Bytes{1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe});
  CHECK(readBigEndian32(out) == 0x01020304);
  CHECK(readBigEndian32(std::span(out).subspan(4)) == -2);
}

TEST_CASE("encodeRequest refuses what the wire cannot carry", "[ccs][frame]") {
  struct Row {
    const char* what;
    Request request;
    const char* mention;
  };
  const std::vector<Row> rows = {
      {"empty handler", makeRequest(0, {}, "", {}), "empty"},
      {"32-char handler", makeRequest(0, {}, std::string(32, 'h'), {}), "31"},
      {"NUL in handler", makeRequest(0, {}, std::string("a\0b", 3), {}), "NUL"},
      {"multicast list too short", makeRequest(-3, {0, 1}, "h", {}), "needs 3"},
      {"list on a single-PE request", makeRequest(0, {1}, "h", {}), "must not"},
      {"list on a broadcast", makeRequest(-1, {1}, "h", {}), "must not"},
  };
  for (const Row& row : rows) {
    SECTION(row.what) {
      auto encoded = encodeRequest(row.request);
      REQUIRE_FALSE(encoded.has_value());
      CHECK_THAT(encoded.error().message, Catch::Contains(row.mention));
    }
  }
  SECTION("31-char handler is fine") {
    CHECK(encodeRequest(makeRequest(0, {}, std::string(31, 'h'), {})).has_value());
  }
}

TEST_CASE("malformed request streams", "[ccs][frame]") {
  struct Row {
    const char* what;
    Bytes bytes;
    /// Empty: "need more bytes", no error.
    std::string mention;
  };
  Bytes tooManyPes = header(0, -300, "h");  // 300 PEs * 4 > 1024
  Bytes truncated = header(0, 0, "ccs_getinfo");
  truncated.resize(17);
  const std::vector<Row> rows = {
      {"truncated header", truncated, ""},
      {"truncated length", Bytes{0, 0}, ""},
      {"0x80 marker", header(static_cast<std::int32_t>(0x80000100u), 0, "h"), "SHA-1"},
      {"negative length", header(-5, 0, "h"), "0xff"},
      {"length over the limit", header(1025, 0, "h"), "over the limit"},
      {"unknown mode byte", Bytes{0x42, 0, 0, 0}, "0x42"},
      {"PE list over the limit", tooManyPes, "multicast"},
      {"most negative pe", header(0, INT32_MIN, "h"), "multicast"},
      {"handler without NUL", header(0, 0, std::string(32, 'x')), "no NUL"},
      {"empty handler", header(0, 0, ""), "empty handler"},
  };
  for (const Row& row : rows) {
    SECTION(row.what) {
      auto result = feedAll(row.bytes, row.bytes.size());
      CHECK(result.requests.empty());
      if (row.mention.empty()) {
        CHECK_FALSE(result.error.has_value());
        CHECK_FALSE(result.idle);
      } else {
        REQUIRE(result.error.has_value());
        CHECK_THAT(*result.error, Catch::Contains(row.mention));
      }
    }
  }
}

TEST_CASE("the over-limit length is refused before the data arrives", "[ccs][frame]") {
  RequestParser parser(16);
  Bytes bytes = header(17, 0, "h");
  std::span<const std::uint8_t> input(bytes.data(), 4);
  auto result = parser.feed(input);
  REQUIRE_FALSE(result.has_value());
  auto again = parser.feed(input);
  CHECK_FALSE(again.has_value());  // a failed parser stays failed
}

TEST_CASE("byte-by-byte feeding equals whole-buffer feeding", "[ccs][frame]") {
  Bytes stream;
  std::vector<Request> sent = {
      makeRequest(0, {}, "ccs_getinfo", {}),
      makeRequest(-3, {2, 0, 7}, "debug/converse/status", {0}),
      makeRequest(-1, {}, "debug/charm/bp/set", {'1', '4', '8', 0}),
      makeRequest(5, {}, std::string(31, 'z'), Bytes(300, 0xab)),
  };
  for (const Request& r : sent) {
    auto bytes = encodeRequest(r);
    REQUIRE(bytes.has_value());
    stream.insert(stream.end(), bytes->begin(), bytes->end());
  }
  for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{40}, stream.size()}) {
    INFO("chunk " << chunk);
    auto result = feedAll(stream, chunk);
    CHECK_FALSE(result.error.has_value());
    CHECK(result.idle);
    REQUIRE(result.requests.size() == sent.size());
    for (std::size_t i = 0; i < sent.size(); ++i) {
      CHECK(result.requests[i].pe == sent[i].pe);
      CHECK(result.requests[i].multicastPes == sent[i].multicastPes);
      CHECK(result.requests[i].handler == sent[i].handler);
      CHECK(result.requests[i].data == sent[i].data);
    }
  }
}

TEST_CASE("one feed stops at the end of the first of two requests", "[ccs][frame]") {
  auto a = encodeRequest(makeRequest(0, {}, "first", {1, 2}));
  auto b = encodeRequest(makeRequest(0, {}, "second", {}));
  REQUIRE((a && b));
  Bytes both = *a;
  both.insert(both.end(), b->begin(), b->end());
  RequestParser parser;
  std::span<const std::uint8_t> input(both);
  auto first = parser.feed(input);
  REQUIRE((first && *first));
  CHECK((*first)->handler == "first");
  CHECK(input.size() == b->size());
  auto second = parser.feed(input);
  REQUIRE((second && *second));
  CHECK((*second)->handler == "second");
  CHECK(input.empty());
}

TEST_CASE("reply parser", "[ccs][frame]") {
  SECTION("empty reply") {
    Bytes bytes{0, 0, 0, 0};
    ReplyParser parser;
    std::span<const std::uint8_t> input(bytes);
    auto reply = parser.feed(input);
    REQUIRE((reply && *reply));
    CHECK((*reply)->empty());
  }
  SECTION("negative length") {
    Bytes bytes{0xff, 0xff, 0xff, 0xff};
    ReplyParser parser;
    std::span<const std::uint8_t> input(bytes);
    auto reply = parser.feed(input);
    REQUIRE_FALSE(reply.has_value());
    CHECK_THAT(reply.error().message, Catch::Contains("negative"));
    Bytes more{0, 0, 0, 0};
    std::span<const std::uint8_t> next(more);
    CHECK_FALSE(parser.feed(next).has_value());  // stays failed
  }
  SECTION("over the limit") {
    Bytes bytes = encodeReply(Bytes(9, 1));
    ReplyParser parser(8);
    std::span<const std::uint8_t> input(bytes);
    CHECK_FALSE(parser.feed(input).has_value());
  }
  SECTION("two replies back to back") {
    Bytes bytes = encodeReply(Bytes{1, 2, 3});
    Bytes second = encodeReply(Bytes{});
    bytes.insert(bytes.end(), second.begin(), second.end());
    ReplyParser parser;
    std::span<const std::uint8_t> input(bytes);
    auto one = parser.feed(input);
    auto two = parser.feed(input);
    REQUIRE((one && *one && two && *two));
    CHECK(**one == Bytes{1, 2, 3});
    CHECK((*two)->empty());
  }
}

TEST_CASE("endpoints", "[ccs][endpoint]") {
  auto v4 = Endpoint::parse("127.0.0.1:4100");
  REQUIRE(v4.has_value());
  CHECK(v4->host == "127.0.0.1");
  CHECK(v4->port == 4100);
  CHECK(v4->toString() == "127.0.0.1:4100");
  auto v6 = Endpoint::parse("[::1]:65535");
  REQUIRE(v6.has_value());
  CHECK(v6->host == "::1");
  CHECK(v6->toString() == "[::1]:65535");
  auto name = Endpoint::parse("node-3.cluster:22");
  REQUIRE(name.has_value());
  CHECK(name->host == "node-3.cluster");

  for (const char* bad : {"", "host", ":80", "host:", "host:0", "host:65536", "host:8x", "host:-1",
                          "[::1", "[::1]80", "::1:80", "host:+80"}) {
    INFO(bad);
    auto parsed = Endpoint::parse(bad);
    REQUIRE_FALSE(parsed.has_value());
    CHECK_FALSE(parsed.error().message.empty());
  }
}
