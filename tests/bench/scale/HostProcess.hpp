#pragma once

// A forked process holding one EndpointHost: scale_bench's synthetic mode
// spreads its emulated ranks over several such processes (like nodes), so
// the front end (the parent) is measured on its own and each process stays
// under its descriptor limit.
#include <sys/types.h>

#include <memory>
#include <vector>

#include "EndpointHost.hpp"
#include "ccs/tree/ForwardEnvelope.hpp"
#include "mpidbg/Error.hpp"
#include "mpidbg/ScopedFd.hpp"

namespace mpidbg::bench {

/// The parent's handle on one host process. The child raises its
/// RLIMIT_NOFILE soft limit to the hard limit, makes the default thread stack
/// 256 KiB (thousands of poll and forwarding threads), starts the
/// EndpointHost, reports its endpoints and serves them until the parent
/// closes the control pipe. Copy deleted; the destructor ends the child.
class HostProcess {
 public:
  /// Forks the child (call while this process has no other threads: the
  /// child continues without exec). `closeInChild` are descriptors of the
  /// parent (other hosts' pipe ends) the child must not keep open.
  /// Errors: pipe or fork failed.
  static Expected<std::unique_ptr<HostProcess>> spawn(const HostOptions& options,
                                                      const std::vector<int>& closeInChild);
  /// Closes the control pipe, waits up to 60 s for the child to tear its
  /// endpoints down, then kills it.
  ~HostProcess();
  HostProcess(const HostProcess&) = delete;
  HostProcess& operator=(const HostProcess&) = delete;

  /// The child's process id.
  pid_t pid() const { return pid_; }
  /// Closes the control pipe: the child tears its endpoints down and exits
  /// (the destructor then only waits). Lets many hosts stop in parallel.
  void requestStop() { control_.reset(); }
  /// The parent's ends of the child's pipes (to close in later children).
  std::vector<int> parentFds() const { return {report_.get(), control_.get()}; }

  /// Blocks until the child reported: its endpoints in rank order, or the
  /// error it hit starting them (the child then exits).
  Expected<std::vector<ccs::PeerEntry>> readPeers();

 private:
  HostProcess(pid_t pid, ScopedFd report, ScopedFd control)
      : pid_(pid), report_(std::move(report)), control_(std::move(control)) {}
  pid_t pid_;
  ScopedFd report_;   ///< read end: the child's report
  ScopedFd control_;  ///< write end: EOF tells the child to stop
};

}  // namespace mpidbg::bench
