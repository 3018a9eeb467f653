// Forwarding over in-process trees of real Servers on loopback, plain and TLS.
#include <catch2/catch.hpp>
#include <cstring>
#include <mutex>
#include <thread>

#include "ccs/transport/Client.hpp"
#include "ccs/transport/Connection.hpp"
#include "ccs/tree/Forwarder.hpp"
#include "ccs/transport/Server.hpp"

using namespace mpidbg::ccs;
using namespace std::chrono_literals;
using Bytes = std::vector<std::uint8_t>;
using Clock = std::chrono::steady_clock;

namespace {

Security plain() { return Security{SecurityMode::Plain, {}, "mpidbg-session"}; }
Security tls() { return Security{SecurityMode::Tls, Bytes(32, 0x5a), "mpidbg-session"}; }

/// The 8-byte status record of `pe` (big-endian pe, running 1), as
/// debug/converse/status answers (capture 03b).
Bytes statusRecord(std::int32_t pe) {
  Bytes out;
  appendBigEndian32(out, pe);
  appendBigEndian32(out, 1);
  return out;
}

Bytes nativeInt(std::int32_t v) {
  Bytes out(4);
  std::memcpy(out.data(), &v, 4);
  return out;
}

MergeTable testRules() {
  MergeTable table;
  table.add("test/status", MergeRule::Concatenate);
  table.add("test/yes", MergeRule::LogicalAnd);
  table.add("test/pe", MergeRule::Sum);
  table.add("test/ragged", MergeRule::Sum);
  table.add("test/silent", MergeRule::Concatenate);
  return table;
}

/// One PE: a server driven by its own thread (pausable) and its forwarder.
struct Node {
  std::int32_t pe = 0;
  std::unique_ptr<Server> server;
  std::unique_ptr<Forwarder> forwarder;
  std::atomic<bool> stop{false};
  std::atomic<bool> paused{false};
  std::atomic<bool> idle{false};  ///< the poll thread has seen `paused` and stopped polling
  std::thread thread;

  /// Stops serving: returns once the poll thread is out of pollOnce.
  void pause() {
    paused = true;
    while (!idle) std::this_thread::sleep_for(1ms);
  }
  void resume() { paused = false; }

  ~Node() { halt(); }
  void halt() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
};

/// N nodes with status-like handlers and forwarders, all on 127.0.0.1.
struct Cluster {
  std::mutex logMutex;
  std::vector<std::string> logLines;
  std::vector<std::unique_ptr<Node>> nodes;
  std::vector<PeerEntry> table;
  Security security;

  Cluster(std::size_t count, Security sec, std::size_t fanOut = kDefaultFanOut)
      : security(std::move(sec)) {
    for (std::size_t i = 0; i < count; ++i) {
      auto node = std::make_unique<Node>();
      node->pe = static_cast<std::int32_t>(i);
      ServerOptions options;
      options.pe = node->pe;
      options.persistent = true;
      options.security = security;
      options.log = [this](const std::string& line) { addLog(line); };
      auto server = Server::create(std::move(options));
      REQUIRE(server.has_value());
      node->server = std::move(*server);
      std::int32_t pe = node->pe;
      node->server->addHandler("test/status",
                               [pe](const Request&) -> HandlerResult { return statusRecord(pe); });
      node->server->addHandler("test/yes",
                               [](const Request&) -> HandlerResult { return nativeInt(-1); });
      node->server->addHandler("test/pe",
                               [pe](const Request&) -> HandlerResult { return nativeInt(pe); });
      node->server->addHandler("test/ragged", [pe](const Request&) -> HandlerResult {
        return Bytes(pe == 0 ? 4 : 8, 1);
      });
      node->server->addHandler("test/norule",
                               [](const Request&) -> HandlerResult { return Bytes{1}; });
      node->server->addHandler("test/silent",
                               [](const Request&) -> HandlerResult { return std::nullopt; });
      ForwarderOptions fo;
      fo.pe = pe;
      fo.security = security;
      fo.mergeTable = testRules();
      fo.defaultFanOut = fanOut;
      fo.defaultDeadline = 2000ms;
      fo.maxThreads = 8;
      fo.log = [this](const std::string& line) { addLog(line); };
      auto forwarder = Forwarder::install(*node->server, std::move(fo));
      REQUIRE(forwarder.has_value());
      node->forwarder = std::move(*forwarder);
      table.push_back(PeerEntry{pe, "127.0.0.1", node->server->endpoint().port});
      nodes.push_back(std::move(node));
    }
    for (auto& node : nodes) {
      Node* n = node.get();
      n->thread = std::thread([n] {
        while (!n->stop) {
          n->idle = n->paused.load();
          if (n->idle)
            std::this_thread::sleep_for(5ms);
          else
            n->server->pollOnce(10ms);
        }
      });
    }
  }
  ~Cluster() {
    for (auto& node : nodes) node->halt();
  }
  void addLog(const std::string& line) {
    std::lock_guard lock(logMutex);
    logLines.push_back(line);
  }
  bool logged(const std::string& text) {
    std::lock_guard lock(logMutex);
    for (const auto& line : logLines)
      if (line.find(text) != std::string::npos) return true;
    return false;
  }

