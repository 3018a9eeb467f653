#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ccs/Endpoint.hpp"
#include "mpidbg/ScopedFd.hpp"
#include "debugger/core/Job.hpp"
#include "debugger/core/Launcher.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// The rendezvous listener and every rank's event channel, served by one
/// background thread. Protocol (ccs/RankProtocol.hpp): on accept the hub
/// sends a 32-byte random challenge; the rank answers with a plain CCS frame
/// `mpidbg/register` whose record carries an HMAC-SHA256 (session key) over the
/// challenge and the record; later frames are `mpidbg/event`. A connection
/// with a bad MAC or a malformed frame is logged and closed; the job carries
/// on. The thread also reaps the launcher and records its exit in the Job.
class EventHub {
 public:
  /// Binds `bindAddress` on an ephemeral port and starts the thread.
  /// `log` receives one line per rejected connection.
  static Expected<std::unique_ptr<EventHub>> start(std::string bindAddress,
                                                   std::vector<std::uint8_t> key, Job& job,
                                                   std::function<void(const std::string&)> log);
  /// Stops the thread and closes every channel (ranks then resume by themselves).
  ~EventHub();
  EventHub(const EventHub&) = delete;
  EventHub& operator=(const EventHub&) = delete;

  /// Address ranks connect to (MPIDBG_FRONTEND).
  ccs::Endpoint endpoint() const { return endpoint_; }
  /// Lets the thread reap `launcher` (which must outlive the hub or be
  /// detached with nullptr first).
  void setLauncher(Launcher* launcher);

 private:
  EventHub(Job& job) : job_(job) {}
  void run();
  struct Channel;
  Job& job_;
  std::vector<std::uint8_t> key_;
  std::function<void(const std::string&)> log_;
  ccs::Endpoint endpoint_;
  ScopedFd listener_;
  ScopedFd wakeRead_, wakeWrite_;
  std::atomic<Launcher*> launcher_{nullptr};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace mpidbg::core
