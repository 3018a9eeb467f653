// Charm++'s SHA-1 CCS mode: H() against every hash in the captures
// (../shared/vectors/ccs/ 08a-08h, 10), hostile input to the server state machine.
#include <catch2/catch.hpp>
#include <functional>
#include <random>

#include "tests/unit/ccs/Transcript.hpp"
#include "tests/unit/ccs/CharmTestKeys.hpp"
#include "ccs/transport/CharmAuthClient.hpp"
#include "ccs/transport/CharmAuthServer.hpp"
#include "ccs/transport/CharmKeyFile.hpp"

using namespace mpidbg::ccs;
using mpidbg::ccs::test::u32At;
using mpidbg::ccs::test::kCapturedKey;
using mpidbg::ccs::test::kDecimalKey;
using mpidbg::ccs::test::kWrongKey;
using mpidbg::ccs::test::readTranscript;

namespace {

using Bytes = std::vector<std::uint8_t>;

/// True when `bytes[offset, offset+20)` is H(salt, header) under `key`.
bool hashAt(const CharmKey& key, const Bytes& bytes, std::size_t offset, std::uint32_t salt,
            std::span<const std::uint8_t> header = {}) {
  if (bytes.size() < offset + kCharmHashBytes) return false;
  return charmAuthHashMatches(key, salt, header, std::span(bytes).subspan(offset, kCharmHashBytes));
}

/// A server random source counting up from `start`.
CharmRandomSource counter(std::uint32_t start) {
  return [next = start]() mutable -> mpidbg::Expected<std::uint32_t> { return next++; };
}

/// A level-0 server state and one client that completed a handshake with it in memory.
struct Fixture {
  std::shared_ptr<CharmAuthServerState> state;
  CharmSession session;
};

Fixture establish() {
  CharmKeyTable keys;
  keys.keys[0] = kDecimalKey;
  Fixture f{std::make_shared<CharmAuthServerState>(keys, counter(0x1000)), {}};
  CharmAuthServer server(f.state);
  auto client = CharmAuthClient::forHandshake(0, kDecimalKey, 0xabcd);
  auto toServer = server.feed(client.takeOutput());
  std::span<const std::uint8_t> s2(toServer.send);
  REQUIRE(client.feed(s2).has_value());
  auto answer = server.feed(client.takeOutput());
  REQUIRE(answer.closeAfterSend);
  std::span<const std::uint8_t> proof(answer.send);
  auto done = client.feed(proof);
  REQUIRE((done && *done));
  f.session = *client.session();
  return f;
}

/// A secure request with a chosen client id, salt and 40-byte header; the hash
/// is computed honestly so that only the named field is wrong.
Bytes secureRequest(std::int32_t clientId, std::uint32_t salt, const Bytes& header,
                    const Bytes& rest = {}) {
  auto prefix = charmAuthPrefix(kCharmAuthKindRequest, 0);
  Bytes out(prefix.begin(), prefix.end());
  appendBigEndian32(out, clientId);
  appendBigEndianU32(out, 0x55667788);
  auto hash = charmAuthHash(kDecimalKey, salt, header);
  REQUIRE(hash.has_value());
  out.insert(out.end(), hash->begin(), hash->end());
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

Bytes plainHeader(std::int32_t length, std::int32_t pe, std::string handler) {
  Bytes out;
  appendBigEndian32(out, length);
  appendBigEndian32(out, pe);
  handler.resize(32, '\0');
  out.insert(out.end(), handler.begin(), handler.end());
  return out;
}

/// Everything one server connection produced over a whole input.
struct Outcome {
  Bytes sent;
  bool closed = false;
  std::string error;
  std::optional<Request> request;
  bool operator==(const Outcome& o) const {
    bool sameRequest =
        request.has_value() == o.request.has_value() &&
        (!request || (request->handler == o.request->handler && request->pe == o.request->pe &&
                      request->data == o.request->data));
    return sent == o.sent && closed == o.closed && error == o.error && sameRequest;
  }
};

Outcome feedServer(CharmAuthServer& server, const Bytes& input, std::size_t chunk) {
  Outcome out;
  std::size_t at = 0;
  do {
    std::size_t n = std::min(chunk, input.size() - at);
    auto step = server.feed(std::span(input).subspan(at, n));
    at += n;
    out.sent.insert(out.sent.end(), step.send.begin(), step.send.end());
    out.closed = out.closed || step.closeAfterSend;
    if (!step.error.empty()) out.error = step.error;
    if (step.request) out.request = std::move(step.request);
  } while (at < input.size() && !out.closed && !out.request);
  return out;
}

}  // namespace

TEST_CASE("H() re-derives every hash in the captures, only with the decimal key",
          "[ccs][charm-auth]") {
  auto hexKey = parseCharmKey(kCapturedKey, KeyDigits::Hex);
  REQUIRE(hexKey.has_value());
  // First client salt of each file's request connections (10: one more per connection).
  const std::pair<std::string, std::uint32_t> files[] = {
      {"08a_secure_handshake.txt", 0},
      {"08b_secure_getinfo.txt", 0x68778cb8},
      {"08c_secure_status_second_request.txt", 0x68778cb9},
      {"08d_secure_replay_rejected.txt", 0x68778cb8},  // the stale salt it replays
      {"08f_secure_handshake_wrong_key.txt", 0},
      {"08g_secure_request_after_failed_replay.txt", 0x68778cba},
      {"08h_secure_second_handshake.txt", 0},
      {"10_official_c_client_secure_session.txt", 0x02803b11},
  };
  int checked = 0;
  for (const auto& [file, firstSalt] : files) {
    auto transcript = readTranscript(file);
    INFO(file << " " << transcript.problem);
    REQUIRE(transcript.ok);
    const CharmKey& key = file.starts_with("08f") ? kWrongKey : kDecimalKey;
    std::uint32_t salt = firstSalt;
    for (const auto& conn : transcript.connections) {
      const Bytes& c = conn.client;
      const Bytes& s = conn.server;
      REQUIRE(c.size() >= 8);
      if (c[2] == kCharmAuthKindHandshake) {
        std::uint32_t s1 = u32At(c, 4);
        std::uint32_t s2 = u32At(s, 0);
        CHECK(hashAt(key, c, 8, s2));
        CHECK_FALSE(hashAt(*hexKey, c, 8, s2));
        ++checked;
        if (s.size() >= 24) {
          CHECK(hashAt(key, s, 4, s1));
          CHECK_FALSE(hashAt(*hexKey, s, 4, s1));
          ++checked;
        }
      } else {
        auto header = std::span(c).subspan(32, kCharmHashedHeaderBytes);
        CHECK(hashAt(key, c, 12, salt, header));
        CHECK_FALSE(hashAt(*hexKey, c, 12, salt, header));
        ++checked;
        if (!s.empty()) {
          CHECK(hashAt(key, s, 0, u32At(c, 8)));
          CHECK_FALSE(hashAt(*hexKey, s, 0, u32At(c, 8)));
          ++checked;
        }
        ++salt;
      }
    }
  }
  CHECK(checked == 24);
  // 08f's proof was made with the wrong key: the right one does not give it.
  auto wrong = readTranscript("08f_secure_handshake_wrong_key.txt").connections.at(0);
  CHECK_FALSE(hashAt(kDecimalKey, wrong.client, 8, u32At(wrong.server, 0)));
}

TEST_CASE("server: malformed and hostile streams", "[ccs][charm-auth]") {
  struct Row {
    std::string name;
    std::function<Bytes(const CharmSession&)> input;
    std::size_t sentBytes;
    bool closes;
    std::string error;  ///< expected substring; empty = no error
    bool request;
  };
  auto valid = [](const CharmSession& s) {
    return secureRequest(0, s.salt, plainHeader(2, 0, "ping"), {'h', 'i'});
  };
  const Row rows[] = {
      {"valid request", valid, 0, false, "", true},
      {"bad mode byte",
       [](auto&) {
         return Bytes{0x81, 0, 1, 0};
       },
       0, true, "first byte 0x81", false},
      {"HTTP",
       [](auto&) {
         return Bytes{'G', 'E', 'T', ' '};
       },
       0, true, "first byte 0x47", false},
      {"bad version",
       [](auto&) {
         return Bytes{0x80, 1, 1, 0};
       },
       0, true, "version 0x01", false},
      {"bad kind",
       [](auto&) {
         return Bytes{0x80, 0, 2, 0};
       },
       0, true, "request kind 0x02", false},
      {"unknown level",
       [](auto&) {
         return Bytes{0x80, 0, 1, 7};
       },
       0, true, "security level 7", false},
      {"truncated handshake", [](auto&) { return Bytes{0x80, 0, 1, 0, 0x11, 0x22}; }, 0, false, "",
       false},
      {"handshake with a bad proof",
       [](auto&) {
         Bytes b{0x80, 0, 1, 0, 0x11, 0x22, 0x33, 0x44};
         b.resize(b.size() + 20, 0);
         return b;
       },
       4, true, "proof does not match", false},
      {"bad salt",
       [](const CharmSession& s) { return secureRequest(0, s.salt + 1, plainHeader(0, 0, "x")); },
       0, true, "does not match", false},
      {"bad MAC",
       [&](const CharmSession& s) {
         Bytes b = valid(s);
         b[20] ^= 0x40;
         return b;
       },
       0, true, "does not match", false},
      {"unknown client id",
       [](const CharmSession& s) { return secureRequest(5, s.salt, plainHeader(0, 0, "x")); }, 0,
       true, "unknown CCS client id 5", false},
      {"negative client id",
       [](const CharmSession& s) { return secureRequest(-1, s.salt, plainHeader(0, 0, "x")); }, 0,
       true, "unknown CCS client id -1", false},
      {"over-long length",
       [](const CharmSession& s) {
         return secureRequest(0, s.salt, plainHeader((1 << 20) + 1, 0, "x"));
       },
       0, true, "over the limit", false},
      {"length outside the plain range",
       [](const CharmSession& s) {
         return secureRequest(0, s.salt, plainHeader(0x7fffffff, 0, "x"));
       },
       0, true, "first byte 0x7f", false},
      {"handler without NUL",
       [](const CharmSession& s) {
         Bytes h = plainHeader(0, 0, "");
         std::fill(h.begin() + 8, h.end(), 'a');
         return secureRequest(0, s.salt, h);
       },
       0, true, "no NUL", false},
      {"huge multicast",
       [](const CharmSession& s) {
         return secureRequest(0, s.salt, plainHeader(0, -0x40000000, "x"));
       },
       0, true, "multicast", false},
      {"truncated request",
       [&](const CharmSession& s) {
         Bytes b = valid(s);
         b.resize(50);
         return b;
       },
       0, false, "", false},
  };
  for (const auto& row : rows) {
    INFO(row.name);
    Outcome results[2];
    for (std::size_t i = 0; i < 2; ++i) {
      Fixture f = establish();
      CharmAuthServer server(f.state);
      Bytes input = row.input(f.session);
      results[i] = feedServer(server, input, i == 0 ? input.size() : 1);
    }
    CHECK(results[0] == results[1]);  // byte-by-byte feeding equals whole feeding
    const Outcome& out = results[0];
    CHECK(out.sent.size() == row.sentBytes);
    CHECK(out.closed == row.closes);
    if (row.error.empty())
      CHECK(out.error.empty());
    else
      CHECK_THAT(out.error, Catch::Contains(row.error));
    CHECK(out.request.has_value() == row.request);
  }
}

TEST_CASE("server and client survive 20k mutated streams", "[ccs][charm-auth]") {
  std::vector<Bytes> clientStreams;
  std::vector<Bytes> serverStreams;
  for (const char* file :
       {"08a_secure_handshake.txt", "08b_secure_getinfo.txt",
        "08c_secure_status_second_request.txt", "08f_secure_handshake_wrong_key.txt",
        "08h_secure_second_handshake.txt", "10_official_c_client_secure_session.txt"}) {
    for (const auto& conn : readTranscript(file).connections) {
      clientStreams.push_back(conn.client);
      serverStreams.push_back(conn.server);
    }
  }
  Fixture f = establish();
  clientStreams.push_back(secureRequest(0, f.session.salt, plainHeader(2, -2, "ping"),
                                        {0, 0, 0, 0, 0, 0, 0, 1, 'h', 'i'}));
  std::mt19937 rng(20240611);
  auto pick = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  auto mutate = [&](Bytes b) {
    for (std::size_t ops = 1 + pick(4); ops > 0; --ops) {
      switch (pick(5)) {
        case 0:
          if (!b.empty()) b[pick(b.size())] ^= static_cast<std::uint8_t>(1 << pick(8));
          break;
        case 1:
          if (!b.empty()) b[pick(b.size())] = static_cast<std::uint8_t>(pick(256));
          break;
        case 2:
          if (!b.empty()) b.resize(pick(b.size()));
          break;
        case 3:
          b.insert(b.begin() + static_cast<std::ptrdiff_t>(pick(b.size() + 1)),
                   static_cast<std::uint8_t>(pick(256)));
          break;
        default:
          for (std::size_t i = pick(64); i > 0; --i)
            b.push_back(static_cast<std::uint8_t>(pick(256)));
      }
    }
    return b;
  };
  std::size_t requests = 0;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    Bytes input;
    if (iteration % 4 == 0) {
      // An authentic request with its unauthenticated part mutated: the
      // handler name past 8 characters, the PE list and the data.
      Bytes request = clientStreams.back();
      auto head = secureRequest(0, *f.state->expectedSalt(0),
                                Bytes(request.begin() + 32, request.begin() + 72));
      Bytes tail = mutate(Bytes(request.begin() + 48, request.end()));
      input.assign(head.begin(), head.begin() + 48);
      input.insert(input.end(), tail.begin(), tail.end());
    } else {
      input = mutate(clientStreams[pick(clientStreams.size())]);
    }
    CharmAuthServer server(f.state, 4096);
    auto out = feedServer(server, input, 1 + pick(40));
    CHECK(out.sent.size() <= 32);
    if (out.request) {
      ++requests;
      CHECK(out.request->data.size() <= 4096);
      CHECK(server.replyFrame(out.request->data).has_value());
    }
    // The client side against mutated server bytes.
    CharmSession session = f.session;
    auto client = iteration % 2 ? CharmAuthClient::forHandshake(0, kDecimalKey, 1)
                                : *CharmAuthClient::forRequest(session, Request{0, {}, "x", {}}, 2);
    Bytes reply = mutate(serverStreams[pick(serverStreams.size())]);
    std::span<const std::uint8_t> rest(reply);
    while (!rest.empty()) {
      auto done = client.feed(rest);
      if (!done || *done) break;
    }
    (void)client.closedByServer();
  }
  CHECK(f.state->clientCount() <= 20001);
  CHECK(requests > 1000);  // the accepted path was exercised too
}
