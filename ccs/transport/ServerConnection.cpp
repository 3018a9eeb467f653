// One accepted CCS client of the Server: handshake, input, ordered replies,
// output, idle timer and flood limits.
#include "ccs/transport/ServerConnection.hpp"

#include <poll.h>

#include <algorithm>

#include "ccs/transport/CharmAuthServer.hpp"

namespace mpidbg::ccs::detail {
namespace {

/// Bytes read per recv/SSL_read.
constexpr std::size_t kReadChunk = 16384;
/// Bytes read from one connection per poll round, so one busy client cannot
/// starve the others.
constexpr std::size_t kReadBudget = 256 * 1024;
/// Unanswered requests per connection before its input is no longer read.
constexpr std::size_t kMaxPendingReplies = 1024;
/// Unsent reply bytes per connection before its input is no longer read.
constexpr std::size_t kOutputSoftLimit = 4u << 20;
/// Unsent reply bytes per connection before it is closed as abusive (a peer
/// pipelining requests without reading replies).
constexpr std::size_t kMaxUnsentBytes = 64u << 20;
/// Read-but-unparsed bytes per connection, beyond the largest request, before
/// its input is no longer read: requests are parsed at a bounded rate per
/// poll round, so a peer pipelining faster than that must wait instead of
/// growing the buffer (found by tests/load: one such peer took a rank from
/// 25 MB to 200 MB).
constexpr std::size_t kInputSlack = 64 * 1024;

/// Plain CCS framing (../shared/protocols/ccs.md, "Plain request and reply").
class PlainProtocol final : public WireProtocol {
 public:
  explicit PlainProtocol(std::size_t maxRequestBytes) : parser_(maxRequestBytes) {}
  Expected<std::optional<Request>> feed(std::span<const std::uint8_t>& input,
                                        std::vector<std::uint8_t>&) override {
    return parser_.feed(input);
  }
  void encodeReply(std::span<const std::uint8_t> data,
                   std::vector<std::uint8_t>& output) override {
    appendBigEndian32(output, static_cast<std::int32_t>(data.size()));
    output.insert(output.end(), data.begin(), data.end());
  }
  bool idle() const override { return parser_.idle(); }

 private:
  RequestParser parser_;
};

/// Charm++'s SHA-1 authenticated mode (../shared/protocols/ccs.md, "Charm++'s
/// authenticated mode"): the handshake or one authenticated request per
/// connection, driven by the CharmAuthServer state machine.
class CharmAuthProtocol final : public WireProtocol {
 public:
  CharmAuthProtocol(std::shared_ptr<CharmAuthServerState> state, std::size_t maxRequestBytes)
      : auth_(std::move(state), maxRequestBytes) {}
  Expected<std::optional<Request>> feed(std::span<const std::uint8_t>& input,
                                        std::vector<std::uint8_t>& output) override {
    CharmAuthStep step = auth_.feed(input);
    input = input.subspan(input.size());  // the state machine keeps what it needs
    consumed_ = true;
    output.insert(output.end(), step.send.begin(), step.send.end());
    if (!step.error.empty()) return fail("Charm++ authentication: " + step.error);
    if (step.closeAfterSend) finished_ = true;
    return std::move(step.request);
  }
  void encodeReply(std::span<const std::uint8_t> data,
                   std::vector<std::uint8_t>& output) override {
    if (auto frame = auth_.replyFrame(data)) output.insert(output.end(), frame->begin(), frame->end());
  }
  bool idle() const override { return !consumed_; }
  bool finished() const override { return finished_; }

 private:
  CharmAuthServer auth_;
  bool consumed_ = false;
  bool finished_ = false;
};

/// A stream this server will not serve: plain requests on a server that
/// requires Charm++ authentication (capture 08e: closed with no reply).
class RefusedProtocol final : public WireProtocol {
 public:
  explicit RefusedProtocol(std::string why) : why_(std::move(why)) {}
  Expected<std::optional<Request>> feed(std::span<const std::uint8_t>&,
                                        std::vector<std::uint8_t>&) override {
    return fail(why_);
  }
  void encodeReply(std::span<const std::uint8_t>, std::vector<std::uint8_t>&) override {}
  bool idle() const override { return true; }

