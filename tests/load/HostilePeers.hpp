#pragma once

// Peers that misbehave while the load runs (issue 10): stallers connect, send
// half a request header and sit; flooders open connection after connection
// of garbage or oversized headers as fast as they can; unread peers pipeline
// well-formed requests and never read a reply. The server must close each
// of them and keep serving everyone else.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "LoadOptions.hpp"

namespace mpidbg::load {

/// What the hostile peers did and how the server treated them.
struct HostileTally {
  /// Half-header connections opened by the stallers.
  std::size_t stalls = 0;
  /// ... of which the server closed (its idle timer).
  std::size_t stallsClosedByServer = 0;
  /// Flood connections opened, by kind: http (text), random (random bytes),
  /// oversized (a header announcing 512 MiB - 1 of data).
  std::map<std::string, std::size_t> floods;
  /// ... of which the server closed within LoadOptions::timeout (at once
  /// once accepted; a full listen queue may delay the accept by seconds).
  std::size_t floodsClosedByServer = 0;
  /// ... of which the server still held open after LoadOptions::timeout.
  std::size_t floodsNotClosed = 0;
  /// Connections opened by the unread peers.
  std::size_t unreadConnections = 0;
  /// Well-formed request bytes the unread peers got the server to take.
  std::size_t unreadBytesSent = 0;
  /// ... connections the server closed (reply not read for its idle timeout).
  std::size_t unreadClosedByServer = 0;
  /// Connections any hostile peer could not open (a full listen queue
  /// drops handshakes; not a failure of the server's own logic).
  std::size_t connectFailures = 0;
  /// The first of those errors, as ccs_load prints it.
  std::string firstConnectFailure;

  /// Adds `other`'s counts to this one.
  void merge(const HostileTally& other);
  /// Connections the server did not close by itself (stalls and unread
  /// connections it still held at the settle deadline, floods after the
  /// request timeout).
  std::size_t heldOpen() const;
};

/// Runs the hostile peers of LoadOptions (stallers, flooders, unread) on
/// their own threads from construction until finish().
class HostilePeers {
 public:
  /// Starts the peers; none when the options ask for none.
  explicit HostilePeers(const LoadOptions& options);
  /// Stops and joins the peers if finish() was not called.
  ~HostilePeers();
  HostilePeers(const HostilePeers&) = delete;
  HostilePeers& operator=(const HostilePeers&) = delete;

  /// Stops the flooders at once. Stallers and unread peers open no new
  /// connection and wait for the server to close the one they hold, up to
  /// `settle`; what is still open then they close themselves (counted as
  /// held open). Returns the merged counts. Call once.
  HostileTally finish(std::chrono::milliseconds settle);

 private:
  void stall();
  void flood(std::size_t peer);
  void pipelineUnread();
  /// The point until which a stalled or unread connection waits for the
  /// server once finishing (the far future before finish()).
  std::chrono::steady_clock::time_point settleDeadline() const;
  void record(const HostileTally& tally);

  LoadOptions options_;
  std::atomic<bool> finishing_{false};
  std::atomic<bool> stopFlooding_{false};
  std::atomic<std::int64_t> settleDeadlineNs_{INT64_MAX};
  std::mutex mutex_;
  HostileTally tally_;
  std::vector<std::jthread> threads_;
};

}  // namespace mpidbg::load
