// Charm++'s SHA-1 CCS mode replayed against byte-exact captures of a real
// Charm++ server (../shared/vectors/ccs/ 08a-08h, 10): our client emits the
// captured client bytes, our server the captured server bytes.
#include <catch2/catch.hpp>
#include <deque>

#include "tests/unit/ccs/Transcript.hpp"
#include "tests/unit/ccs/CharmTestKeys.hpp"
#include "ccs/transport/CharmAuthClient.hpp"
#include "ccs/transport/CharmAuthServer.hpp"

using namespace mpidbg::ccs;
using mpidbg::ccs::test::u32At;
using mpidbg::ccs::test::kKey;
using mpidbg::ccs::test::kWrongKey;
using mpidbg::ccs::test::readTranscript;
using mpidbg::ccs::test::TranscriptConnection;

namespace {

using Bytes = std::vector<std::uint8_t>;

TranscriptConnection connectionOf(const std::string& file, std::size_t index = 0) {
  auto transcript = readTranscript(file);
  INFO(transcript.problem);
  REQUIRE(transcript.ok);
  REQUIRE(index < transcript.connections.size());
  return transcript.connections[index];
}

/// The plain request inside a captured secure request (after its 32-byte prefix).
Request plainRequestOf(const Bytes& client) {
  RequestParser parser;
  std::span<const std::uint8_t> input = std::span(client).subspan(32);
  auto request = parser.feed(input);
  REQUIRE(request.has_value());
  REQUIRE(request->has_value());
  return **request;
}

/// Runs a client machine over the captured server bytes (all at once or one
/// byte at a time); returns everything it sent.
Bytes replayClient(CharmAuthClient& client, const Bytes& server, bool byteByByte) {
  Bytes sent = client.takeOutput();
  std::size_t chunk = byteByByte ? 1 : server.size();
  for (std::size_t at = 0; at < server.size(); at += chunk) {
    std::span<const std::uint8_t> input(server.data() + at, std::min(chunk, server.size() - at));
    auto done = client.feed(input);
    REQUIRE(done.has_value());
    CHECK(input.empty());
    Bytes out = client.takeOutput();
    sent.insert(sent.end(), out.begin(), out.end());
    CHECK(*done == (at + chunk >= server.size()));  // complete with the last byte only
  }
  return sent;
}

/// A server random source yielding the captured s2 and salt values in order.
CharmRandomSource capturedRandom(std::deque<std::uint32_t> values) {
  auto queue = std::make_shared<std::deque<std::uint32_t>>(std::move(values));
  return [queue]() -> mpidbg::Expected<std::uint32_t> {
    if (queue->empty()) return mpidbg::fail("test random source exhausted");
    std::uint32_t value = queue->front();
    queue->pop_front();
    return value;
  };
}

/// What a server connection produced, all steps concatenated.
struct ServerRun {
  Bytes sent;
  bool closed = false;
  std::string error;
  std::optional<Request> request;
};

/// Feeds a captured client stream into `server` (whole or byte by byte). A
/// decoded request is answered with the captured reply data (after the
/// 20-byte hash and 4-byte length) framed by replyFrame.
ServerRun replayServer(CharmAuthServer& server, const Bytes& client, const Bytes& capturedReply,
                       bool byteByByte) {
  ServerRun run;
  std::size_t chunk = byteByByte ? 1 : std::max<std::size_t>(client.size(), 1);
  for (std::size_t at = 0; at < client.size() && !run.closed && !run.request; at += chunk) {
    auto step = server.feed(std::span(client).subspan(at, std::min(chunk, client.size() - at)));
    run.sent.insert(run.sent.end(), step.send.begin(), step.send.end());
    run.closed = step.closeAfterSend;
    if (!step.error.empty()) run.error = step.error;
    run.request = std::move(step.request);
  }
  if (run.request) {
    REQUIRE(capturedReply.size() >= 24);
    Bytes data(capturedReply.begin() + 24, capturedReply.end());
    auto frame = server.replyFrame(data);
    REQUIRE(frame.has_value());
    run.sent.insert(run.sent.end(), frame->begin(), frame->end());
    run.closed = true;
  }
  return run;
}

}  // namespace

