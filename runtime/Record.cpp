// Record and replay of matching decisions (Record.hpp; log format in
// common/include/mpidbg/DecisionLog.hpp): the state's start and finish, the
// fatal-signal flush, divergence, and the completions of wildcard
// MPI_Irecv. The log is written by RecordLog, read back by ReplayCursor;
// the wrappers' deciding paths are in RecordWrappers.cpp, `info record` in
// RecordHandler.cpp.
#include <signal.h>
#include <sys/stat.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "Control.hpp"
#include "FatalSignal.hpp"
#include "RecordState.hpp"
#include "Runtime.hpp"

namespace mpidbg::rt {

int gDecisions = 0;

namespace rec {

using record::Decision;
using record::DecisionKind;

Decisions& state() noexcept {
  static Decisions* d = new Decisions;  // never destroyed: fatal signals and atexit use it
  return *d;
}

namespace {

/// A write of the log failed with `error` (RecordLog closed it): recording
/// stops, saying so once.
void writeFailed(Decisions& d, int error) noexcept {
  tell(d.rank, "recording stopped: cannot write " + d.log.path() + ": " + std::strerror(error));
  __atomic_and_fetch(&gDecisions, ~kRecording, __ATOMIC_RELAXED);
}

/// Fatal signals: what was recorded reaches the file before the process
/// dies (without the end marker: the log shows it was cut short). Then the
/// previous disposition runs.
std::array<struct sigaction, kFatalSignals.size()> gPreviousActions{};

void onFatalSignal(int sig, siginfo_t* info, void*) {
  Decisions& d = state();
  if (const int error = d.log.flushForSignal()) writeFailed(d, error);
  for (std::size_t i = 0; i < kFatalSignals.size(); ++i)
    if (kFatalSignals[i] == sig) passOnFatalSignal(sig, info, gPreviousActions[i]);
}

void installFatalFlush() noexcept {
  for (std::size_t i = 0; i < kFatalSignals.size(); ++i) {
    struct sigaction action {};
    action.sa_sigaction = onFatalSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_SIGINFO;
    ::sigaction(kFatalSignals[i], &action, &gPreviousActions[i]);
  }
}

std::string rankFile(const std::string& dir, int rank) { return dir + "/rank-" + std::to_string(rank) + ".rec"; }

void startRecording(Decisions& d, const char* dir) {
  ::mkdir(dir, 0755);  // the front end made it; a job run without one may not have
  const std::string error = d.log.create(rankFile(dir, d.rank), d.rank, d.size);
  if (!error.empty()) {
    tell(d.rank, "not recording: " + error);
    return;
  }
  gDecisions |= kRecording;
}

void startReplaying(Decisions& d, const char* dir) {
  gDecisions |= kReplaying;
  d.cursor.open(rankFile(dir, d.rank), d.rank, d.size);
}

}  // namespace

void recordDecision(const Decision& decision) noexcept {
  if (!recording()) return;
  Decisions& d = state();
  std::lock_guard lock(d.mutex);
  try {
    if (const int error = d.log.add(decision)) writeFailed(d, error);
  } catch (...) {
    // Out of memory: the log loses this decision; replay will report where.
  }
}

void diverge(const std::string& call, const std::string& why) noexcept {
  std::string text;
  try {
    Decisions& d = state();
    {
      std::lock_guard lock(d.mutex);
      std::optional<std::string> report = d.cursor.diverge(why);
      if (!report) return;
      text = std::move(*report);
    }
    __atomic_and_fetch(&gDecisions, ~kReplaying, __ATOMIC_RELAXED);
    if (Runtime* rt = Runtime::attached()) {
      Control::instance().divergence(*rt, call, text);  // its stop event tells the front end
      return;
    }
    std::fprintf(stderr, "mpidbg-rt: rank %d: replay diverged in %s at %s\n", d.rank, call.c_str(), text.c_str());
  } catch (...) {
    std::fprintf(stderr, "mpidbg-rt: replay diverged\n");
  }
  finishDecisions();
  PMPI_Abort(MPI_COMM_WORLD, 3);
}

std::optional<Decision> nextDecision(DecisionKind kind, const std::string& call) noexcept {
  Decisions& d = state();
  std::string why;
  {
    std::lock_guard lock(d.mutex);
    ReplayStep step = d.cursor.next(kind);
    if (step.why.empty()) return std::move(step.decision);
    why = std::move(step.why);
  }
  diverge(call, why);
  return std::nullopt;
}

std::optional<Decision> irecvMatch(std::int64_t ordinal) noexcept {
  Decisions& d = state();
  std::lock_guard lock(d.mutex);
  return d.cursor.irecvMatch(ordinal);
}

// ---- Completions of wildcard MPI_Irecv (recording) ----

std::int64_t nextIrecvOrdinal() noexcept {
  Decisions& d = state();
  std::lock_guard lock(d.mutex);
  return d.irecvOrdinal++;
}

void irecvPosted(MPI_Request request, std::int64_t ordinal) noexcept {
  Decisions& d = state();
  std::lock_guard lock(d.mutex);
  try {
    d.pending.push_back(PendingIrecv{request, ordinal});
  } catch (...) {
    // Out of memory: this receive's match goes unrecorded.
  }
}

bool anyPendingIrecv() noexcept {
  if (!recording()) return false;
  Decisions& d = state();
  std::lock_guard lock(d.mutex);
  return !d.pending.empty();
}

namespace {

/// Takes `request` out of the pending wildcard receives: its ordinal, or -1
/// when it was not one (caller holds the mutex).
std::int64_t takePendingLocked(Decisions& d, MPI_Request request) noexcept {
  for (std::size_t i = 0; i < d.pending.size(); ++i) {
    if (d.pending[i].request != request) continue;
    const std::int64_t ordinal = d.pending[i].ordinal;
    d.pending[i] = d.pending.back();
    d.pending.pop_back();
    return ordinal;
  }
  return -1;
}

}  // namespace

void irecvCompleted(MPI_Request request, const MPI_Status& status) noexcept {
  if (request == MPI_REQUEST_NULL) return;
  Decisions& d = state();
  std::int64_t ordinal = -1;
  {
    std::lock_guard lock(d.mutex);
    ordinal = takePendingLocked(d, request);
  }
  if (ordinal < 0) return;
  int cancelled = 0;
  PMPI_Test_cancelled(&status, &cancelled);
  if (cancelled) return;
  Decision decision = match(DecisionKind::IrecvMatch, status);
  decision.index = ordinal;
  recordDecision(decision);
}

Completions::Completions(const MPI_Request* requests, int count, MPI_Status* statuses, int statusCount) {
  if (!anyPendingIrecv() || !requests || count <= 0) return;
  active_ = true;
  saved_.assign(requests, requests + count);
  if (statuses == MPI_STATUSES_IGNORE || statuses == MPI_STATUS_IGNORE) {
    own_.resize(static_cast<std::size_t>(statusCount));
    statuses_ = own_.data();
  } else {
    statuses_ = statuses;
  }
}

void Completions::completed(int index, int statusIndex) noexcept {
  if (!active_ || index < 0 || index >= static_cast<int>(saved_.size())) return;
  irecvCompleted(saved_[static_cast<std::size_t>(index)], statuses_[statusIndex]);
}

}  // namespace rec

void startDecisions() noexcept {
  const char* recordDir = std::getenv("MPIDBG_RECORD");
  const char* replayDir = std::getenv("MPIDBG_REPLAY");
  const bool record = recordDir && *recordDir;
  const bool replay = replayDir && *replayDir;
  if (!record && !replay) return;
  try {
    rec::Decisions& d = rec::state();
    std::lock_guard lock(d.mutex);
    PMPI_Comm_rank(MPI_COMM_WORLD, &d.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &d.size);
    if (replay) rec::startReplaying(d, replayDir);
    if (record) rec::startRecording(d, recordDir);
    if (record) {
      rec::installFatalFlush();
      std::atexit([] { finishDecisions(); });
    }
  } catch (...) {
    std::fprintf(stderr, "mpidbg-rt: record/replay could not start (out of memory)\n");
    gDecisions = 0;
  }
}

void finishDecisions() noexcept {
  rec::Decisions& d = rec::state();
  std::lock_guard lock(d.mutex);
  if (!d.log.active()) return;
  if (const int error = d.log.finish()) rec::writeFailed(d, error);
  __atomic_and_fetch(&gDecisions, ~kRecording, __ATOMIC_RELAXED);
}

namespace decided {

void requestFreed(MPI_Request request) noexcept {
  if (request == MPI_REQUEST_NULL || !rec::recording()) return;
  rec::Decisions& d = rec::state();
  std::lock_guard lock(d.mutex);
  rec::takePendingLocked(d, request);
}

}  // namespace decided

}  // namespace mpidbg::rt
