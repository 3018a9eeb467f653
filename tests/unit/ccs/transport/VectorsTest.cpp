// The CCS parsers against byte-exact captures from a real Charm++ server
// (../shared/vectors/ccs/).
#include <catch2/catch.hpp>
#include <optional>

#include "tests/unit/ccs/Transcript.hpp"
#include "ccs/transport/Frame.hpp"

using namespace mpidbg::ccs;
using mpidbg::ccs::test::readTranscript;

namespace {

/// What one connection of a capture holds.
struct ExpectedExchange {
  std::int32_t pe;
  std::vector<std::int32_t> pes;
  std::string handler;
  std::string dataHex;
  /// Reply data length; nullopt when the server sent no bytes.
  std::optional<std::size_t> replyLength;
};

std::vector<std::uint8_t> hex(const std::string& text) {
  std::vector<std::uint8_t> out;
  REQUIRE(mpidbg::ccs::test::decodeHex(text, out));
  return out;
}

const std::string kStatus = "debug/converse/status";
const std::string kPath = "0000000d636861726d2f656e747269657300";
const std::string kItems = "000000000000000400000000" + kPath;

const std::vector<std::pair<std::string, std::vector<ExpectedExchange>>> kPlainCaptures = {
    {"01_ccs_getinfo.txt", {{0, {}, "ccs_getinfo", "", 12}}},
    {"01b_ccs_getinfo_p4.txt", {{0, {}, "ccs_getinfo", "", 20}}},
    {"02_unknown_handler.txt", {{0, {}, "no_such_handler", "", 0}}},
    {"03a_status_pe0.txt", {{0, {}, kStatus, "00", 8}}},
    {"03b_status_broadcast.txt", {{-1, {}, kStatus, "00", 16}}},
    {"04a_multicast_2pes_rejected_len1.txt", {{-2, {0, 1}, kStatus, "00", 0}}},
    {"04b_multicast_2pes_rejected_len0.txt", {{-2, {0, 1}, kStatus, "", std::nullopt}}},
    {"04c_out_of_range_pe_len1.txt", {{2, {}, kStatus, "00", 0}}},
    {"04d_out_of_range_pe_len0.txt", {{2, {}, "ccs_getinfo", "", std::nullopt}}},
    {"04e_multicast_p4_accepted_pes_0_1.txt", {{-2, {0, 1}, kStatus, "00", 16}}},
    {"04f_multicast_p4_accepted_pes_3_1.txt", {{-2, {3, 1}, kStatus, "00", 16}}},
    {"05a_list_len_charm_entries.txt", {{0, {}, "ccs_list_len", kPath, 4}}},
    {"05b_list_items_txt_charm_entries_0_4.txt", {{0, {}, "ccs_list_items.txt", kItems, 510}}},
    {"05c_list_items_fmt_charm_entries_0_4.txt", {{0, {}, "ccs_list_items.fmt", kItems, 338}}},
    {"06a_bp_set_pe0.txt", {{0, {}, "debug/charm/bp/set", "31343800", 4}}},
    {"06b_bp_remove_pe0.txt", {{0, {}, "debug/charm/bp/remove", "31343800", 4}}},
    {"06c_bp_set_broadcast.txt", {{-1, {}, "debug/charm/bp/set", "31343800", 4}}},
    {"06d_bp_remove_broadcast.txt", {{-1, {}, "debug/charm/bp/remove", "31343800", 4}}},
    {"06e_bp_set_invalid_index_pe0.txt", {{0, {}, "debug/charm/bp/set", "393939393900", 4}}},
    {"07a_freeze_status_continue_pe0.txt",
     {{0, {}, kStatus, "00", 8},
      {0, {}, "debug/converse/freeze", "00", std::nullopt},
      {0, {}, kStatus, "00", 8},
      {1, {}, kStatus, "00", 8},
      {0, {}, "debug/charm/continue", "00", 0},
      {0, {}, kStatus, "00", 8}}},
    {"07b_freeze_status_continue_broadcast.txt",
     {{-1, {}, kStatus, "00", 16},
      {-1, {}, "debug/converse/freeze", "00", std::nullopt},
      {-1, {}, kStatus, "00", 16},
      {-1, {}, "debug/charm/continue", "00", std::nullopt},
      {-1, {}, kStatus, "00", 16}}},
};

}  // namespace

