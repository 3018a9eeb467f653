// The stalling, flooding and unread peers of a load run.
#include "HostilePeers.hpp"

#include <algorithm>
#include <optional>
#include <random>
#include <thread>

#include "RawPeer.hpp"
#include "ccs/transport/Frame.hpp"

namespace mpidbg::load {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

/// Bound on opening one hostile connection.
constexpr auto kConnectTimeout = 5s;
/// Bytes of one flood connection.
constexpr std::size_t kFloodBytes = 4096;
/// Data length announced by an oversized header: the largest the plain
/// framing allows (first byte under 0x20), far over any server's bound.
constexpr std::int32_t kOversizedLength = 0x1fffffff;

/// A well-formed request to `pe`, encoded.
std::vector<std::uint8_t> encoded(const LoadOptions& options) {
  ccs::Request request;
  request.pe = options.pe;
  request.handler = options.handlers.front();
  auto bytes = ccs::encodeRequest(request);
  return bytes ? *bytes : std::vector<std::uint8_t>{};
}

/// The bytes a flood connection of `kind` sends.
std::vector<std::uint8_t> floodPayload(const std::string& kind, const LoadOptions& options,
                                       std::mt19937& random) {
  std::vector<std::uint8_t> out;
  if (kind == "http") {
    const std::string line = "GET /ccs HTTP/1.1\r\nHost: load\r\nX-Flood: 1\r\n\r\n";
    while (out.size() + line.size() <= kFloodBytes) out.insert(out.end(), line.begin(), line.end());
  } else if (kind == "random") {
    out.resize(kFloodBytes);
    for (auto& byte : out) byte = static_cast<std::uint8_t>(random());
    out[0] = static_cast<std::uint8_t>(0x20 + random() % 0xe0);  // never a plain first byte
  } else {
    out = encoded(options);
    out.resize(ccs::kHeaderSize);
    std::vector<std::uint8_t> length;  // replaces the header's length field
    ccs::appendBigEndian32(length, kOversizedLength);
    std::copy(length.begin(), length.end(), out.begin());
    out.resize(kFloodBytes, 0);
  }
  return out;
}

/// A raw connection to the server, or std::nullopt after counting the
/// failure in `tally` (the first one's message kept) and sleeping `backoff`.
std::optional<ScopedFd> connectOrBackOff(const ccs::Endpoint& server, HostileTally& tally,
                                         std::chrono::milliseconds backoff) {
  auto fd = connectRaw(server, kConnectTimeout);
  if (fd) return std::move(*fd);
  if (tally.connectFailures++ == 0) tally.firstConnectFailure = fd.error().message;
  std::this_thread::sleep_for(backoff);
  return std::nullopt;
}

}  // namespace

void HostileTally::merge(const HostileTally& other) {
  stalls += other.stalls;
  stallsClosedByServer += other.stallsClosedByServer;
  for (const auto& [kind, count] : other.floods) floods[kind] += count;
  floodsClosedByServer += other.floodsClosedByServer;
  floodsNotClosed += other.floodsNotClosed;
  unreadConnections += other.unreadConnections;
  unreadBytesSent += other.unreadBytesSent;
  unreadClosedByServer += other.unreadClosedByServer;
  if (connectFailures == 0) firstConnectFailure = other.firstConnectFailure;
  connectFailures += other.connectFailures;
}

std::size_t HostileTally::heldOpen() const {
  return (stalls - stallsClosedByServer) + floodsNotClosed +
         (unreadConnections - unreadClosedByServer);
}

HostilePeers::HostilePeers(const LoadOptions& options) : options_(options) {
  for (std::size_t i = 0; i < options_.stallers; ++i) threads_.emplace_back([this] { stall(); });
  for (std::size_t i = 0; i < options_.flooders; ++i)
    threads_.emplace_back([this, i] { flood(i); });
  for (std::size_t i = 0; i < options_.unread; ++i)
    threads_.emplace_back([this] { pipelineUnread(); });
}

HostilePeers::~HostilePeers() {
  if (!threads_.empty()) finish(0ms);
}

HostileTally HostilePeers::finish(std::chrono::milliseconds settle) {
  const auto deadline = Clock::now() + settle;
  settleDeadlineNs_ =
      std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count();
  stopFlooding_ = true;
  finishing_ = true;
  threads_.clear();  // joins
  std::lock_guard lock(mutex_);
  return tally_;
}

Clock::time_point HostilePeers::settleDeadline() const {
  return Clock::time_point(std::chrono::nanoseconds(settleDeadlineNs_.load()));
}

void HostilePeers::record(const HostileTally& tally) {
  std::lock_guard lock(mutex_);
  tally_.merge(tally);
}

void HostilePeers::stall() {
  HostileTally mine;
  // The first half of a well-formed header: the server must wait for the
  // rest, and give up after its idle timeout.
  std::vector<std::uint8_t> half = encoded(options_);
  half.resize(ccs::kHeaderSize / 2);
  const std::atomic<bool> never{false};
  while (!finishing_) {
    auto fd = connectOrBackOff(options_.server, mine, 100ms);
    if (!fd) continue;
    ++mine.stalls;
    bool closed = sendSome(fd->get(), half).peerClosed;
    while (!closed && Clock::now() < settleDeadline())
      closed = waitForClose(fd->get(), 200ms, never);
    if (closed) ++mine.stallsClosedByServer;
  }
  record(mine);
}

void HostilePeers::flood(std::size_t peer) {
  HostileTally mine;
  static const std::string kinds[] = {"http", "random", "oversized"};
  std::mt19937 random(static_cast<std::uint32_t>(peer * 7919 + 1));
  for (std::size_t n = peer; !stopFlooding_; ++n) {
    const std::string& kind = kinds[n % 3];
    const std::vector<std::uint8_t> payload = floodPayload(kind, options_, random);
    auto fd = connectOrBackOff(options_.server, mine, 50ms);
    if (!fd) continue;
    bool closed = sendSome(fd->get(), payload).peerClosed ||
                  waitForClose(fd->get(), options_.timeout, stopFlooding_);
    if (!closed && stopFlooding_) break;  // cut short by finish(): no verdict
    ++mine.floods[kind];
    if (closed)
      ++mine.floodsClosedByServer;
    else
      ++mine.floodsNotClosed;
  }
  record(mine);
}

void HostilePeers::pipelineUnread() {
  HostileTally mine;
  // Many well-formed requests back to back, sent again and again, on one
  // connection: once the server has closed it the peer is done (a second
  // connection opened late could outlast the run's settle time).
  std::vector<std::uint8_t> batch;
  const std::vector<std::uint8_t> one = encoded(options_);
  while (batch.size() < 64 * 1024) batch.insert(batch.end(), one.begin(), one.end());
  const std::atomic<bool> never{false};
  while (!finishing_) {
    auto fd = connectOrBackOff(options_.server, mine, 100ms);
    if (!fd) continue;
    ++mine.unreadConnections;
    std::size_t offset = 0;
    bool closed = false;
    while (!closed && Clock::now() < settleDeadline()) {
      if (finishing_) {
        closed = waitForClose(fd->get(), 200ms, never);
        continue;
      }
      SendResult sent = sendSome(fd->get(), std::span(batch).subspan(offset));
      mine.unreadBytesSent += sent.bytes;
      offset = (offset + sent.bytes) % batch.size();
      closed = sent.peerClosed || (sent.bytes == 0 && waitForClose(fd->get(), 100ms, never));
    }
    if (closed) ++mine.unreadClosedByServer;
    break;
  }
  record(mine);
}

}  // namespace mpidbg::load