  ForwardRequest forward(std::string handler, std::size_t fanOut,
                         std::chrono::milliseconds deadline) {
    ForwardRequest r;
    r.deadline = deadline;
    r.fanOut = fanOut;
    r.inner.pe = kBroadcastPe;
    r.inner.handler = std::move(handler);
    r.table = table;
    return r;
  }

  mpidbg::Expected<ForwardReply> call(const ForwardRequest& request) {
    auto connection = Connection::open(table.front().endpoint(), security, 2000ms);
    if (!connection) return std::unexpected(connection.error());
    return callForward(**connection, request);
  }
};

Bytes statusOf(std::initializer_list<std::int32_t> pes) {
  Bytes out;
  for (std::int32_t pe : pes) {
    auto r = statusRecord(pe);
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

Bytes statusRange(std::int32_t count) {
  Bytes out;
  for (std::int32_t pe = 0; pe < count; ++pe) {
    auto r = statusRecord(pe);
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

std::vector<std::int32_t> missingPes(const ForwardReply& reply) {
  std::vector<std::int32_t> out;
  for (const auto& m : reply.missing) out.push_back(m.pe);
  return out;
}

}  // namespace

TEST_CASE("forward: status concatenates in PE order over 1, 2, 7, 64 nodes", "[ccs][forwarder]") {
  for (std::size_t count : {1u, 2u, 7u, 64u}) {
    Cluster cluster(count, plain());
    for (std::size_t fanOut : {2u, 4u}) {
      INFO(count << " nodes, fan-out " << fanOut);
      auto reply = cluster.call(cluster.forward("test/status", fanOut, 3000ms));
      REQUIRE(reply.has_value());
      CHECK_FALSE(reply->error.has_value());
      CHECK(reply->missing.empty());
      CHECK(reply->answered == count);
      CHECK(reply->payload == statusRange(static_cast<std::int32_t>(count)));
    }
  }
}

TEST_CASE("forward: TLS tree, logical AND and sum of native ints", "[ccs][forwarder]") {
  Cluster cluster(7, tls());
  auto yes = cluster.call(cluster.forward("test/yes", 2, 3000ms));
  REQUIRE(yes.has_value());
  CHECK(yes->payload == nativeInt(1));  // 06c: AND of ffffffff writes native 1
  auto sum = cluster.call(cluster.forward("test/pe", 4, 3000ms));
  REQUIRE(sum.has_value());
  CHECK(sum->payload == nativeInt(0 + 1 + 2 + 3 + 4 + 5 + 6));
  auto status = cluster.call(cluster.forward("test/status", 2, 3000ms));
  REQUIRE(status.has_value());
  CHECK(status->payload == statusRange(7));
}

TEST_CASE("forward: no merge rule or a failed merge is an error reply", "[ccs][forwarder]") {
  Cluster cluster(4, plain());
  auto norule = cluster.call(cluster.forward("test/norule", 2, 2000ms));
  REQUIRE(norule.has_value());
  REQUIRE(norule->error.has_value());
  CHECK_THAT(*norule->error, Catch::Contains("'test/norule' has no merge rule"));
  CHECK(norule->payload.empty());

  auto ragged = cluster.call(cluster.forward("test/ragged", 2, 2000ms));
  REQUIRE(ragged.has_value());
  REQUIRE(ragged->error.has_value());
  CHECK_THAT(*ragged->error, Catch::Contains("bytes but part 0 has"));
}

TEST_CASE("forward: a paused node and its subtree are missing, within the deadline",
          "[ccs][forwarder]") {
  // 7 nodes, fan-out 2: 0 -> {1 -> {2, 3}, 4 -> {5, 6}}.
  Cluster cluster(7, plain());
  cluster.nodes[1]->pause();
  auto started = Clock::now();
  auto reply = cluster.call(cluster.forward("test/status", 2, 1000ms));
  auto elapsed = Clock::now() - started;
  REQUIRE(reply.has_value());
  CHECK(elapsed < 1000ms + 400ms);
  CHECK(missingPes(*reply) == std::vector<std::int32_t>{1, 2, 3});
  CHECK(reply->answered == 4);
  CHECK(reply->payload == statusOf({0, 4, 5, 6}));
  CHECK_THAT(reply->missing[1].reason, Catch::Contains("behind PE 1"));

  // A paused leaf: only it is missing; its parent reports it.
  cluster.nodes[1]->resume();
  cluster.nodes[6]->pause();
  reply = cluster.call(cluster.forward("test/status", 2, 1000ms));
  REQUIRE(reply.has_value());
  CHECK(missingPes(*reply) == std::vector<std::int32_t>{6});
  CHECK(reply->payload == statusOf({0, 1, 2, 3, 4, 5}));

  // Everyone back: the stale connections are replaced.
  cluster.nodes[6]->resume();
  reply = cluster.call(cluster.forward("test/status", 2, 2000ms));
  REQUIRE(reply.has_value());
  CHECK(reply->missing.empty());
  CHECK(reply->payload == statusRange(7));
}

TEST_CASE("forward: a destroyed node is missing at once, others merged", "[ccs][forwarder]") {
  Cluster cluster(7, tls());
  cluster.nodes[4]->halt();
  cluster.nodes[4]->forwarder.reset();
  cluster.nodes[4]->server.reset();
  auto started = Clock::now();
  auto reply = cluster.call(cluster.forward("test/status", 2, 2000ms));
  REQUIRE(reply.has_value());
  CHECK(Clock::now() - started < 1000ms);
  CHECK(missingPes(*reply) == std::vector<std::int32_t>{4, 5, 6});
  CHECK_THAT(reply->missing[0].reason, Catch::Contains("refused"));
  CHECK(reply->payload == statusOf({0, 1, 2, 3}));
  // Said in the reply, not in the node's log (a rank's log is the application's stderr).
  CHECK_FALSE(cluster.logged("PE 4"));
}

TEST_CASE("forward: a handler that never answers makes its PE missing", "[ccs][forwarder]") {
  Cluster cluster(3, plain());
  auto reply = cluster.call(cluster.forward("test/silent", 2, 600ms));
  REQUIRE(reply.has_value());
  CHECK(missingPes(*reply) == std::vector<std::int32_t>{0, 1, 2});
  CHECK(reply->answered == 0);
}

TEST_CASE("forward: hostile envelopes get an error reply, the server survives",
          "[ccs][forwarder]") {
  Cluster cluster(3, plain());
  auto connection = Connection::open(cluster.table.front().endpoint(), plain(), 2000ms);
  REQUIRE(connection.has_value());
  auto good = cluster.forward("test/status", 2, 2000ms);
  auto goodBytes = encodeForwardRequest(good).value();

  std::vector<Bytes> hostile = {
      Bytes{},
      Bytes{0xff, 0xff, 0xff, 0xff},
      Bytes(goodBytes.begin(), goodBytes.begin() + 20),
      [&] {
        Bytes b = goodBytes;
        b.push_back(7);
        return b;
      }(),
      [&] {
        Bytes b = goodBytes;
        b[8] = 0xff;
        return b;
      }(),  // fan-out huge
  };
  ForwardRequest wrongPe = good;
  std::rotate(wrongPe.table.begin(), wrongPe.table.begin() + 1, wrongPe.table.end());
  hostile.push_back(encodeForwardRequest(wrongPe).value());

  for (const auto& data : hostile) {
    Request request;
    request.pe = 0;
    request.handler = "mpidbg/forward";
    request.data = data;
    auto raw = (*connection)->call(request, 2000ms);
    REQUIRE(raw.has_value());
    auto reply = decodeForwardReply(*raw);
    REQUIRE(reply.has_value());
    CHECK(reply->error.has_value());
  }
  CHECK(cluster.logged("refused forward envelope"));
  auto after = callForward(**connection, good);
  REQUIRE(after.has_value());
  CHECK(after->payload == statusRange(3));
}

TEST_CASE("routing hook: Charm++ broadcast, multicast and relay", "[ccs][forwarder]") {
  Cluster cluster(5, plain());
  const Endpoint root = cluster.table.front().endpoint();
  Request broadcast;
  broadcast.pe = kBroadcastPe;
  broadcast.handler = "test/status";
  broadcast.data = {0};

  // No PE table yet: empty reply, logged.
  auto before = Client::call(root, broadcast, 2000ms);
  REQUIRE(before.has_value());
  CHECK(before->empty());
  CHECK(cluster.logged("no PE table"));

  for (auto& node : cluster.nodes) node->forwarder->setPeerTable(cluster.table);
  auto all = Client::call(root, broadcast, 3000ms);
  REQUIRE(all.has_value());
  CHECK(*all == statusRange(5));  // 03b: PE 0 first

  // 04f: multicast [3, 1], records in list order, rooted at PE 3.
  Request multicast = broadcast;
  multicast.pe = -2;
  multicast.multicastPes = {3, 1};
  auto some = Client::call(root, multicast, 3000ms);
  REQUIRE(some.has_value());
  CHECK(*some == statusOf({3, 1}));

  // Bp/set-like AND as a broadcast: native int 1 (06c).
  Request yes = broadcast;
  yes.handler = "test/yes";
  CHECK(Client::call(root, yes, 3000ms).value() == nativeInt(1));

  // Point-to-point to another PE is relayed.
  Request direct = broadcast;
  direct.pe = 2;
  CHECK(Client::call(root, direct, 3000ms).value() == statusRecord(2));

  // No merge rule: empty reply and a log line (Charm++ would abort).
  Request norule = broadcast;
  norule.handler = "test/norule";
  CHECK(Client::call(root, norule, 3000ms).value().empty());
  CHECK(cluster.logged("'test/norule' has no merge rule"));

  // Unknown multicast PE.
  Request unknown = multicast;
  unknown.multicastPes = {1, 9};
  CHECK(Client::call(root, unknown, 3000ms).value().empty());
  CHECK(cluster.logged("multicast PE 9 is not in the table"));
}

TEST_CASE("forwarder: install option errors", "[ccs][forwarder]") {
  ServerOptions options;
  options.security = plain();
  auto server = Server::create(options);
  REQUIRE(server.has_value());
  ForwarderOptions bad;
  bad.maxThreads = 0;
  CHECK_FALSE(Forwarder::install(**server, bad).has_value());
  bad.maxThreads = 2;
  bad.defaultFanOut = 0;
  CHECK_FALSE(Forwarder::install(**server, bad).has_value());
  bad.defaultFanOut = 4;
  bad.defaultDeadline = 0ms;
  CHECK_FALSE(Forwarder::install(**server, bad).has_value());
  bad.defaultDeadline = 1000ms;
  CHECK(Forwarder::install(**server, bad).has_value());
}