TEST_CASE("plain captures decode and re-encode byte for byte", "[ccs][frame][vectors]") {
  for (const auto& [file, exchanges] : kPlainCaptures) {
    SECTION(file) {
      auto transcript = readTranscript(file);
      INFO(transcript.problem);
      REQUIRE(transcript.ok);
      std::vector<mpidbg::ccs::test::TranscriptConnection> connections;
      for (auto& c : transcript.connections)
        if (!c.client.empty()) connections.push_back(c);
      REQUIRE(connections.size() == exchanges.size());
      for (std::size_t i = 0; i < exchanges.size(); ++i) {
        const ExpectedExchange& want = exchanges[i];
        const auto& conn = connections[i];
        INFO("connection " << i);

        RequestParser parser;
        std::span<const std::uint8_t> input(conn.client);
        auto parsed = parser.feed(input);
        REQUIRE(parsed.has_value());
        REQUIRE(parsed->has_value());
        CHECK(input.empty());
        CHECK(parser.idle());
        const Request& request = **parsed;
        CHECK(request.pe == want.pe);
        CHECK(request.multicastPes == want.pes);
        CHECK(request.handler == want.handler);
        CHECK(request.data == hex(want.dataHex));

        auto encoded = encodeRequest(request);
        REQUIRE(encoded.has_value());
        CHECK(*encoded == conn.client);

        if (!want.replyLength) {
          CHECK(conn.server.empty());
          continue;
        }
        ReplyParser replyParser;
        std::span<const std::uint8_t> replyBytes(conn.server);
        auto reply = replyParser.feed(replyBytes);
        REQUIRE(reply.has_value());
        REQUIRE(reply->has_value());
        CHECK(replyBytes.empty());
        CHECK((*reply)->size() == *want.replyLength);
        CHECK(encodeReply(**reply) == conn.server);
        CHECK(conn.serverClosed);
      }
    }
  }
}

TEST_CASE("captured replies parse when fed one byte at a time", "[ccs][frame][vectors]") {
  auto transcript = readTranscript("05c_list_items_fmt_charm_entries_0_4.txt");
  REQUIRE(transcript.ok);
  const auto& server = transcript.connections.at(0).server;
  ReplyParser parser;
  std::optional<std::vector<std::uint8_t>> reply;
  for (std::size_t i = 0; i < server.size(); ++i) {
    std::span<const std::uint8_t> one(&server[i], 1);
    auto step = parser.feed(one);
    REQUIRE(step.has_value());
    CHECK(one.empty());
    if (*step) {
      CHECK(i + 1 == server.size());
      reply = std::move(**step);
    }
  }
  REQUIRE(reply.has_value());
  CHECK(reply->size() == 338);
}

TEST_CASE("captured bad first bytes are refused", "[ccs][frame][vectors]") {
  struct Row {
    std::string file;
    std::string mention;
  };
  const std::vector<Row> rows = {
      {"09a_bad_len_high_byte_0x20_full_header.txt", "0x20"},
      {"09b_bad_len_high_byte_0x7f_4_bytes_only.txt", "0x7f"},
      {"09c_http_get_rejected.txt", "0x47"},
      {"09d_sha1_marker_on_plain_server.txt", "SHA-1"},
      {"09g_bad_first_byte_0x81_4_bytes_only.txt", "0x81"},
      {"09h_bad_first_byte_0xff_4_bytes_only.txt", "0xff"},
  };
  for (const Row& row : rows) {
    SECTION(row.file) {
      auto transcript = readTranscript(row.file);
      REQUIRE(transcript.ok);
      const auto& client = transcript.connections.at(0).client;
      CHECK(transcript.connections.at(0).server.empty());
      // Refused from the first byte alone, as Charm++ does.
      RequestParser parser;
      std::span<const std::uint8_t> first(client.data(), 1);
      auto result = parser.feed(first);
      REQUIRE_FALSE(result.has_value());
      CHECK_THAT(result.error().message, Catch::Contains(row.mention));
      // And again with everything the client sent.
      RequestParser whole;
      std::span<const std::uint8_t> all(client);
      auto again = whole.feed(all);
      REQUIRE_FALSE(again.has_value());
      CHECK(again.error().message == result.error().message);
    }
  }
}

TEST_CASE("the SHA-1 marker is named as Charm++'s authenticated mode", "[ccs][frame][vectors]") {
  auto transcript = readTranscript("09d_sha1_marker_on_plain_server.txt");
  REQUIRE(transcript.ok);
  RequestParser parser;
  std::span<const std::uint8_t> input(transcript.connections.at(0).client);
  auto result = parser.feed(input);
  REQUIRE_FALSE(result.has_value());
  CHECK_THAT(result.error().message,
             Catch::Contains("0x80") && Catch::Contains("SHA-1") && Catch::Contains("not enabled"));
}

TEST_CASE("captured truncated headers need more bytes", "[ccs][frame][vectors]") {
  for (std::string file :
       {"09e_truncated_header_10_bytes.txt", "09f_stalled_partial_header_blocks_server.txt"}) {
    SECTION(file) {
      auto transcript = readTranscript(file);
      REQUIRE(transcript.ok);
      const auto& client = transcript.connections.at(0).client;
      CHECK(client.size() == 10);
      RequestParser parser;
      std::span<const std::uint8_t> input(client);
      auto result = parser.feed(input);
      REQUIRE(result.has_value());
      CHECK_FALSE(result->has_value());
      CHECK(input.empty());
      CHECK_FALSE(parser.idle());
    }
  }
}
