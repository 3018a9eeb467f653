#pragma once

// Hang triage for CI (issue 7): `mpidbg --hang-timeout SECONDS [--report
// FILE] -- LAUNCHER ...` runs the job without commands; when no rank makes MPI
// progress for SECONDS it writes the hang verdict, the merged stacks and the
// queues, kills the job and exits with kExitHang; a job that ends by itself
// passes its exit code through. docs/commands.md, "Hang triage in CI".

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "debugger/cli/Console.hpp"
#include "debugger/core/Debugger.hpp"
#include "debugger/core/HangReport.hpp"
#include "debugger/core/StatusReport.hpp"
#include "debugger/core/stacks/StackTree.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::cli {

/// What `--hang-timeout` and `--report` asked for.
struct HangTriageOptions {
  /// Seconds without MPI progress on any rank that make a hang; 0 = triage off.
  double timeoutSeconds = 0;
  /// `--report FILE`: where the JSON report goes; empty = no report files
  /// (the text report still goes to stdout).
  std::string reportPath;
  /// The launcher command line, quoted in the report ("job.argv").
  std::vector<std::string> argv;
  /// How often the ranks' status is polled.
  std::chrono::milliseconds pollInterval{1000};

  /// True when `--hang-timeout` was given.
  bool enabled() const { return timeoutSeconds > 0; }
  /// The timeout as a duration (rounded to milliseconds).
  std::chrono::milliseconds timeout() const {
    return std::chrono::milliseconds(static_cast<long long>(timeoutSeconds * 1000.0 + 0.5));
  }
};

/// The largest `--hang-timeout` accepted, in seconds (11.6 days).
inline constexpr double kMaxHangTimeout = 1e6;

/// Checks the text given to `--hang-timeout` (a CLI11 validator): a decimal
/// number of seconds, more than 0 and at most kMaxHangTimeout ("60", "2.5").
/// Returns "" when valid, else one sentence CLI11 prints after
/// "--hang-timeout: ".
std::string hangTimeoutError(const std::string& text);

/// Checks the triage options before anything is launched. Errors (a usage
/// error each, exit 64): `--report` without `--hang-timeout`;
/// `--hang-timeout` together with `-ex`/`-x` commands (`haveCommands`);
/// a report path that is a directory, or whose directory does not exist or
/// is not writable. Nothing is created or removed.
Expected<void> checkHangTriageOptions(const HangTriageOptions& options, bool haveCommands);

/// Where the text report goes for JSON report `jsonPath`: a trailing ".json"
/// replaced by ".txt" ("ci/hang.json" -> "ci/hang.txt"), otherwise ".txt"
/// appended ("hang" -> "hang.txt", "hang.out" -> "hang.out.txt").
std::string textReportPath(const std::string& jsonPath);

/// What one poll saw of one rank: the input of ProgressDetector.
struct ProgressSample {
  int rank = 0;
  bool ended = false;      ///< the process has ended (exited, signaled, aborted, lost, killed)
  bool finalized = false;  ///< MPI_Finalize has returned: the rank is done with MPI
  bool held = false;       ///< frozen by the runtime or held by gdb: the debugger holds it
  bool known = false;      ///< the runtime answered: inMpi and mpiCalls are valid
  bool inMpi = false;      ///< inside an intercepted MPI call
  std::uint64_t mpiCalls = 0;  ///< intercepted MPI calls since MPI_Init (RankStatus::mpiCalls)

  bool operator==(const ProgressSample&) const = default;
};

/// One sample per view, in the views' order: ended/finalized/held from the
/// job model and the runtime's state, inMpi and mpiCalls from the runtime's
/// status when it answered (known == false otherwise). A polling rank
/// (MpiCall::polling) counts as in MPI with the call count its streak
/// started at, so that repeating its test is no progress.
std::vector<ProgressSample> progressSamples(const std::vector<core::RankView>& views);

