#pragma once

// Command line of bin/ccs_load (tests/load/ccs_load.cpp).

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ccs/transport/Endpoint.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::load {

/// What one ccs_load run does. Defaults are issue 10's figures.
struct LoadOptions {
  /// The CCS server under load (HOST:PORT).
  ccs::Endpoint server;
  /// Concurrent client threads, each sending one request per connection.
  std::size_t clients = 200;
  /// Well-formed requests counted, after the warm-up.
  std::size_t requests = 100000;
  /// Well-formed requests sent before the "before" sample, not counted in
  /// requests/s (page faults and lazy initialisation of the server).
  std::size_t warmup = 1000;
  /// Handlers asked in turn (request i goes to handlers[i % size]).
  std::vector<std::string> handlers{"mpidbg/status"};
  /// Destination PE of every request (the server's own PE, so it answers
  /// locally).
  std::int32_t pe = 0;
  /// Text every reply must contain; empty: any non-empty reply is good.
  std::string expect;
  /// Server process whose /proc/PID/fd and VmRSS are sampled; none: no samples.
  std::optional<pid_t> pid;
  /// Peers that connect, send half a header and sit.
  std::size_t stallers = 0;
  /// Peers that open connection after connection of garbage or oversized
  /// headers as fast as they can.
  std::size_t flooders = 0;
  /// Peers that pipeline well-formed requests and never read a reply (one
  /// connection each, until the server closes it).
  std::size_t unread = 0;
  /// Bound on one well-formed request (connect, send, reply).
  std::chrono::milliseconds timeout{30000};
  /// After the load: how long to wait for the server to close the stalled
  /// connections (its idle timer) and for its fd count to come back.
  std::chrono::milliseconds settle{20000};
};

/// Usage text for --help and argument errors.
std::string loadUsage();

/// Parses argv[1..] (`args` excludes the program name). Returns std::nullopt
/// for --help. Errors: unknown option, missing or malformed value, no
/// HOST:PORT, zero clients or requests.
Expected<std::optional<LoadOptions>> parseLoadOptions(std::span<const std::string> args);

}  // namespace mpidbg::load
