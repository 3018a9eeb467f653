#pragma once

// Server side of Charm++'s SHA-1 authenticated CCS mode (ccs.md, "Charm++'s
// authenticated mode (SHA-1)"; captures 08a-08h, 10): a byte-in/bytes-out
// state machine per TCP connection and the per-server client table. No sockets.

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ccs/transport/CharmAuth.hpp"
#include "ccs/transport/CharmKeyFile.hpp"
#include "ccs/transport/Frame.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// Source of the server's 32-bit random values (challenges s2, starting salts).
using CharmRandomSource = std::function<Expected<std::uint32_t>()>;

/// State shared by every SHA-1 connection of one server, as in Charm++'s
/// ccs-server.c: the key table, the client table (client ids handed out as 0,
/// 1, ...; each with its expected salt) and the random source. Thread-safe.
class CharmAuthServerState {
 public:
  /// Default bound on the client table (4 bytes per client).
  static constexpr std::size_t kDefaultMaxClients = 1u << 20;

  /// `random` defaults to OpenSSL's RAND_bytes; tests inject captured values.
  /// Handshakes beyond `maxClients` clients are refused (Charm++ has no bound).
  explicit CharmAuthServerState(CharmKeyTable keys, CharmRandomSource random = {},
                                std::size_t maxClients = kDefaultMaxClients);
  CharmAuthServerState(const CharmAuthServerState&) = delete;
  CharmAuthServerState& operator=(const CharmAuthServerState&) = delete;

  /// The key of `level`, or nullptr (requests at that level are refused).
  const CharmKey* key(std::uint8_t level) const { return keys_.find(level); }
  /// False when level 0 has a key: Charm++ then refuses plain requests (08e).
  bool allowsPlainRequests() const { return keys_.find(0) == nullptr; }
  /// Number of client ids handed out so far.
  std::size_t clientCount() const;

  /// The next random value. Error when the generator fails.
  Expected<std::uint32_t> nextRandom();
  /// Adds a client with a random starting salt; returns its id. Errors: table
  /// full, generator failure.
  Expected<std::int32_t> addClient();
  /// The salt `clientId` must use next; nullopt for an unknown id.
  std::optional<std::uint32_t> expectedSalt(std::int32_t clientId) const;
  /// Accepts the request hash of `clientId` iff it is H(expected salt,
  /// header) under `key`, and then advances that salt by 1 (mod 2^32); a
  /// rejected request leaves it (08d, 08g). Errors: unknown id, mismatch.
  Expected<void> acceptRequest(std::int32_t clientId, const CharmKey& key,
                               std::span<const std::uint8_t> header,
                               std::span<const std::uint8_t> hash);

 private:
  CharmKeyTable keys_;
  CharmRandomSource random_;
  std::size_t maxClients_;
  mutable std::mutex mutex_;
  std::vector<std::uint32_t> salts_;  ///< index = client id
};

/// What one CharmAuthServer::feed produced.
struct CharmAuthStep {
  /// Bytes to write to the client now (may be empty).
  std::vector<std::uint8_t> send;
  /// A verified request, decoded as a plain Request, to dispatch. Answer it
  /// with CharmAuthServer::replyFrame, then close (one request a connection).
  std::optional<Request> request;
  /// Close the connection once `send` is written; nothing more will come.
  bool closeAfterSend = false;
  /// Non-empty when the connection failed: one line for the server log
  /// (Charm++ closes without a reply in every such case). Comes with
  /// closeAfterSend.
  std::string error;
  /// Non-empty for a noteworthy success ("created client 0"), for the log.
  std::string note;
};

/// One TCP connection in the SHA-1 mode, fed every byte from the first (0x80).
/// Handshake (08a): `80 00 01 level | s1` -> s2; H(s2, none) -> H(s1, none) |
/// client id | salt, close; a wrong proof closes with nothing (08f). Request
/// (08b): `80 00 00 level | client id | r | H(salt, header[0:16]) | header |
/// PE list | data` -> the decoded Request; unknown level or client id, bad
/// version or kind, stale salt (08d) -> close with nothing. Never crashes on
/// hostile bytes; buffers at most the 72-byte prefix plus RequestParser's bound.
class CharmAuthServer {
 public:
  /// `maxDataBytes` bounds a request's data (and PE list), as RequestParser.
  explicit CharmAuthServer(std::shared_ptr<CharmAuthServerState> state,
                           std::size_t maxDataBytes = kDefaultMaxRequestBytes);

  /// Consumes `bytes` (any split of the stream gives the same result
  /// overall). Bytes after a complete request are ignored, as Charm++ never
  /// reads them; after a close, feed returns an empty step with closeAfterSend.
  CharmAuthStep feed(std::span<const std::uint8_t> bytes);

  /// The secure reply to the decoded request: H(r, none) | length | data,
  /// with the request's reply salt r and its level's key. Error before a
  /// request was decoded, or if SHA-1 fails.
  Expected<std::vector<std::uint8_t>> replyFrame(std::span<const std::uint8_t> data) const;
  /// The same with an explicit reply salt (the request's level's key).
  Expected<std::vector<std::uint8_t>> replyFrame(std::uint32_t replySalt,
                                                 std::span<const std::uint8_t> data) const;

  /// The reply salt r of the decoded request (0 before one).
  std::uint32_t replySalt() const { return replySalt_; }
  /// The security level named by the stream's prefix (0 before it arrived).
  std::uint8_t level() const { return level_; }

 private:
  enum class Stage { Prefix, HandshakeChallenge, HandshakeProof, RequestHead, RequestBody, Done };
  void failStep(CharmAuthStep& step, std::string message);
  void onPrefix(CharmAuthStep& step);
  void onChallenge(CharmAuthStep& step);
  void onProof(CharmAuthStep& step);
  void onRequestHead(CharmAuthStep& step);

  std::shared_ptr<CharmAuthServerState> state_;
  RequestParser parser_;
  Stage stage_ = Stage::Prefix;
  std::vector<std::uint8_t> buffer_;
  std::uint8_t level_ = 0;
  const CharmKey* key_ = nullptr;
  std::uint32_t clientChallenge_ = 0;  ///< s1
  std::uint32_t serverChallenge_ = 0;  ///< s2
  std::uint32_t replySalt_ = 0;
  bool haveRequest_ = false;
};

}  // namespace mpidbg::ccs
