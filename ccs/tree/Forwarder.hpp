#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ccs/transport/Connection.hpp"
#include "ccs/tree/ForwardEnvelope.hpp"
#include "ccs/tree/Merge.hpp"
#include "ccs/transport/Security.hpp"
#include "ccs/transport/Server.hpp"
#include "ccs/tree/Tree.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// Options of a Forwarder.
struct ForwarderOptions {
  /// This node's PE; a forward envelope whose table does not start with it is
  /// refused.
  std::int32_t pe = 0;
  /// Protection of the connections to children (and to this node's own
  /// server, see Forwarder): the session's mode and key.
  Security security;
  /// Merge rule per handler; a handler without one gets an error reply.
  MergeTable mergeTable;
  /// Fan-out used by the routing hook (envelopes carry their own).
  std::size_t defaultFanOut = kDefaultFanOut;
  /// Deadline used by the routing hook (envelopes carry their own).
  std::chrono::milliseconds defaultDeadline{5000};
  /// Worker threads for calls to children; at least 1. Tasks beyond it queue.
  std::size_t maxThreads = 16;
  /// Bound on opening one connection (TCP + TLS handshake), further capped
  /// by the time left before the request's deadline. Generous: on an
  /// oversubscribed node a child's TLS handshake can take seconds, and a
  /// fixed short bound lost whole subtrees on a first broadcast to 16,384
  /// endpoints (scale_bench --synthetic); a child that cannot be reached is
  /// still reported missing by the deadline.
  std::chrono::milliseconds connectTimeout{30000};
  /// Smallest margin taken off the deadline per tree level (see Forwarder).
  std::chrono::milliseconds minLevelMargin{20};
  /// One line per refused envelope, missing PE, or unroutable request.
  std::function<void(const std::string&)> log;
};

/// Forwarding along mpidbg's k-ary tree (ccs/tree/Tree.hpp) with merging on the
/// way up (../shared/DESIGN.md, data flow step 3; ../shared/protocols/ccs.md,
/// "Forwarding and merging").
///
/// install() registers on the Server:
///  - an async handler for kForwardHandler: decodes the envelope
///    (ccs/tree/ForwardEnvelope.hpp), checks that entry 0 is this PE and that the
///    inner handler has a merge rule, then, on worker threads (never on the
///    server's poll thread), runs the inner request on this PE and sends a
///    sub-envelope with its slice of the table to each child concurrently,
///    merges the local reply and the children's merged replies in table order
///    and answers with a reply envelope. Hostile or refused envelopes get a
///    reply envelope with an error.
///  - a routing hook for plain Charm++ requests not addressed to this PE:
///    with a peer table (setPeerTable), a broadcast (pe -1) goes down the tree
///    over the whole table in PE order, a multicast (pe -k) over its PE list
///    in list order, rooted at the first PE as Charm++ does (this node when it
///    is PE 0 / the first listed, else one envelope to that PE); the reply is
///    the merged payload only (Charm++ semantics) and missing PEs are logged.
///    A point-to-point request to another PE is relayed to it. Without a peer
///    table, or for a handler without merge rule, the reply is empty and
///    logged (Charm++ aborts in the latter case).
///
/// Deadlines: a node that receives deadline D (ms) takes a margin
/// m = max(minLevelMargin, D/8); its children get D - m at send time, and it
/// waits for them (and for its local reply) until D - m/2, so a missing child
/// is reported instead of stalling the root: the reply is sent by about D
/// after receipt. A child that does not answer in time, refuses the
/// connection or sends a malformed reply has its WHOLE slice listed missing
/// (the parent cannot know which of its descendants answered); a child that
/// answers lists its own missing PEs. When the remaining time is too short to
/// forward, the child's slice is listed missing without sending.
///
/// Local requests: the Server API offers no Responder the forwarding layer
/// can observe, so the inner request is run on this PE by calling this node's
/// own server over a cached loopback Connection (pe = this PE) from a worker
/// thread; handlers still run on the server's thread. Handlers that never
/// answer (freeze) make this PE missing at the deadline.
class Forwarder {
 public:
  /// Registers the handler and routing hook on `server` (call on the server's
  /// thread, before polling). The Forwarder may be destroyed before or after
  /// the server. Errors: maxThreads 0, fan-out outside 1..kMaxFanOut, a
  /// deadline outside 1..kMaxForwardDeadlineMs.
  static Expected<std::unique_ptr<Forwarder>> install(Server& server, ForwarderOptions options);

  /// Stops the workers: queued work is dropped (those requests get an empty
  /// reply), running calls finish within their deadlines. Requests arriving
  /// later get an error reply envelope.
  ~Forwarder();
  Forwarder(const Forwarder&) = delete;
  Forwarder& operator=(const Forwarder&) = delete;

  /// Sets the job's PE table used by the routing hook (any order; entries
  /// for duplicate PEs: the first wins). Thread-safe.
  void setPeerTable(std::vector<PeerEntry> table);

  struct Shared;  ///< state shared with the server's handlers; opaque

 private:
  explicit Forwarder(std::shared_ptr<Shared> shared);
  std::shared_ptr<Shared> shared_;
};

/// For the front end: sends `request` (entry 0 of its table is the node
/// `connection` talks to) and decodes the reply envelope. Waits at most the
/// request's deadline plus `slack`. Errors: transport errors, a malformed
/// reply envelope. A merge error is not an Error here: it is in
/// ForwardReply::error.
Expected<ForwardReply> callForward(
    Connection& connection, const ForwardRequest& request,
    std::chrono::milliseconds slack = std::chrono::milliseconds(1000));

}  // namespace mpidbg::ccs
