// Server side of Charm++'s SHA-1 CCS mode, after charmrun's ccs-server.c:
// createSalt for the handshake, SHA1_message for requests.
#include "ccs/transport/CharmAuthServer.hpp"

#include <algorithm>
#include <cstdio>

#include "ccs/transport/Auth.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::ccs {
namespace {

/// After the prefix, a request carries client id (4), reply salt r (4), the
/// request hash (20) and the 40-byte plain header before its PE list and data.
constexpr std::size_t kRequestHeadBytes = 4 + 4 + kCharmHashBytes + kHeaderSize;

Expected<std::uint32_t> opensslRandom() {
  auto bytes = randomBytes(4);
  if (!bytes) return std::unexpected(bytes.error());
  return readBigEndianU32(*bytes);
}

}  // namespace

// ---- CharmAuthServerState ----

CharmAuthServerState::CharmAuthServerState(CharmKeyTable keys, CharmRandomSource random,
                                           std::size_t maxClients)
    : keys_(std::move(keys)),
      random_(random ? std::move(random) : CharmRandomSource(opensslRandom)),
      maxClients_(std::min<std::size_t>(maxClients, 0x7fffffff)) {}

std::size_t CharmAuthServerState::clientCount() const {
  std::lock_guard lock(mutex_);
  return salts_.size();
}

Expected<std::uint32_t> CharmAuthServerState::nextRandom() {
  std::lock_guard lock(mutex_);
  return random_();
}

Expected<std::int32_t> CharmAuthServerState::addClient() {
  std::lock_guard lock(mutex_);
  if (salts_.size() >= maxClients_)
    return fail("the CCS client table is full (" + std::to_string(maxClients_) +
                " handshakes since the server started)");
  auto salt = random_();
  if (!salt) return std::unexpected(salt.error());
  salts_.push_back(*salt);
  return static_cast<std::int32_t>(salts_.size() - 1);
}

std::optional<std::uint32_t> CharmAuthServerState::expectedSalt(std::int32_t clientId) const {
  std::lock_guard lock(mutex_);
  if (clientId < 0 || static_cast<std::size_t>(clientId) >= salts_.size()) return std::nullopt;
  return salts_[static_cast<std::size_t>(clientId)];
}

Expected<void> CharmAuthServerState::acceptRequest(std::int32_t clientId, const CharmKey& key,
                                                   std::span<const std::uint8_t> header,
                                                   std::span<const std::uint8_t> hash) {
  std::lock_guard lock(mutex_);
  if (clientId < 0 || static_cast<std::size_t>(clientId) >= salts_.size())
    return fail("unknown CCS client id " + std::to_string(clientId) + " (" +
                std::to_string(salts_.size()) + " handshakes so far)");
  std::uint32_t& salt = salts_[static_cast<std::size_t>(clientId)];
  if (!charmAuthHashMatches(key, salt, header, hash))
    return fail("CCS request hash of client " + std::to_string(clientId) +
                " does not match: stale salt (replay) or wrong key");
  ++salt;
  return {};
}

// ---- CharmAuthServer ----

CharmAuthServer::CharmAuthServer(std::shared_ptr<CharmAuthServerState> state,
                                 std::size_t maxDataBytes)
    : state_(std::move(state)), parser_(maxDataBytes) {}

void CharmAuthServer::failStep(CharmAuthStep& step, std::string message) {
  stage_ = Stage::Done;
  buffer_.clear();
  step.closeAfterSend = true;
  step.error = std::move(message);
}

CharmAuthStep CharmAuthServer::feed(std::span<const std::uint8_t> bytes) {
  CharmAuthStep step;
  auto need = [&](std::size_t count) {
    std::size_t take = std::min(count - std::min(count, buffer_.size()), bytes.size());
    buffer_.insert(buffer_.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(take));
    bytes = bytes.subspan(take);
    return buffer_.size() >= count;
  };
  // Every stage either consumes all input, moves to the next stage, or fails.
  while (!step.closeAfterSend && !step.request) {
    switch (stage_) {
      case Stage::Prefix:
        // Refuse a wrong first byte at once, as Charm++ does after 4 bytes.
        if (!buffer_.empty() || !bytes.empty()) {
          std::uint8_t first = buffer_.empty() ? bytes[0] : buffer_[0];
          if (first != kCharmAuthMarker) {
            failStep(step, "not a CCS SHA-1 stream: first byte " + hexByte(first) +
                               " (the SHA-1 mode starts with 0x80)");
            break;
          }
        }
        if (!need(kCharmAuthPrefixBytes)) return step;
        onPrefix(step);
        break;
      case Stage::HandshakeChallenge:
        if (!need(4)) return step;
        onChallenge(step);
        break;
      case Stage::HandshakeProof:
        if (!need(kCharmHashBytes)) return step;
        onProof(step);
        break;
      case Stage::RequestHead:
        if (!need(kRequestHeadBytes)) return step;
        onRequestHead(step);
        break;
      case Stage::RequestBody: {
        if (bytes.empty()) return step;
        auto request = parser_.feed(bytes);
        if (!request) {
          failStep(step, request.error().message);
        } else if (*request) {
          step.request = std::move(**request);
          haveRequest_ = true;
          stage_ = Stage::Done;
        } else {
          return step;  // the parser took every byte and wants more
        }
        break;
      }
      case Stage::Done:
        if (!haveRequest_) step.closeAfterSend = true;
        return step;
    }
  }
  return step;
}

