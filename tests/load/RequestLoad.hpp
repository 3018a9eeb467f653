#pragma once

// Well-formed CCS requests from many concurrent clients, Charm++'s plain
// mode: one connection per request (ccs::Client::call).

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "LoadOptions.hpp"

namespace mpidbg::load {

/// Failed requests of one kind: how many, and the first message seen.
struct FailureKind {
  std::size_t count = 0;
  std::string firstMessage;
};

/// What a batch of well-formed requests got.
struct LoadTally {
  /// Requests answered with a non-empty reply containing LoadOptions::expect.
  std::size_t ok = 0;
  /// Every other request.
  std::size_t failed = 0;
  /// Failures by kind: timeout, connect, send, read, closed without reply,
  /// malformed reply, empty reply, unexpected reply, other.
  std::map<std::string, FailureKind> failures;
  /// Round trip of every request (connect to reply or failure), in ms.
  std::vector<double> latencyMs;
  /// Wall time of the batch.
  std::chrono::duration<double> elapsed{};

  /// Adds `other`'s counts and latencies (not its time) to this one.
  void merge(const LoadTally& other);
  /// The `p`-quantile (0..1) of latencyMs, nearest rank; 0 when empty.
  /// Sorts latencyMs.
  double latencyQuantile(double p);
};

/// The kind (a LoadTally::failures key) of a ccs::Client::call error message.
std::string failureKind(const std::string& message);

/// Sends batches of well-formed requests from LoadOptions::clients threads.
class RequestLoad {
 public:
  /// Keeps a copy of the server, handlers, PE, expected text and timeout.
  explicit RequestLoad(const LoadOptions& options);

  /// Sends `total` requests: every thread takes the next request number until
  /// none is left, so `total` are sent whatever the threads' speeds. Blocks
  /// until each was answered or failed (each bounded by the timeout).
  LoadTally run(std::size_t total) const;

 private:
  LoadOptions options_;
};

}  // namespace mpidbg::load
