#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "debugger/core/Job.hpp"
#include "debugger/core/RankSet.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::gdbmi {
class Session;
}

namespace mpidbg::core {

/// One gdb/MI session per chosen rank, attached by pid on first use and
/// driven in parallel. While a session holds a rank, the rank's process is
/// stopped (so its CCS thread is silent); the Job is told, so commands read
/// "stopped by gdb" instead of timing out.
class GdbPool {
 public:
  explicit GdbPool(Job& job);
  ~GdbPool();
  GdbPool(const GdbPool&) = delete;
  GdbPool& operator=(const GdbPool&) = delete;

  /// gdb executable to run.
  std::string gdbPath = "gdb";
  /// Bound on attaching, and on one command.
  std::chrono::milliseconds attachTimeout{30000};
  std::chrono::milliseconds commandTimeout{30000};

  /// Runs the gdb console command `command` on every rank of `ranks`,
  /// attaching first where needed (`progress(done, total)` is called as
  /// attaches finish). Returns each rank's console output, or an Error for a
  /// rank that has ended, that gdb could not attach to ("gdb could not attach
  /// to rank 2 (pid 1234): ptrace: Operation not permitted."), or whose gdb died
  /// or timed out (the session is then dropped).
  std::map<int, Expected<std::string>> run(const RankSet& ranks, const std::string& command,
                                           const std::function<void(int, int)>& progress = {});

  /// Detaches the sessions of `ranks` (the processes resume). Ranks with no
  /// session are left out of the result.
  std::map<int, Expected<void>> detach(const RankSet& ranks);

  /// Ranks that currently have a session.
  RankSet attached() const;

  /// Detaches and ends every session.
  void closeAll();

 private:
  Expected<gdbmi::Session*> sessionFor(int rank);
  Job& job_;
  mutable std::mutex mutex_;
  std::map<int, std::unique_ptr<gdbmi::Session>> sessions_;
};

}  // namespace mpidbg::core