/// Decides from successive polls whether the job makes MPI progress. Pure:
/// no I/O and no clock of its own (the caller passes the time), so it is
/// tested over sequences of samples.
///
/// Progress between two polls is any of: some rank's MPI call counter
/// changed; some rank ended or finished MPI_Finalize; the set of ranks inside
/// an MPI call changed; a rank answered for the first time. A rank whose
/// runtime did not answer keeps its last answered values (silence is not
/// progress). The idle clock is paused (restarted at every poll) while some
/// live rank is held by the debugger (frozen or under gdb), and while every
/// rank has ended or finalized: nothing can be stuck in MPI then.
class ProgressDetector {
 public:
  using Clock = std::chrono::steady_clock;

  /// A detector that calls the job hung after `timeout` without progress.
  explicit ProgressDetector(std::chrono::milliseconds timeout) : timeout_(timeout) {}

  /// Records one poll taken at `now` (times must not go backwards). The
  /// first poll starts the idle clock. Returns true when this poll showed
  /// progress (or paused the clock), false when the job stayed idle.
  bool observe(const std::vector<ProgressSample>& samples, Clock::time_point now);

  /// How long the job has gone without progress as of `now`; zero before
  /// the first observe().
  std::chrono::milliseconds idleFor(Clock::time_point now) const;

  /// True when idleFor(now) has reached the timeout.
  bool hung(Clock::time_point now) const;

  /// The timeout given at construction.
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  std::chrono::milliseconds timeout_;
  std::map<int, ProgressSample> last_;  ///< by rank, with unanswered values carried over
  std::optional<Clock::time_point> lastProgress_;
};

/// The queue state of `input` as JSON (the report's "queues"):
/// {"ranks":[{"rank":0,"source":"ccs","phase":"running","call":"MPI_Recv(...)"|null,
///   "frames":[..],"error":"","comms":[{"name","handle","size","rank",
///   "sends":[..],"recvs":[..],"unexpected":[..],"not_received":[..],"collectives":[..]}]}],
///  "ended":[{"rank","how"}], "unreadable":[{"rank","why"}]}; pending
/// operations are describeOp() strings, handles hex strings ("0x44000000").
nlohmann::json queuesToJson(const core::HangInput& input);

/// What the report says about the job itself.
struct TriageJob {
  std::vector<std::string> argv;  ///< the launcher command line
  int ranks = 0;                  ///< number of ranks
  double seconds = 0;             ///< from every rank registered to the verdict
  double idleSeconds = 0;         ///< without MPI progress before the verdict
  double timeoutSeconds = 0;      ///< --hang-timeout
};

/// The hang report as one JSON object: {"version":1, "hang":hangToJson(verdict),
/// "stacks":stackTreeToJson(tree), "queues":queuesToJson(input),
/// "job":{"argv":[..],"ranks":4,"seconds":4.1,"idle_seconds":3.0,"hang_timeout":3}}.
nlohmann::json hangReportJson(const core::HangVerdict& verdict, const core::stacks::StackTree& tree,
                              const core::HangInput& input, const TriageJob& job);

/// The same report as text (lines end with '\n'): a headline with the idle
/// time, the job line, then "Hang verdict:" (renderHang), "Merged stacks
/// (main to the MPI call):" (renderLeaves) and "Queues:" (renderQueues).
std::string hangReportText(const core::HangVerdict& verdict, const core::stacks::StackTree& tree,
                           const core::HangInput& input, const TriageJob& job);

/// Runs a job already launched (ranks running, not frozen) to its end or to a
/// hang. Polls every rank's status each options.pollInterval; on stderr, when
/// it is a terminal, shows "no MPI progress for N s" once the job has been
/// idle for 5 s. Returns the exit code for main():
/// - the job's own code (128+N for signal N) when it ended by itself; no
///   report is written;
/// - kExitHang on a hang, after printing the text report to stdout, writing
///   the JSON report to options.reportPath and the text one beside it
///   (textReportPath) when a path was given (a file that cannot be written
///   is reported on stderr; the exit code stays kExitHang), and killing the job;
/// - kExitInterrupted after Ctrl-C (the job is killed, no report).
/// The job is always ended when this returns.
int runHangTriage(core::Debugger& debugger, Console& console, const HangTriageOptions& options);

}  // namespace mpidbg::cli
