#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "ccs/transport/Endpoint.hpp"
#include "ccs/proto/RankProtocol.hpp"
#include "mpidbg/ScopedFd.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::rt {

/// The rank's connection to the front end: first the registration, then one
/// plain CCS frame (handler ccs::proto::kEventHandler, data encode(Event)) per
/// event. Every frame goes out in a single send(2) with MSG_NOSIGNAL. Once the
/// front end is lost (EOF seen by the helper thread) no more events are sent;
/// the descriptor stays open until exit so a signal handler never writes to a
/// reused descriptor.
class EventChannel {
 public:
  EventChannel() = default;
  EventChannel(const EventChannel&) = delete;
  EventChannel& operator=(const EventChannel&) = delete;

  /// Connects to `frontend` (blocking, at most `timeout`). Errors name the
  /// address and the reason (resolution, refused, timed out). Connecting
  /// again (a listening rank attached by a new front end) puts the new
  /// connection on the same descriptor number, which the signal handlers
  /// keep using; call it with the channel marked lost, then revive().
  Expected<void> connect(const ccs::Endpoint& frontend, std::chrono::milliseconds timeout);

  /// Reads exactly `n` bytes within `timeout` (the front end's challenge).
  Expected<std::vector<std::uint8_t>> receive(std::size_t n, std::chrono::milliseconds timeout);

  /// Sends `bytes` completely (blocking). Error if the peer closed.
  Expected<void> sendAll(std::span<const std::uint8_t> bytes);

  /// Sends `event` from rank `rank` as one frame unless the front end is lost.
  /// Allocates (not for signal handlers). Any thread: frames never interleave,
  /// and the freeze --now signal is held off meanwhile. Never throws; failures
  /// mark the channel lost.
  void send(std::int32_t rank, const ccs::proto::Event& event) noexcept;

  /// Pre-builds one Signal event frame per fatal signal (SIGSEGV, SIGBUS,
  /// SIGFPE, SIGILL, SIGABRT), installs handlers that write it with one
  /// send(2) and then re-raise the signal under its previous disposition, and
  /// registers an on_exit() hook that reports Exited with the exit status.
  /// Call once, after the registration was sent.
  Expected<void> armProcessHooks(std::int32_t rank);

  /// The socket (for the helper thread's poll), or -1.
  int fd() const noexcept { return fd_.get(); }

  /// The front end is gone: stop sending events. Idempotent, any thread.
  void markLost() noexcept;
  /// True once markLost() was called.
  bool lost() const noexcept;
  /// Events flow again (after a new registration was sent). Any thread.
  void revive() noexcept;

 private:
  ScopedFd fd_;
  std::mutex sendMutex_;  ///< one frame at a time (send())
};

}  // namespace mpidbg::rt