TEST_CASE("client replays the captured handshakes 08a and 08h", "[ccs][charm-auth]") {
  struct Row {
    std::string file;
    std::uint32_t s1;
    std::int32_t clientId;
    std::uint32_t salt;
  };
  for (const auto& row : {Row{"08a_secure_handshake.txt", 0x11223344, 0, 0x68778cb8},
                          Row{"08h_secure_second_handshake.txt", 0xdeadbeef, 1, 0xff7d0696}}) {
    for (bool byteByByte : {false, true}) {
      INFO(row.file << (byteByByte ? " byte by byte" : ""));
      auto conn = connectionOf(row.file);
      auto client = CharmAuthClient::forHandshake(0, kKey, row.s1);
      CHECK(replayClient(client, conn.server, byteByByte) == conn.client);
      REQUIRE(client.session().has_value());
      CHECK(client.session()->clientId == row.clientId);
      CHECK(client.session()->salt == row.salt);
      CHECK(client.session()->key == kKey);
    }
  }
}

TEST_CASE("client replays the captured requests 08b, 08c, 08g", "[ccs][charm-auth]") {
  struct Row {
    std::string file;
    std::uint32_t salt;
    std::uint32_t replySalt;
  };
  for (const auto& row :
       {Row{"08b_secure_getinfo.txt", 0x68778cb8, 0x55667788},
        Row{"08c_secure_status_second_request.txt", 0x68778cb9, 0x99aabbcc},
        Row{"08g_secure_request_after_failed_replay.txt", 0x68778cba, 0x0a0b0c0d}}) {
    for (bool byteByByte : {false, true}) {
      INFO(row.file << (byteByByte ? " byte by byte" : ""));
      auto conn = connectionOf(row.file);
      CharmSession session{0, kKey, 0, row.salt};
      auto client =
          CharmAuthClient::forRequest(session, plainRequestOf(conn.client), row.replySalt);
      REQUIRE(client.has_value());
      CHECK(session.salt == row.salt + 1);
      CHECK(replayClient(*client, conn.server, byteByByte) == conn.client);
      REQUIRE(client->reply().has_value());
      CHECK(*client->reply() == Bytes(conn.server.begin() + 24, conn.server.end()));
    }
  }
}

TEST_CASE("client replays the official C client's session (10)", "[ccs][charm-auth]") {
  auto transcript = readTranscript("10_official_c_client_secure_session.txt");
  REQUIRE(transcript.ok);
  REQUIRE(transcript.connections.size() == 6);
  const auto& hello = transcript.connections[0];
  auto handshake = CharmAuthClient::forHandshake(0, kKey, u32At(hello.client, 4));
  CHECK(replayClient(handshake, hello.server, false) == hello.client);
  REQUIRE(handshake.session().has_value());
  CharmSession session = *handshake.session();
  CHECK(session.salt == 0x02803b11);
  for (std::size_t i = 1; i < transcript.connections.size(); ++i) {
    INFO("connection " << i + 1);
    const auto& conn = transcript.connections[i];
    auto client =
        CharmAuthClient::forRequest(session, plainRequestOf(conn.client), u32At(conn.client, 8));
    REQUIRE(client.has_value());
    CHECK(replayClient(*client, conn.server, false) == conn.client);
    REQUIRE(client->reply().has_value());
    CHECK(*client->reply() == Bytes(conn.server.begin() + 24, conn.server.end()));
  }
  CHECK(session.salt == 0x02803b16);
}

TEST_CASE("client detects a rejected handshake and forged server bytes", "[ccs][charm-auth]") {
  SECTION("08f: wrong key, the server closes after our proof") {
    auto conn = connectionOf("08f_secure_handshake_wrong_key.txt");
    auto client = CharmAuthClient::forHandshake(0, kWrongKey, 0x11223344);
    Bytes sent = client.takeOutput();
    std::span<const std::uint8_t> input(conn.server);
    auto done = client.feed(input);
    REQUIRE(done.has_value());
    CHECK_FALSE(*done);
    Bytes proof = client.takeOutput();
    sent.insert(sent.end(), proof.begin(), proof.end());
    CHECK(sent == conn.client);
    CHECK(conn.serverClosed);
    CHECK_THAT(client.closedByServer().message, Catch::Contains("rejected the handshake"));
    CHECK_FALSE(client.session().has_value());
  }
  SECTION("08a answered by a server with another key: its proof does not verify") {
    auto conn = connectionOf("08a_secure_handshake.txt");
    auto client = CharmAuthClient::forHandshake(0, kWrongKey, 0x11223344);
    std::span<const std::uint8_t> input(conn.server);
    auto done = client.feed(input);
    REQUIRE_FALSE(done.has_value());
    CHECK_THAT(done.error().message, Catch::Contains("proof does not verify"));
    std::span<const std::uint8_t> more(conn.server);
    CHECK_FALSE(client.feed(more).has_value());
  }
  SECTION("08b with one bit of the reply hash flipped") {
    auto conn = connectionOf("08b_secure_getinfo.txt");
    CharmSession session{0, kKey, 0, 0x68778cb8};
    auto client = CharmAuthClient::forRequest(session, plainRequestOf(conn.client), 0x55667788);
    REQUIRE(client.has_value());
    Bytes forged = conn.server;
    forged[5] ^= 0x01;
    std::span<const std::uint8_t> input(forged);
    auto done = client->feed(input);
    REQUIRE_FALSE(done.has_value());
    CHECK_THAT(done.error().message, Catch::Contains("fails authentication"));
  }
  SECTION("a request closed without a reply (08d)") {
    auto conn = connectionOf("08d_secure_replay_rejected.txt");
    CharmSession session{0, kKey, 0, 0x68778cb8};
    auto client = CharmAuthClient::forRequest(session, plainRequestOf(conn.client), 0x55667788);
    REQUIRE(client.has_value());
    CHECK(client->takeOutput() == conn.client);
    CHECK(conn.server.empty());
    CHECK_THAT(client->closedByServer().message, Catch::Contains("without a reply"));
  }
}

