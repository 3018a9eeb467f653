#pragma once

// Client side of Charm++'s SHA-1 authenticated CCS mode (ccs.md, "Charm++'s
// authenticated mode (SHA-1)"): a handshake on its own connection, then one
// connection per request, as libccs-client does (capture 10).

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ccs/transport/CharmAuth.hpp"
#include "ccs/transport/Endpoint.hpp"
#include "ccs/transport/Frame.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// What a client holds after a handshake: the security level and its key, the
/// client id the server assigned, and the salt for the next request.
struct CharmSession {
  std::uint8_t level = 0;
  CharmKey key{};
  std::int32_t clientId = 0;
  /// Salt of the next request; goes up by 1 (mod 2^32) after each send.
  std::uint32_t salt = 0;
};

/// One connection of the SHA-1 client as a byte-in/bytes-out state machine
/// (no sockets), plus blocking socket calls built on it. Random values (the
/// challenge s1, reply salts r) are parameters, so tests reproduce captures.
class CharmAuthClient {
 public:
  /// A handshake connection (08a): sends `80 00 01 level | s1`, answers the
  /// server's challenge s2 with H(s2, none), checks the server's H(s1, none)
  /// and takes the client id and starting salt.
  static CharmAuthClient forHandshake(std::uint8_t level, const CharmKey& key, std::uint32_t s1);

  /// A request connection (08b): `80 00 00 level | client id | r |
  /// H(session.salt, header) | header | PE list | data`; the reply must carry
  /// H(r, none). Increments `session.salt` (Charm++'s client advances it on
  /// every send, answered or not). Errors: the request cannot be encoded
  /// (see encodeRequest), or SHA-1 fails; `session` is then unchanged.
  static Expected<CharmAuthClient> forRequest(CharmSession& session, const Request& request,
                                              std::uint32_t replySalt);

  /// Bytes to write to the server now; empties the output.
  std::vector<std::uint8_t> takeOutput();

  /// Consumes server bytes from the front of `input` (advancing it). Returns
  /// true once the exchange is complete (then session() or reply() holds the
  /// result), false when more bytes are needed; new output may be waiting in
  /// takeOutput(). Errors: the server's handshake proof or reply hash does not
  /// verify (it does not know our key, or the bytes are forged), malformed
  /// reply length. After an error or completion, feeding fails.
  Expected<bool> feed(std::span<const std::uint8_t>& input);

  /// The error to report when the server closes the connection before the
  /// exchange completed; says what that means at this point (08f: a closed
  /// handshake after our proof means the server has another key).
  Error closedByServer() const;

  /// The session after a completed handshake.
  const std::optional<CharmSession>& session() const { return session_; }
  /// The reply data after a completed request.
  const std::optional<std::vector<std::uint8_t>>& reply() const { return reply_; }

  /// Blocking handshake with `server` on a new TCP connection, bounded by
  /// `timeout`; s1 comes from OpenSSL's RAND_bytes. Errors name the endpoint:
  /// connect/timeout errors, rejected handshake (wrong key or no key for
  /// `level` on the server), server proof that does not verify.
  static Expected<CharmSession> handshake(const Endpoint& server, std::uint8_t level,
                                          const CharmKey& key, std::chrono::milliseconds timeout);

  /// Blocking request on a new TCP connection (one request per connection,
  /// as in the captures), bounded by `timeout`; r comes from RAND_bytes.
  /// Returns the reply data after verifying H(r, none). Advances
  /// `session.salt` once the request is built, even if the call then fails.
  /// Errors: connect/timeout, closed without a reply (stale salt, unknown
  /// client id, or a rejected request), reply hash mismatch.
  static Expected<std::vector<std::uint8_t>> call(const Endpoint& server, CharmSession& session,
                                                  const Request& request,
                                                  std::chrono::milliseconds timeout);

  /// As call, but sends the request and closes without waiting for a reply
  /// (handlers that never answer, such as Charm++'s debug/converse/freeze).
  /// Advances `session.salt`. Errors: connect, timeout while sending.
  static Expected<void> send(const Endpoint& server, CharmSession& session, const Request& request,
                             std::chrono::milliseconds timeout);

 private:
  enum class Stage { WaitChallenge, WaitProof, WaitReplyHash, WaitReply, Done, Failed };
  CharmAuthClient() = default;
  std::unexpected<Error> failWith(std::string message);

  Stage stage_ = Stage::Failed;
  std::uint8_t level_ = 0;
  CharmKey key_{};
  std::uint32_t challenge_ = 0;  ///< s1 (handshake) or r (request)
  std::vector<std::uint8_t> output_;
  std::vector<std::uint8_t> buffer_;
  ReplyParser replyParser_;
  std::optional<CharmSession> session_;
  std::optional<std::vector<std::uint8_t>> reply_;
};

}  // namespace mpidbg::ccs
