// Client side of Charm++'s SHA-1 CCS mode: the per-connection state machine
// and blocking calls on new TCP connections (one per exchange, as libccs-client).
#include "ccs/transport/CharmAuthClient.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "ccs/transport/Auth.hpp"
#include "ccs/transport/BlockingIo.hpp"
#include "ccs/transport/Socket.hpp"
#include "mpidbg/ScopedFd.hpp"

namespace mpidbg::ccs {
namespace {


/// Bytes of the server's handshake answer: H(s1, none), client id, salt.
constexpr std::size_t kProofBytes = kCharmHashBytes + 8;

/// Moves bytes from `input` into `buffer` until it holds `needed`; true when it does.
bool fill(std::vector<std::uint8_t>& buffer, std::size_t needed,
          std::span<const std::uint8_t>& input) {
  std::size_t take = std::min(needed - std::min(needed, buffer.size()), input.size());
  buffer.insert(buffer.end(), input.begin(), input.begin() + static_cast<std::ptrdiff_t>(take));
  input = input.subspan(take);
  return buffer.size() >= needed;
}

using detail::Deadline;
using detail::connectTo;
using detail::sendAll;

/// Runs `machine` over a new connection to `server` until it completes.
Expected<void> run(CharmAuthClient& machine, const Endpoint& server,
                   std::chrono::milliseconds timeout) {
  Deadline deadline = Deadline::after(server, timeout);
  auto fd = connectTo(server, deadline);
  if (!fd) return std::unexpected(fd.error());
  if (auto sent = sendAll(fd->get(), machine.takeOutput(), deadline); !sent) return sent;
  std::uint8_t buffer[16384];
  for (;;) {
    ssize_t got = ::recv(fd->get(), buffer, sizeof buffer, 0);
    if (got > 0) {
      std::span<const std::uint8_t> input(buffer, static_cast<std::size_t>(got));
      auto done = machine.feed(input);
      if (!done) return fail(deadline.peer + ": " + done.error().message);
      if (auto sent = sendAll(fd->get(), machine.takeOutput(), deadline); !sent) return sent;
      if (*done) return {};
      continue;
    }
    if (got == 0 || errno == ECONNRESET)
      return fail(deadline.peer + ": " + machine.closedByServer().message);
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      return fail("cannot read from " + deadline.peer + ": " + detail::errnoText(errno));
    int revents = deadline.wait(fd->get(), POLLIN);
    if (revents < 0) return fail("cannot read from " + deadline.peer + ": " + detail::errnoText(errno));
    if (revents == 0) return deadline.timedOut("waiting for the answer of");
  }
}

Expected<std::uint32_t> random32() {
  auto bytes = randomBytes(4);
  if (!bytes) return std::unexpected(bytes.error());
  return readBigEndianU32(*bytes);
}

}  // namespace

CharmAuthClient CharmAuthClient::forHandshake(std::uint8_t level, const CharmKey& key,
                                              std::uint32_t s1) {
  CharmAuthClient client;
  client.stage_ = Stage::WaitChallenge;
  client.level_ = level;
  client.key_ = key;
  client.challenge_ = s1;
  auto prefix = charmAuthPrefix(kCharmAuthKindHandshake, level);
  client.output_.assign(prefix.begin(), prefix.end());
  appendBigEndianU32(client.output_, s1);
  return client;
}

Expected<CharmAuthClient> CharmAuthClient::forRequest(CharmSession& session, const Request& request,
                                                      std::uint32_t replySalt) {
  auto plain = encodeRequest(request);
  if (!plain) return std::unexpected(plain.error());
  auto hash = charmAuthHash(session.key, session.salt, std::span(*plain).first(kHeaderSize));
  if (!hash) return std::unexpected(hash.error());

  CharmAuthClient client;
  client.stage_ = Stage::WaitReplyHash;
  client.level_ = session.level;
  client.key_ = session.key;
  client.challenge_ = replySalt;
  auto prefix = charmAuthPrefix(kCharmAuthKindRequest, session.level);
  client.output_.assign(prefix.begin(), prefix.end());
  appendBigEndian32(client.output_, session.clientId);
  appendBigEndianU32(client.output_, replySalt);
  client.output_.insert(client.output_.end(), hash->begin(), hash->end());
  client.output_.insert(client.output_.end(), plain->begin(), plain->end());
  ++session.salt;  // unsigned: wraps mod 2^32 like the server's counter
  return client;
}

std::vector<std::uint8_t> CharmAuthClient::takeOutput() { return std::exchange(output_, {}); }

std::unexpected<Error> CharmAuthClient::failWith(std::string message) {
  stage_ = Stage::Failed;
  buffer_.clear();
  return fail(std::move(message));
}

Expected<bool> CharmAuthClient::feed(std::span<const std::uint8_t>& input) {
  std::string level = std::to_string(level_);
  if (stage_ == Stage::Done) return fail("CCS SHA-1 exchange fed after it completed");
  if (stage_ == Stage::Failed) return fail("CCS SHA-1 exchange fed after an error");

  if (stage_ == Stage::WaitChallenge) {
    if (!fill(buffer_, 4, input)) return false;
    auto proof = charmAuthHash(key_, readBigEndianU32(buffer_));
    if (!proof) return failWith(proof.error().message);
    output_.insert(output_.end(), proof->begin(), proof->end());
    buffer_.clear();
    stage_ = Stage::WaitProof;
  }
  if (stage_ == Stage::WaitProof) {
    if (!fill(buffer_, kProofBytes, input)) return false;
    auto bytes = std::span<const std::uint8_t>(buffer_);
    if (!charmAuthHashMatches(key_, challenge_, {}, bytes.first(kCharmHashBytes)))
      return failWith("CCS server's handshake proof does not verify for security level " + level +
                      ": the server does not know our key (or the answer is forged)");
    CharmSession session;
    session.level = level_;
    session.key = key_;
    session.clientId = readBigEndian32(bytes.subspan(kCharmHashBytes));
    session.salt = readBigEndianU32(bytes.subspan(kCharmHashBytes + 4));
    session_ = session;
    buffer_.clear();
    stage_ = Stage::Done;
    return true;
  }
  if (stage_ == Stage::WaitReplyHash) {
    if (!fill(buffer_, kCharmHashBytes, input)) return false;
    if (!charmAuthHashMatches(key_, challenge_, {}, buffer_))
      return failWith(
          "CCS reply fails authentication: its hash is not H(r) under the key of "
          "security level " +
          level + " (wrong key or forged reply)");
    buffer_.clear();
    stage_ = Stage::WaitReply;
  }
  // stage_ == Stage::WaitReply
  auto data = replyParser_.feed(input);
  if (!data) return failWith("malformed CCS reply: " + data.error().message);
  if (!*data) return false;
  reply_ = std::move(**data);
  stage_ = Stage::Done;
  return true;
}

Error CharmAuthClient::closedByServer() const {
  std::string level = std::to_string(level_);
  switch (stage_) {
    case Stage::WaitChallenge:
      return {
          "the CCS server closed the handshake before sending its challenge: it has no key "
          "for security level " +
          level + " (or does not speak the SHA-1 mode)"};
    case Stage::WaitProof:
      return {"the CCS server rejected the handshake for security level " + level +
              ": it closed after our proof, so its key differs from ours"};
    case Stage::WaitReplyHash:
    case Stage::WaitReply:
      return {
          "the CCS server closed the connection without a reply: the request was rejected "
          "(stale salt or unknown client id: handshake again), refused, or its handler "
          "sends no reply"};
    case Stage::Done:
      return {"the CCS server closed the connection after the exchange completed"};
    case Stage::Failed:
      break;
  }
  return {"the CCS server closed the connection after a failed exchange"};
}

Expected<CharmSession> CharmAuthClient::handshake(const Endpoint& server, std::uint8_t level,
                                                  const CharmKey& key,
                                                  std::chrono::milliseconds timeout) {
  auto s1 = random32();
  if (!s1) return std::unexpected(s1.error());
  CharmAuthClient machine = forHandshake(level, key, *s1);
  if (auto done = run(machine, server, timeout); !done) return std::unexpected(done.error());
  return *machine.session_;
}

Expected<std::vector<std::uint8_t>> CharmAuthClient::call(const Endpoint& server,
                                                          CharmSession& session,
                                                          const Request& request,
                                                          std::chrono::milliseconds timeout) {
  auto r = random32();
  if (!r) return std::unexpected(r.error());
  auto machine = forRequest(session, request, *r);
  if (!machine) return std::unexpected(machine.error());
  if (auto done = run(*machine, server, timeout); !done) return std::unexpected(done.error());
  return std::move(*machine->reply_);
}

Expected<void> CharmAuthClient::send(const Endpoint& server, CharmSession& session, const Request& request,
                                     std::chrono::milliseconds timeout) {
  auto r = random32();
  if (!r) return std::unexpected(r.error());
  auto machine = forRequest(session, request, *r);
  if (!machine) return std::unexpected(machine.error());
  Deadline deadline = Deadline::after(server, timeout);
  auto fd = connectTo(server, deadline);
  if (!fd) return std::unexpected(fd.error());
  return sendAll(fd->get(), machine->takeOutput(), deadline);
}

}  // namespace mpidbg::ccs
