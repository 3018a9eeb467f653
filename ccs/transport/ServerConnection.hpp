#pragma once

// Internals of Server (not part of the library's interface): the reply
// mailbox that wakes the poll loop, the per-connection wire protocol, and one
// accepted client connection with its ordered reply slots.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "ccs/transport/Frame.hpp"
#include "ccs/transport/Server.hpp"
#include "ccs/transport/TlsStream.hpp"

namespace mpidbg::ccs {

namespace detail {

/// Wakes the server's poll loop when a Responder answers from another
/// thread: an eventfd written at most once per wake-up. Shared by the server
/// and (weakly) by every Responder, so it outlives whichever goes last.
class ReplyMailbox {
 public:
  /// Errors: eventfd(2) failed.
  static Expected<std::shared_ptr<ReplyMailbox>> create();
  /// The eventfd to poll for POLLIN.
  int fd() const { return fd_.get(); }
  /// Any thread, after storing an answer: makes the poll loop look again.
  /// Free on the poll loop's own thread during a round (collected anyway).
  void post();
  /// Server thread: a poll round starts/ends on this thread.
  void beginRound() { pollThread_.store(std::this_thread::get_id()); }
  void endRound() { pollThread_.store(std::thread::id{}); }
  /// Server thread, before collecting answers: consumes pending wake-ups.
  void clear();

 private:
  explicit ReplyMailbox(ScopedFd fd) : fd_(std::move(fd)) {}
  ScopedFd fd_;
  std::atomic<bool> signalled_{false};
  std::atomic<std::thread::id> pollThread_{};
};

/// How one connection's bytes become requests and replies become bytes.
/// The plain CCS framing is one; Charm++'s SHA-1 mode (ccs/transport/CharmAuth.hpp,
/// byte-in/bytes-out) is meant to be another.
class WireProtocol {
 public:
  virtual ~WireProtocol() = default;
  /// Consumes bytes from the front of `input` up to the end of one request:
  /// the request, std::nullopt for more bytes, or an Error (the connection is
  /// then closed). May append bytes to send to `output` (e.g. a challenge).
  virtual Expected<std::optional<Request>> feed(std::span<const std::uint8_t>& input,
                                                std::vector<std::uint8_t>& output) = 0;
  /// Appends the wire form of a reply with `data` to `output`.
  virtual void encodeReply(std::span<const std::uint8_t> data,
                           std::vector<std::uint8_t>& output) = 0;
  /// True when no byte of a next request has been consumed.
  virtual bool idle() const = 0;
  /// True when the protocol has said all it will on this connection (e.g.
  /// Charm++'s handshake reply): close once the output is flushed.
  virtual bool finished() const { return false; }
};

/// The wire protocol for a connection whose first byte is `first`.
std::unique_ptr<WireProtocol> chooseProtocol(std::uint8_t first, const ServerOptions& options);

using LogFunction = std::function<void(const std::string&)>;

}  // namespace detail

/// State shared between a Responder and the connection's reply slot.
struct Responder::State {
  std::mutex mutex;
  bool answered = false;
  /// The reply; std::nullopt after noReply().
  std::optional<std::vector<std::uint8_t>> reply;
  std::weak_ptr<detail::ReplyMailbox> mailbox;
  /// Set for Responder::toCallback: receives the answer instead of a mailbox.
  std::function<void(std::optional<std::vector<std::uint8_t>>)> callback;
};

namespace detail {

/// One accepted client: its stream, wire protocol, unparsed input, replies
/// in request order and unsent output. Closing logs one line through `log`.
class ServerConnection {
 public:
  using Clock = std::chrono::steady_clock;

  ServerConnection(std::unique_ptr<Stream> stream, std::string peer, const ServerOptions& options,
                   const LogFunction& log);

  /// Reads what the stream has (handshake first), up to a per-round budget.
  void receive();
  /// The next whole request from the input already received, or nullopt
  /// (more bytes needed, throttled, one-shot connection served, or closed).
  std::optional<Request> nextRequest();
  /// Queues a reply slot answered at once (std::nullopt: no reply).
  void answerNow(std::optional<std::vector<std::uint8_t>> reply);
  /// Queues a reply slot answered later through the returned state.
  std::shared_ptr<Responder::State> defer(const std::shared_ptr<ReplyMailbox>& mailbox);
  /// False for Charm++'s one-request connections (plain, not persistent).
  bool persistent() const { return persistent_; }
  /// Marks the one request of a Charm++ plain connection as taken.
  void markServed() { served_ = true; }
  /// Moves answered replies at the front of the queue into the output, in
  /// request order.
  void collectReplies();
  /// Writes buffered output until the socket would block.
  void flush();
  /// Closes the connection (once), logging `why` when not empty.
  void close(const std::string& why);

  /// poll() events to ask for.
  short pollEvents() const;
  /// Records poll's answer for this connection.
  void noteReady(short revents);
  /// True when poll said readable, or received input waits to be parsed.
  bool wantsReceive() const;
  /// True when unsent output exists and the socket may take it.
  bool wantsFlush() const { return hasOutput() && !blockedOnWrite_; }
  /// True when input waits to be served without the socket becoming readable.
  bool hasBacklog() const;
  /// When the idle timer closes this connection, if it runs.
  std::optional<Clock::time_point> idleDeadline() const;
  /// Closes the connection if its idle timer ran out at `now`.
  void expire(Clock::time_point now);
  bool dead() const { return dead_; }
  /// The socket, for poll() (-1 once closed).
  int fd() const { return stream_ ? stream_->fd() : -1; }
  /// "address:port" of the client, for log lines.
  const std::string& peer() const { return peer_; }

 private:
  bool hasOutput() const { return outputOffset_ < output_.size(); }
  std::size_t unsentBytes() const { return output_.size() - outputOffset_; }
  bool throttled() const;
  /// True while the read-but-unparsed input holds more than the largest
  /// request plus some slack: input is not read until parsing catches up.
  bool inputFull() const;
  /// Appends one reply (nothing for std::nullopt) to the output.
  void emit(std::optional<std::vector<std::uint8_t>> reply);
  void endOfInput();
  void closeIfDone();

  std::unique_ptr<Stream> stream_;
  std::string peer_;
  const ServerOptions& options_;
  const LogFunction& log_;
  std::unique_ptr<WireProtocol> protocol_;
  bool persistent_;

  std::vector<std::uint8_t> input_;
  std::size_t inputOffset_ = 0;
  std::vector<std::uint8_t> output_;
  std::size_t outputOffset_ = 0;
  /// One entry per request taken, answered or not, in request order.
  struct Slot {
    std::shared_ptr<Responder::State> state;  // null: answered at once
    std::optional<std::vector<std::uint8_t>> reply;
  };
  std::deque<Slot> slots_;

  Clock::time_point lastActivity_;
  bool readable_ = false;        // poll said POLLIN/HUP/ERR this round
  bool served_ = false;          // plain one-shot connection took its request
  bool inputClosed_ = false;     // peer closed its side
  bool closeAfterFlush_ = false;
  bool blockedOnWrite_ = false;  // last write would block
  bool writeWantsRead_ = false;  // TLS write waits for a read
  bool readWantsWrite_ = false;  // TLS read/handshake waits for a write
  bool dead_ = false;
};

}  // namespace detail
}  // namespace mpidbg::ccs