void CharmAuthServer::onPrefix(CharmAuthStep& step) {
  std::uint8_t version = buffer_[1];
  std::uint8_t kind = buffer_[2];
  level_ = buffer_[3];
  buffer_.clear();
  if (version != kCharmAuthVersion)
    return failStep(step,
                    "CCS SHA-1 stream has version " + hexByte(version) + "; only version 0 exists");
  key_ = state_->key(level_);
  if (key_ == nullptr)
    return failStep(step, "CCS SHA-1 request for security level " + std::to_string(level_) +
                              " denied: no key for that level");
  if (kind == kCharmAuthKindHandshake) {
    stage_ = Stage::HandshakeChallenge;
  } else if (kind == kCharmAuthKindRequest) {
    stage_ = Stage::RequestHead;
  } else {
    failStep(step, "CCS SHA-1 stream has an unknown request kind " + hexByte(kind) +
                       " (0x00 request, 0x01 handshake)");
  }
}

void CharmAuthServer::onChallenge(CharmAuthStep& step) {
  clientChallenge_ = readBigEndianU32(buffer_);
  buffer_.clear();
  auto s2 = state_->nextRandom();
  if (!s2) return failStep(step, "CCS handshake failed: " + s2.error().message);
  serverChallenge_ = *s2;
  appendBigEndianU32(step.send, serverChallenge_);
  stage_ = Stage::HandshakeProof;
}

void CharmAuthServer::onProof(CharmAuthStep& step) {
  bool valid = charmAuthHashMatches(*key_, serverChallenge_, {}, buffer_);
  buffer_.clear();
  if (!valid)
    return failStep(step, "CCS handshake proof does not match for security level " +
                              std::to_string(level_) + " (client has a wrong key)");
  auto proof = charmAuthHash(*key_, clientChallenge_);
  if (!proof) return failStep(step, "CCS handshake failed: " + proof.error().message);
  auto clientId = state_->addClient();
  if (!clientId) return failStep(step, "CCS handshake refused: " + clientId.error().message);
  auto salt = state_->expectedSalt(*clientId);
  step.send.insert(step.send.end(), proof->begin(), proof->end());
  appendBigEndian32(step.send, *clientId);
  appendBigEndianU32(step.send, salt.value_or(0));
  step.closeAfterSend = true;  // a handshake connection never carries a request
  step.note = "CCS created client " + std::to_string(*clientId) + " at security level " +
              std::to_string(level_);
  stage_ = Stage::Done;
}

void CharmAuthServer::onRequestHead(CharmAuthStep& step) {
  std::span<const std::uint8_t> head(buffer_);
  std::int32_t clientId = readBigEndian32(head);
  replySalt_ = readBigEndianU32(head.subspan(4));
  auto hash = head.subspan(8, kCharmHashBytes);
  auto header = head.subspan(8 + kCharmHashBytes, kHeaderSize);
  if (auto accepted = state_->acceptRequest(clientId, *key_, header, hash); !accepted)
    return failStep(step, accepted.error().message);
  // The salt is spent: hand the plain header to the plain parser, which
  // checks it and bounds the PE list and data.
  std::vector<std::uint8_t> plain(header.begin(), header.end());
  buffer_.clear();
  std::span<const std::uint8_t> input(plain);
  auto request = parser_.feed(input);
  if (!request) return failStep(step, request.error().message);
  if (*request) {
    step.request = std::move(**request);
    haveRequest_ = true;
    stage_ = Stage::Done;
    return;
  }
  stage_ = Stage::RequestBody;
}

Expected<std::vector<std::uint8_t>> CharmAuthServer::replyFrame(
    std::span<const std::uint8_t> data) const {
  return replyFrame(replySalt_, data);
}

Expected<std::vector<std::uint8_t>> CharmAuthServer::replyFrame(
    std::uint32_t replySalt, std::span<const std::uint8_t> data) const {
  if (!haveRequest_ || key_ == nullptr)
    return fail("no authenticated CCS request was decoded on this connection to reply to");
  return encodeCharmSecureReply(*key_, replySalt, data);
}

}  // namespace mpidbg::ccs