TEST_CASE("server replays the captured 08 session byte for byte", "[ccs][charm-auth]") {
  for (bool byteByByte : {false, true}) {
    INFO((byteByByte ? "byte by byte" : "whole"));
    CharmKeyTable keys;
    keys.keys[0] = kKey;
    // Draws in capture order: 08a s2, 08a salt, 08f s2, 08h s2, 08h salt.
    auto state = std::make_shared<CharmAuthServerState>(
        keys, capturedRandom({0x476d0e83, 0x68778cb8, 0xa8dc15c6, 0xbbc489d1, 0xff7d0696}));
    CHECK_FALSE(state->allowsPlainRequests());
    struct Row {
      std::string file;
      bool accepted;
      std::optional<std::string> handler;
    };
    const Row rows[] = {
        {"08a_secure_handshake.txt", true, std::nullopt},
        {"08b_secure_getinfo.txt", true, "ccs_getinfo"},
        {"08c_secure_status_second_request.txt", true, "debug/converse/status"},
        {"08d_secure_replay_rejected.txt", false, std::nullopt},
        {"08f_secure_handshake_wrong_key.txt", false, std::nullopt},
        {"08g_secure_request_after_failed_replay.txt", true, "ccs_getinfo"},
        {"08h_secure_second_handshake.txt", true, std::nullopt},
    };
    for (const auto& row : rows) {
      INFO(row.file);
      auto conn = connectionOf(row.file);
      CharmAuthServer server(state);
      auto run = replayServer(server, conn.client, conn.server, byteByByte);
      CHECK(run.sent == conn.server);
      CHECK(run.closed);
      CHECK(run.error.empty() == row.accepted);
      CHECK(run.request.has_value() == row.handler.has_value());
      if (run.request && row.handler) CHECK(run.request->handler == *row.handler);
    }
    CHECK(state->clientCount() == 2);
    CHECK(state->expectedSalt(0) == 0x68778cbbu);
    CHECK(state->expectedSalt(1) == 0xff7d0696u);
  }
}

TEST_CASE("server replays the official C client's session (10)", "[ccs][charm-auth]") {
  auto transcript = readTranscript("10_official_c_client_secure_session.txt");
  REQUIRE(transcript.ok);
  CharmKeyTable keys;
  keys.keys[0] = kKey;
  auto state =
      std::make_shared<CharmAuthServerState>(keys, capturedRandom({0x8fc48810, 0x02803b11}));
  const std::string handlers[] = {"", "ccs_getinfo", "ping", "ping", "ping", "ping"};
  for (std::size_t i = 0; i < transcript.connections.size(); ++i) {
    INFO("connection " << i + 1);
    const auto& conn = transcript.connections[i];
    CharmAuthServer server(state);
    auto run = replayServer(server, conn.client, conn.server, false);
    CHECK(run.sent == conn.server);
    CHECK(run.closed);
    CHECK(run.error.empty());
    if (i > 0) {
      REQUIRE(run.request.has_value());
      CHECK(run.request->handler == handlers[i]);
      CHECK(server.replySalt() == u32At(conn.client, 8));
    }
  }
}

TEST_CASE("server refuses a plain request (08e is the Server's business)", "[ccs][charm-auth]") {
  auto conn = connectionOf("08e_secure_server_plain_request_denied.txt");
  CharmKeyTable keys;
  keys.keys[0] = kKey;
  CharmAuthServer server(std::make_shared<CharmAuthServerState>(keys));
  auto step = server.feed(conn.client);
  CHECK(step.send.empty());
  CHECK(step.closeAfterSend);
  CHECK_THAT(step.error, Catch::Contains("first byte 0x00"));
  CHECK_FALSE(server.replyFrame(Bytes{}).has_value());
}