 private:
  std::string why_;
};

}  // namespace

std::unique_ptr<WireProtocol> chooseProtocol(std::uint8_t first, const ServerOptions& options) {
  // Charm++'s SHA-1 mode starts with 0x80; only on plain-security servers that
  // were given a Charm++ key table (inside TLS the frames are always plain).
  if (options.charmAuth && options.security.mode == SecurityMode::Plain) {
    if (first == kCharmAuthMarker)
      return std::make_unique<CharmAuthProtocol>(options.charmAuth, options.maxRequestBytes);
    if (!options.charmAuth->allowsPlainRequests())
      return std::make_unique<RefusedProtocol>(
          "plain request refused: this server requires Charm++ authentication");
  }
  return std::make_unique<PlainProtocol>(options.maxRequestBytes);
}

ServerConnection::ServerConnection(std::unique_ptr<Stream> stream, std::string peer,
                                   const ServerOptions& options, const LogFunction& log)
    : stream_(std::move(stream)),
      peer_(std::move(peer)),
      options_(options),
      log_(log),
      persistent_(options.persistent || options.security.mode == SecurityMode::Tls),
      lastActivity_(Clock::now()) {}

void ServerConnection::close(const std::string& why) {
  if (dead_) return;
  if (!why.empty()) log_("ccs: closing connection from " + peer_ + ": " + why);
  dead_ = true;
  stream_->shutdown();
  stream_.reset();
  slots_.clear();  // late answers then reach only their shared state
  output_ = {};
  input_ = {};
}

bool ServerConnection::throttled() const {
  return slots_.size() >= kMaxPendingReplies || unsentBytes() >= kOutputSoftLimit;
}

bool ServerConnection::inputFull() const {
  // A whole request (header + body) always fits, so a large one still completes.
  return input_.size() - inputOffset_ >= options_.maxRequestBytes + kInputSlack;
}

void ServerConnection::receive() {
  readable_ = false;
  if (dead_ || inputClosed_) return;
  if (!stream_->handshakeDone()) {
    IoResult step = stream_->handshake();
    readWantsWrite_ = step.status == IoStatus::WantWrite;
    if (step.status == IoStatus::Closed || step.status == IoStatus::Failed) {
      close(stream_->error().empty() ? "closed during the TLS handshake" : stream_->error());
      return;
    }
    if (step.status != IoStatus::Done) return;
    lastActivity_ = Clock::now();
  }
  if (throttled() || inputFull()) return;
  std::uint8_t buffer[kReadChunk];
  for (std::size_t total = 0; total < kReadBudget && !dead_ && !inputFull();) {
    IoResult got = stream_->read(buffer);
    if (got.status == IoStatus::WantRead) return;
    if (got.status == IoStatus::WantWrite) {
      readWantsWrite_ = true;
      return;
    }
    if (got.status == IoStatus::Closed) {
      endOfInput();
      return;
    }
    if (got.status == IoStatus::Failed) {
      close(stream_->error());
      return;
    }
    total += got.bytes;
    lastActivity_ = Clock::now();
    if (!served_) {  // bytes after a one-shot connection's request are ignored
      if (inputOffset_ == input_.size()) {
        input_.clear();
        inputOffset_ = 0;
      }
      input_.insert(input_.end(), buffer, buffer + got.bytes);
    }
    // A short read drained the socket; poll() reports more later.
    if (got.bytes < sizeof buffer && !stream_->hasBuffered()) return;
  }
}

void ServerConnection::endOfInput() {
  inputClosed_ = true;
  bool partial = inputOffset_ < input_.size() || (protocol_ && !protocol_->idle());
  if (partial && !served_) {
    close("peer closed in the middle of a request");
    return;
  }
  // A persistent peer that closed wants no more replies (mpidbg's clients
  // never half-close); a Charm++ one-shot client may half-close and still
  // read its reply.
  if (persistent_) slots_.clear();
  closeIfDone();
}

void ServerConnection::closeIfDone() {
  const bool protocolDone = protocol_ && protocol_->finished();
  if (!dead_ && (inputClosed_ || protocolDone) && slots_.empty() && !hasOutput()) close("");
}

std::optional<Request> ServerConnection::nextRequest() {
  if (dead_ || served_ || throttled() || inputOffset_ == input_.size()) return std::nullopt;
  if (!protocol_) protocol_ = chooseProtocol(input_[inputOffset_], options_);
  std::span<const std::uint8_t> input(input_.data() + inputOffset_, input_.size() - inputOffset_);
  auto request = protocol_->feed(input, output_);
  inputOffset_ = input_.size() - input.size();
  if (inputOffset_ == input_.size()) {
    input_.clear();
    inputOffset_ = 0;
  }
  if (!request) {
    close("malformed request: " + request.error().message);
    return std::nullopt;
  }
  return std::move(*request);
}

void ServerConnection::answerNow(std::optional<std::vector<std::uint8_t>> reply) {
  if (slots_.empty())
    emit(std::move(reply));  // nothing earlier pending: straight to the output
  else
    slots_.push_back(Slot{nullptr, std::move(reply)});
}

std::shared_ptr<Responder::State> ServerConnection::defer(
    const std::shared_ptr<ReplyMailbox>& mailbox) {
  auto state = std::make_shared<Responder::State>();
  state->mailbox = mailbox;
  slots_.push_back(Slot{state, std::nullopt});
  return state;
}

void ServerConnection::collectReplies() {
  while (!dead_ && !slots_.empty()) {
    Slot& slot = slots_.front();
    std::optional<std::vector<std::uint8_t>> reply;
    if (slot.state) {
      std::lock_guard lock(slot.state->mutex);
      if (!slot.state->answered) break;  // later replies wait for this one
      reply = std::move(slot.state->reply);
    } else {
      reply = std::move(slot.reply);
    }
    slots_.pop_front();
    emit(std::move(reply));
  }
  closeIfDone();
}

void ServerConnection::emit(std::optional<std::vector<std::uint8_t>> reply) {
  if (dead_ || !reply) return;  // no reply: the connection stays silent for it
  if (unsentBytes() > kMaxUnsentBytes) {
    close("peer does not read its replies (" + std::to_string(unsentBytes()) + " bytes unsent)");
    return;
  }
  if (reply->size() > static_cast<std::size_t>(INT32_MAX)) {
    log_("ccs: reply to " + peer_ + " is too large; sending an empty reply");
    reply->clear();
  }
  if (outputOffset_ == output_.size()) {
    output_.clear();
    outputOffset_ = 0;
  }
  protocol_->encodeReply(*reply, output_);
  if (!persistent_) closeAfterFlush_ = true;
}

void ServerConnection::flush() {
  while (!dead_ && hasOutput()) {
    IoResult sent = stream_->write(std::span(output_).subspan(outputOffset_));
    if (sent.status == IoStatus::Done) {
      outputOffset_ += sent.bytes;
      lastActivity_ = Clock::now();
      continue;
    }
    if (sent.status == IoStatus::WantWrite) {
      blockedOnWrite_ = true;
      return;
    }
    if (sent.status == IoStatus::WantRead) {
      writeWantsRead_ = true;
      blockedOnWrite_ = true;
      return;
    }
    close(sent.status == IoStatus::Closed ? "" : stream_->error());
    return;
  }
  if (dead_) return;
  output_.clear();
  outputOffset_ = 0;
  if (output_.capacity() > kOutputSoftLimit) output_.shrink_to_fit();
  if (closeAfterFlush_) {
    close("");
    return;
  }
  closeIfDone();
}

short ServerConnection::pollEvents() const {
  short events = 0;
  if (!inputClosed_ && !closeAfterFlush_ && !throttled() && !inputFull()) events |= POLLIN;
  if (!stream_->handshakeDone() && !inputClosed_) events |= POLLIN;
  if (hasOutput() || readWantsWrite_) events |= POLLOUT;
  if (writeWantsRead_) events |= POLLIN;
  return events;
}

void ServerConnection::noteReady(short revents) {
  if (revents & POLLOUT) blockedOnWrite_ = false;
  if ((revents & (POLLIN | POLLHUP | POLLERR)) && writeWantsRead_) {
    writeWantsRead_ = false;
    blockedOnWrite_ = false;
  }
  if (revents & (POLLIN | POLLHUP | POLLERR)) readable_ = true;
  if ((revents & POLLOUT) && readWantsWrite_) {
    readWantsWrite_ = false;
    readable_ = true;
  }
}

bool ServerConnection::wantsReceive() const {
  if (dead_) return false;
  return readable_ || (!inputClosed_ && !throttled() && stream_->hasBuffered());
}

bool ServerConnection::hasBacklog() const {
  if (dead_ || throttled()) return false;
  return (!served_ && inputOffset_ < input_.size()) ||
         (!inputClosed_ && stream_->hasBuffered());
}

std::optional<ServerConnection::Clock::time_point> ServerConnection::idleDeadline() const {
  if (dead_) return std::nullopt;
  bool partial = !served_ && (inputOffset_ < input_.size() || (protocol_ && !protocol_->idle()));
  if (!stream_->handshakeDone() || partial || hasOutput())
    return lastActivity_ + options_.idleTimeout;
  return std::nullopt;
}

void ServerConnection::expire(Clock::time_point now) {
  auto deadline = idleDeadline();
  if (!deadline || now < *deadline) return;
  std::string limit = std::to_string(options_.idleTimeout.count()) + " ms";
  if (!stream_->handshakeDone())
    close("TLS handshake idle for " + limit);
  else if (hasOutput())
    close("reply not read for " + limit);
  else
    close("partial request idle for " + limit);
}

}  // namespace mpidbg::ccs::detail
