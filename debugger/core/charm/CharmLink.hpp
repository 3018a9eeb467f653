#pragma once

// The debugger's CCS link to a Charm++ program: its CCS server (charmrun's,
// or node 0's), in Charm++'s plain mode or its SHA-1 authenticated mode
// (++server-auth; ../shared/protocols/ccs.md). One request per connection, as
// Charm++'s own client does; requests are serialized (the server answers one
// at a time anyway).

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/transport/CharmAuthClient.hpp"
#include "ccs/transport/Endpoint.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core::charm {

/// A Charm++ program's CCS server and how to speak to it.
class CharmLink {
 public:
  /// `key`: the level-0 key of a server started with ++server-auth (SHA-1
  /// mode); nullopt for plain mode.
  CharmLink(ccs::Endpoint server, std::optional<ccs::CharmKey> key);

  /// Sends `handler` with `data` to PE `pe` and returns the reply data.
  /// Never broadcast: Charm++ aborts on a broadcast of ccs_getinfo or a list
  /// request (no merge function). Errors name the server: connect/timeout,
  /// closed without a reply (the handler sends none, or the PE is busy in an
  /// entry method and the exchange timed out), a rejected SHA-1 handshake.
  Expected<std::vector<std::uint8_t>> call(std::string_view handler, int pe, const std::vector<std::uint8_t>& data = {});
  /// As call, bounded by `limit` instead of `timeout` (status asks each PE
  /// briefly: a PE busy in an entry method answers only when it returns).
  Expected<std::vector<std::uint8_t>> call(std::string_view handler, int pe, const std::vector<std::uint8_t>& data,
                                           std::chrono::milliseconds limit);
  /// Sends `handler` with `data` to PE `pe` without waiting for a reply
  /// (debug/converse/freeze, debug/charm/continue, debug/charm/next answer
  /// nothing).
  Expected<void> send(std::string_view handler, int pe, const std::vector<std::uint8_t>& data = {});

  /// ccs_getinfo (to PE 0): the number of PEs on each node. Errors: as call,
  /// or a reply that is not a list of 4-byte counts.
  Expected<std::vector<int>> peCounts();

  const ccs::Endpoint& server() const { return server_; }
  bool authenticated() const { return key_.has_value(); }

  /// Timeout of one exchange (connect, send, reply).
  std::chrono::milliseconds timeout{5000};

 private:
  /// A handshake when there is no session yet (SHA-1 mode).
  Expected<void> ensureSession();

  ccs::Endpoint server_;
  std::optional<ccs::CharmKey> key_;
  std::mutex mutex_;  ///< one exchange at a time; guards session_
  std::optional<ccs::CharmSession> session_;
};

}  // namespace mpidbg::core::charm
