#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "debugger/core/Job.hpp"
#include "debugger/core/RankSet.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::gdbmi {
class Session;
struct Reply;
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

  /// Sends one CCS request (`handler` with `data`) to `rank`'s runtime and
  /// returns the reply bytes, or an Error when the rank cannot be reached
  /// within `timeout`. The Debugger sets it (RankChannels::call); unset, ranks
  /// that need gdbserver cannot be attached.
  using RankCall = std::function<Expected<std::vector<std::uint8_t>>(
      const RankInfo& rank, std::string_view handler, const std::vector<std::uint8_t>& data,
      std::chrono::milliseconds timeout)>;
  RankCall rankCall;

  /// Runs the gdb console command `command` on every rank of `ranks`,
  /// attaching first where needed (`progress(done, total)` is called as
  /// attaches finish). A command that sets a rank running (`continue`,
  /// `next`, `finish` ...) returns once the rank stops again, its stop in the
  /// output; a rank still running after commandTimeout is interrupted
  /// (Session::consoleUntilStopped). Returns each rank's console output, or an Error for a
  /// rank that has ended, that gdb could not attach to ("gdb could not attach
  /// to rank 2 (pid 1234): ptrace: Operation not permitted."), whose gdb died
  /// (the session is dropped; the next use attaches a new gdb) or did not
  /// answer within commandTimeout (the session is kept: gdb may be busy, and
  /// its late answer is skipped by the next command).
  std::map<int, Expected<std::string>> run(const RankSet& ranks, const std::string& command,
                                           const std::function<void(int, int)>& progress = {});

  /// Detaches the sessions of `ranks` (the processes resume) and ends their
  /// gdb, released sessions included. Ranks with no session are left out of
  /// the result.
  std::map<int, Expected<void>> detach(const RankSet& ranks);

  /// Lets the ranks of `ranks` that a session holds run again, for a look
  /// that needed no hold (`gdb 2 bt`). A rank on this host keeps its gdb,
  /// detached: the next command attaches it again in the same gdb, so value
  /// history ($1, $2 ...), breakpoints and settings carry over and symbols
  /// are not read twice. A rank debugged through a gdbserver is detached
  /// and its gdb ended. Errors of the detach are dropped (the rank resumes
  /// when its gdb ends).
  void release(const RankSet& ranks);

  /// Attaches a gdb session to every rank of `ranks` that has none (up to 8
  /// attaching at once), without running a command; each attached rank is
  /// stopped. `progress(done, total)` is called (from worker threads, one
  /// call at a time) as each rank finishes. Per rank: true when attached now,
  /// false when it already had a live session, or the Error sessionFor gives
  /// (rank not registered or ended, gdb cannot start or attach).
  std::map<int, Expected<bool>> attach(const RankSet& ranks,
                                       const std::function<void(int, int)>& progress = {});

  /// Runs the raw MI command `miCommand` (one line, without token, e.g.
  /// "-data-evaluate-expression rank") on every rank of `ranks`, attaching
  /// first where needed, as run() does. Per rank: gdb's Reply (an ^error is
  /// a Reply, see Reply::isError), or an Error as run() gives; a gdb that
  /// died (e.g. killed) is reported for its rank and its session dropped, so
  /// the next use attaches a fresh gdb; a timeout (`commandTimeout`) is
  /// reported and the session kept (gdb's late answer is skipped later).
  std::map<int, Expected<gdbmi::Reply>> mi(const RankSet& ranks, const std::string& miCommand,
                                           const std::function<void(int, int)>& progress = {});

  /// Ranks that a session currently holds (released ones excluded).
  RankSet attached() const;

  /// Detaches and ends every session.
  void closeAll();

 private:
  /// The live session of `rank`, attaching one when it has none. A session
  /// whose gdb died since its last command is dropped and its death reported
  /// as the Error (once; the next call attaches afresh), so a user learns of
  /// it however the death and the next command were timed.
  Expected<gdbmi::Session*> sessionFor(int rank);
  /// Forgets the session of `rank` (its gdb is gone) and un-holds the rank.
  void dropDead(int rank);
  /// Whether `info` is debugged through a gdbserver on its host: env
  /// MPIDBG_GDB_REMOTE = always | never | auto (default: remote when the
  /// rank's host name differs from this host's). Error for another value.
  static Expected<bool> isRemote(const RankInfo& info);
  /// Asks the rank's runtime for a gdbserver (ccs/proto/GdbServerProtocol.hpp),
  /// connects `session` to it and attaches to the rank. Marks the rank held
  /// once the gdbserver answered; the caller unmarks it on an Error.
  Expected<void> attachRemote(gdbmi::Session& session, const RankInfo& info);
  /// Attaches `session` to `info`'s process on this host (a new gdb, or one
  /// release() detached). Marks the rank held first, unmarks it on an Error
  /// ("gdb could not attach to rank 2 (pid 1234): ...").
  Expected<void> attachLocal(gdbmi::Session& session, const RankInfo& info);
  Job& job_;
  mutable std::mutex mutex_;
  /// Sessions that hold their rank.
  std::map<int, std::unique_ptr<gdbmi::Session>> sessions_;
  /// Sessions of ranks on this host that release() detached, kept for reuse.
  std::map<int, std::unique_ptr<gdbmi::Session>> released_;
  /// Ranks whose session goes through a gdbserver (never kept released).
  std::set<int> remote_;
};

}  // namespace mpidbg::core
