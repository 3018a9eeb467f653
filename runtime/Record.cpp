// Record and replay of matching decisions (Record.hpp; log format in
// common/include/mpidbg/DecisionLog.hpp).
#include "Record.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "CommRegistry.hpp"
#include "Control.hpp"
#include "FatalSignal.hpp"
#include "Guarded.hpp"
#include "Runtime.hpp"
#include "ccs/Server.hpp"
#include "mpidbg/DecisionLog.hpp"

namespace mpidbg::rt {

int gDecisions = 0;

namespace {

using record::Decision;
using record::DecisionKind;

/// Bytes of pending log kept before they are written out.
constexpr std::size_t kFlushBytes = 64 * 1024;

/// A wildcard MPI_Irecv not completed yet (recording): its request and its
/// ordinal among the rank's wildcard receives.
struct PendingIrecv {
  MPI_Request request;
  std::int64_t ordinal;
};

/// The process's record/replay state. Its mutex is never held across an MPI
/// call or a stop.
struct Decisions {
  std::mutex mutex;
  int rank = 0;
  int size = 0;

  // Recording.
  int fd = -1;
  std::string recordPath;
  std::unique_ptr<record::Encoder> encoder;
  std::uint64_t bytesWritten = 0;
  std::array<std::uint64_t, 11> byKind{};
  std::vector<PendingIrecv> pending;
  bool finished = false;

  // Replaying.
  std::string replayPath;
  bool replaying = false;
  std::vector<record::Run> runs;  ///< the sequential decisions (IrecvMatch taken out)
  std::size_t run = 0;            ///< the run the cursor is in
  std::uint64_t usedInRun = 0;    ///< decisions of runs[run] already taken
  std::unordered_map<std::int64_t, Decision> irecvMatches;
  std::uint64_t replayed = 0;
  std::uint64_t replayTotal = 0;
  bool replayComplete = false;
  std::string broken;    ///< why the log cannot be replayed ("" when it can)
  std::string diverged;  ///< the divergence report, once one happened

  /// Ordinal of the next wildcard MPI_Irecv (recording and replaying).
  std::int64_t irecvOrdinal = 0;
};

Decisions& state() noexcept {
  static Decisions* d = new Decisions;  // never destroyed: fatal signals and atexit use it
  return *d;
}

/// Writes every pending byte out (caller holds the mutex, or is a fatal
/// signal handler). Stops recording on a write error, saying so once.
void writeOutLocked(Decisions& d) noexcept {
  if (d.fd < 0 || !d.encoder) return;
  const std::string& bytes = d.encoder->pending();
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(d.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      tell(d.rank, "recording stopped: cannot write " + d.recordPath + ": " + std::strerror(errno));
      ::close(d.fd);
      d.fd = -1;
      __atomic_and_fetch(&gDecisions, ~kRecording, __ATOMIC_RELAXED);
      return;
    }
    done += static_cast<std::size_t>(n);
  }
  d.bytesWritten += done;
  d.encoder->consumed();
}

/// Appends `decision` to the log (recording only).
void recordDecision(const Decision& decision) noexcept {
  if (!(__atomic_load_n(&gDecisions, __ATOMIC_RELAXED) & kRecording)) return;
  Decisions& d = state();
  std::lock_guard lock(d.mutex);
  if (d.fd < 0 || d.finished) return;
  try {
    d.encoder->add(decision);
    ++d.byKind[static_cast<std::size_t>(decision.kind)];
    if (d.encoder->pending().size() >= kFlushBytes) writeOutLocked(d);
  } catch (...) {
    // Out of memory: the log loses this decision; replay will report where.
  }
}

bool recording() noexcept { return __atomic_load_n(&gDecisions, __ATOMIC_RELAXED) & kRecording; }
bool replaying() noexcept { return __atomic_load_n(&gDecisions, __ATOMIC_RELAXED) & kReplaying; }

/// Fatal signals: what was recorded reaches the file before the process
/// dies (without the end marker: the log shows it was cut short). Then the
/// previous disposition runs.
std::array<struct sigaction, kFatalSignals.size()> gPreviousActions{};

void onFatalSignal(int sig, siginfo_t* info, void*) {
  Decisions& d = state();
  if (d.encoder && d.fd >= 0 && !d.finished) {
    // The buffer has room reserved: sealing the run does not allocate.
    d.encoder->sealRun();
    writeOutLocked(d);
  }
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
  d.recordPath = rankFile(dir, d.rank);
  d.fd = ::open(d.recordPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (d.fd < 0) {
    tell(d.rank, "not recording: cannot create " + d.recordPath + ": " + std::strerror(errno));
    return;
  }
  d.encoder = std::make_unique<record::Encoder>(d.rank, d.size);
  d.encoder->reserve(kFlushBytes + 1024);
  gDecisions |= kRecording;
}

void startReplaying(Decisions& d, const char* dir) {
  d.replayPath = rankFile(dir, d.rank);
  d.replaying = true;
  gDecisions |= kReplaying;
  std::FILE* f = std::fopen(d.replayPath.c_str(), "rb");
  if (!f) {
    d.broken = "cannot read " + d.replayPath + ": " + std::strerror(errno);
    return;
  }
  std::string bytes;
  char chunk[65536];
  for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;) bytes.append(chunk, n);
  std::fclose(f);
  auto log = record::decode(bytes);
  if (!log) {
    d.broken = d.replayPath + ": " + log.error().message;
    return;
  }
  if (log->rank != d.rank || log->size != d.size) {
    d.broken = d.replayPath + " was recorded as rank " + std::to_string(log->rank) + " of " +
               std::to_string(log->size) + ", this is rank " + std::to_string(d.rank) + " of " +
               std::to_string(d.size);
    return;
  }
  d.replayTotal = log->decisions;
  d.replayComplete = log->complete;
  for (record::Run& r : log->runs) {
    if (r.decision.kind == DecisionKind::IrecvMatch) d.irecvMatches.emplace(r.decision.index, r.decision);
    else d.runs.push_back(std::move(r));
  }
}

/// The name of `comm` for a report: its registry name when attached, else
/// its handle.
std::string commText(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return "MPI_COMM_WORLD";
  if (Runtime* rt = Runtime::attached()) return rt->comms().nameOf(commKey(comm));
  char text[32];
  std::snprintf(text, sizeof text, "0x%" PRIx64, commKey(comm));
  return text;
}

std::string peerText(int rank) { return rank == MPI_ANY_SOURCE ? "MPI_ANY_SOURCE" : std::to_string(rank); }
std::string tagText(int tag) { return tag == MPI_ANY_TAG ? "MPI_ANY_TAG" : std::to_string(tag); }

std::string receiveCall(std::string_view function, int source, int tag, MPI_Comm comm) {
  return std::string(function) + "(source=" + peerText(source) + ", tag=" + tagText(tag) + ", comm=" + commText(comm) +
         ")";
}

std::string requestsCall(std::string_view function, int count) {
  return std::string(function) + "(count=" + std::to_string(count) + ")";
}

/// Replay stops here: reports `why` at `call` (stderr, and a stop event when
/// the debugger is attached, which holds the rank until continued; without
/// one the job is aborted). Replay is off for this rank afterwards: the call
/// runs as the program asked.
void diverge(const std::string& call, const std::string& why) noexcept {
  std::string text;
  try {
    Decisions& d = state();
    {
      std::lock_guard lock(d.mutex);
      if (!d.replaying) return;
      d.replaying = false;
      text = "decision #" + std::to_string(d.replayed + 1) + ": " + why;
      d.diverged = text;
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

/// The next decision replay holds for a call of `kind` (described by
/// `call` for a report), or nothing when the call runs as the program
/// asked: replay off, or diverged here (reported by diverge()).
std::optional<Decision> nextDecision(DecisionKind kind, const std::string& call) noexcept {
  Decisions& d = state();
  std::string why;
  {
    std::lock_guard lock(d.mutex);
    if (!d.replaying) return std::nullopt;
    if (!d.broken.empty()) {
      why = "the record cannot be replayed: " + d.broken;
    } else if (d.run >= d.runs.size()) {
      why = "the program asks for " + std::string(record::functionOf(kind)) + " but the record ends after " +
            std::to_string(d.replayed) + " decisions" +
            (d.replayComplete ? " (the recorded run made no more)" : " (the recorded run was cut short)");
    } else {
      const Decision& next = d.runs[d.run].decision;
      if (next.kind != kind) {
        why = "the program asks for " + std::string(record::functionOf(kind)) + " but the record holds " +
              record::describe(next);
      } else {
        Decision taken = next;
        if (++d.usedInRun == d.runs[d.run].count) {
          ++d.run;
          d.usedInRun = 0;
        }
        ++d.replayed;
        return taken;
      }
    }
  }
  diverge(call, why);
  return std::nullopt;
}

/// The recorded match of wildcard MPI_Irecv number `ordinal`, if the
/// recorded run saw it complete (replaying).
std::optional<Decision> irecvMatch(std::int64_t ordinal) noexcept {
  Decisions& d = state();
  std::lock_guard lock(d.mutex);
  if (!d.replaying || !d.broken.empty()) return std::nullopt;
  auto it = d.irecvMatches.find(ordinal);
  if (it == d.irecvMatches.end()) return std::nullopt;
  ++d.replayed;
  return it->second;
}

Decision match(DecisionKind kind, const MPI_Status& status) {
  Decision d;
  d.kind = kind;
  d.matched = true;
  d.source = status.MPI_SOURCE;
  d.tag = status.MPI_TAG;
  return d;
}

bool isWildcard(int source, int tag) noexcept { return source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG; }

/// The wildcard arguments replaced by a recorded match; false (and a
/// divergence) when a given argument disagrees with the record.
bool applyMatch(const Decision& d, int& source, int& tag, const std::string& call) noexcept {
  if ((source != MPI_ANY_SOURCE && source != d.source) || (tag != MPI_ANY_TAG && tag != d.tag)) {
    diverge(call, "the record holds " + record::describe(d) + ", which this call cannot match");
    return false;
  }
  source = d.source;
  tag = d.tag;
  return true;
}

// ---- Completions of wildcard MPI_Irecv (recording) ----

bool anyPendingIrecv() noexcept {
  if (!recording()) return false;
  Decisions& d = state();
  std::lock_guard lock(d.mutex);
  return !d.pending.empty();
}

/// The request saved as `request` completed with `status`: when it was a
/// pending wildcard receive, its match is recorded.
void irecvCompleted(MPI_Request request, const MPI_Status& status) noexcept {
  if (request == MPI_REQUEST_NULL) return;
  Decisions& d = state();
  std::int64_t ordinal = -1;
  {
    std::lock_guard lock(d.mutex);
    for (std::size_t i = 0; i < d.pending.size(); ++i) {
      if (d.pending[i].request != request) continue;
      ordinal = d.pending[i].ordinal;
      d.pending[i] = d.pending.back();
      d.pending.pop_back();
      break;
    }
  }
  if (ordinal < 0) return;
  int cancelled = 0;
  PMPI_Test_cancelled(&status, &cancelled);
  if (cancelled) return;
  Decision decision = match(DecisionKind::IrecvMatch, status);
  decision.index = ordinal;
  recordDecision(decision);
}

/// The request handles of one MPI_Wait*/MPI_Test* call, saved before PMPI
/// overwrites them, and statuses to use when the program ignores its own
/// (only while a wildcard receive is pending: otherwise nothing is saved and
/// the program's arguments pass through).
class Completions {
 public:
  Completions(const MPI_Request* requests, int count, MPI_Status* statuses, int statusCount) {
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
  /// The status array to pass to PMPI (the program's, or ours).
  MPI_Status* statuses(MPI_Status* program) noexcept { return active_ ? statuses_ : program; }
  /// Request `index` completed with statuses()[statusIndex].
  void completed(int index, int statusIndex) noexcept {
    if (!active_ || index < 0 || index >= static_cast<int>(saved_.size())) return;
    irecvCompleted(saved_[static_cast<std::size_t>(index)], statuses_[statusIndex]);
  }

 private:
  bool active_ = false;
  std::vector<MPI_Request> saved_;
  std::vector<MPI_Status> own_;
  MPI_Status* statuses_ = nullptr;
};

/// Replay: the recorded index `index` of `requests` must name an active
/// request; diverges (false) otherwise.
bool checkIndex(const MPI_Request* requests, int count, std::int64_t index, const Decision& d,
                const std::string& call) noexcept {
  if (index >= 0 && index < count && requests[index] != MPI_REQUEST_NULL) return true;
  diverge(call, "the record holds " + record::describe(d) + ", but that request is " +
                    (index >= 0 && index < count ? std::string("MPI_REQUEST_NULL") : std::string("out of range")));
  return false;
}

/// `count` null requests: a replayed MPI_Test* or MPI_Waitsome calls its
/// plain body on them first, so that its safe point (breakpoints, freeze,
/// step) and call count are the same as in the recorded run; MPI answers at
/// once. Falls back to none (count 0) when out of memory.
struct NullRequests {
  explicit NullRequests(int count) {
    try {
      requests.assign(static_cast<std::size_t>(count > 0 ? count : 0), MPI_REQUEST_NULL);
    } catch (...) {
    }
  }
  int count() const noexcept { return static_cast<int>(requests.size()); }
  MPI_Request* data() noexcept { return requests.empty() ? &none : requests.data(); }
  std::vector<MPI_Request> requests;
  MPI_Request none = MPI_REQUEST_NULL;
};

bool allNull(const MPI_Request* requests, int count) noexcept {
  for (int i = 0; i < count; ++i)
    if (requests[i] != MPI_REQUEST_NULL) return false;
  return true;
}

MPI_Status* statusAt(MPI_Status* statuses, int k) noexcept {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[k];
}

}  // namespace

void startDecisions() noexcept {
  const char* recordDir = std::getenv("MPIDBG_RECORD");
  const char* replayDir = std::getenv("MPIDBG_REPLAY");
  const bool record = recordDir && *recordDir;
  const bool replay = replayDir && *replayDir;
  if (!record && !replay) return;
  try {
    Decisions& d = state();
    std::lock_guard lock(d.mutex);
    PMPI_Comm_rank(MPI_COMM_WORLD, &d.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &d.size);
    if (replay) startReplaying(d, replayDir);
    if (record) startRecording(d, recordDir);
    if (record) {
      installFatalFlush();
      std::atexit([] { finishDecisions(); });
    }
  } catch (...) {
    std::fprintf(stderr, "mpidbg-rt: record/replay could not start (out of memory)\n");
    gDecisions = 0;
  }
}

void finishDecisions() noexcept {
  Decisions& d = state();
  std::lock_guard lock(d.mutex);
  if (d.fd < 0 || d.finished) return;
  try {
    d.encoder->finish();
  } catch (...) {
    d.encoder->sealRun();
  }
  writeOutLocked(d);
  d.finished = true;
  if (d.fd >= 0) ::close(d.fd);
  d.fd = -1;
  __atomic_and_fetch(&gDecisions, ~kRecording, __ATOMIC_RELAXED);
}

ccs::proto::RecordInfo recordInfo(std::int32_t rank) {
  Decisions& d = state();
  std::lock_guard lock(d.mutex);
  ccs::proto::RecordInfo info;
  info.rank = rank;
  info.recording = d.fd >= 0 && !d.finished;
  info.recordPath = d.recordPath;
  info.recorded = d.encoder ? d.encoder->decisions() : 0;
  info.recordBytes = d.bytesWritten + (d.encoder ? d.encoder->pending().size() : 0);
  for (std::size_t k = 1; k < d.byKind.size(); ++k) {
    if (d.byKind[k] == 0) continue;
    if (!info.byKind.empty()) info.byKind += ",";
    info.byKind += std::string(record::functionOf(static_cast<DecisionKind>(k))) + ":" + std::to_string(d.byKind[k]);
  }
  info.replaying = d.replaying;
  info.replayPath = d.replayPath;
  info.replayed = d.replayed;
  info.replayTotal = d.replayTotal;
  info.replayComplete = d.replayComplete;
  info.diverged = !d.diverged.empty() ? d.diverged : d.broken;
  return info;
}

void registerRecordHandler(ccs::Server& server, Runtime& runtime) {
  Runtime* rt = &runtime;
  server.addHandler(std::string(ccs::proto::kRecordHandler),
                    guardedWith(
                        [rt](const ccs::Request&) -> ccs::HandlerResult {
                          const ccs::proto::RecordInfo info = recordInfo(rt->rank());
                          const std::string text =
                              ccs::proto::encode(std::span<const ccs::proto::RecordInfo>(&info, 1));
                          return std::vector<std::uint8_t>(text.begin(), text.end());
                        },
                        [](const std::string& message) -> ccs::HandlerResult { return fail(message); }));
}

namespace decided {

namespace {

/// A blocking receive's decision (MPI_Recv, MPI_Recv_c): `receive(source,
/// tag, status)` is the wrapper's plain receive with the other arguments.
template <typename Receive>
int decidedReceive(const char* function, int source, int tag, MPI_Comm comm, MPI_Status* status,
                   Receive receive) noexcept {
  if (!isWildcard(source, tag)) return receive(source, tag, status);
  if (replaying()) {
    const std::string call = receiveCall(function, source, tag, comm);
    if (auto d = nextDecision(DecisionKind::RecvMatch, call)) applyMatch(*d, source, tag, call);
  }
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = receive(source, tag, st);
  if (rc == MPI_SUCCESS && recording()) recordDecision(match(DecisionKind::RecvMatch, *st));
  return rc;
}

}  // namespace

int recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status,
         RecvFn plain) noexcept {
  return decidedReceive("MPI_Recv", source, tag, comm, status, [&](int s, int t, MPI_Status* st) {
    return plain(buf, count, datatype, s, t, comm, st);
  });
}

#if MPI_VERSION >= 4
int recvC(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status,
          RecvCFn plain) noexcept {
  return decidedReceive("MPI_Recv_c", source, tag, comm, status, [&](int s, int t, MPI_Status* st) {
    return plain(buf, count, datatype, s, t, comm, st);
  });
}
#endif

int sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status,
             SendrecvFn plain) noexcept {
  if (!isWildcard(source, recvtag))
    return plain(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
                 status);
  if (replaying()) {
    const std::string call = receiveCall("MPI_Sendrecv", source, recvtag, comm);
    if (auto d = nextDecision(DecisionKind::RecvMatch, call)) applyMatch(*d, source, recvtag, call);
  }
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc =
      plain(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, st);
  if (rc == MPI_SUCCESS && recording()) recordDecision(match(DecisionKind::RecvMatch, *st));
  return rc;
}

int sendrecvReplace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                    MPI_Comm comm, MPI_Status* status, SendrecvReplaceFn plain) noexcept {
  if (!isWildcard(source, recvtag)) return plain(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
  if (replaying()) {
    const std::string call = receiveCall("MPI_Sendrecv_replace", source, recvtag, comm);
    if (auto d = nextDecision(DecisionKind::RecvMatch, call)) applyMatch(*d, source, recvtag, call);
  }
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = plain(buf, count, datatype, dest, sendtag, source, recvtag, comm, st);
  if (rc == MPI_SUCCESS && recording()) recordDecision(match(DecisionKind::RecvMatch, *st));
  return rc;
}

int probe(int source, int tag, MPI_Comm comm, MPI_Status* status, ProbeFn plain) noexcept {
  if (!isWildcard(source, tag)) return plain(source, tag, comm, status);
  if (replaying()) {
    const std::string call = receiveCall("MPI_Probe", source, tag, comm);
    if (auto d = nextDecision(DecisionKind::ProbeMatch, call)) applyMatch(*d, source, tag, call);
  }
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = plain(source, tag, comm, st);
  if (rc == MPI_SUCCESS && recording()) recordDecision(match(DecisionKind::ProbeMatch, *st));
  return rc;
}

int iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status, IprobeFn plain) noexcept {
  const bool wildcard = isWildcard(source, tag);
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  int rc = MPI_SUCCESS;
  bool decided = false;
  if (replaying()) {
    const std::string call = receiveCall("MPI_Iprobe", source, tag, comm);
    if (auto d = nextDecision(DecisionKind::Iprobe, call)) {
      decided = true;
      if (!d->flag) {
        // The recorded probe found nothing: probe anyway (MPI makes progress
        // inside), and answer no.
        rc = plain(source, tag, comm, flag, st);
        if (flag) *flag = 0;
      } else if (!d->matched || applyMatch(*d, source, tag, call)) {
        // The recorded probe found a message: wait until it is there.
        rc = MPI_Probe(source, tag, comm, st);
        if (flag) *flag = 1;
      } else {
        rc = plain(source, tag, comm, flag, st);
      }
    }
  }
  if (!decided) rc = plain(source, tag, comm, flag, st);
  if (rc == MPI_SUCCESS && recording() && flag) {
    Decision d;
    d.kind = DecisionKind::Iprobe;
    d.flag = *flag != 0;
    if (d.flag && wildcard) {
      d.matched = true;
      d.source = st->MPI_SOURCE;
      d.tag = st->MPI_TAG;
    }
    recordDecision(d);
  }
  return rc;
}

int irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request,
          IrecvFn plain) noexcept {
  if (!isWildcard(source, tag)) return plain(buf, count, datatype, source, tag, comm, request);
  Decisions& state = mpidbg::rt::state();
  std::int64_t ordinal;
  {
    std::lock_guard lock(state.mutex);
    ordinal = state.irecvOrdinal++;
  }
  if (replaying()) {
    const std::string call = receiveCall("MPI_Irecv", source, tag, comm);
    if (auto d = irecvMatch(ordinal)) applyMatch(*d, source, tag, call);
  }
  const int rc = plain(buf, count, datatype, source, tag, comm, request);
  if (rc == MPI_SUCCESS && request && *request != MPI_REQUEST_NULL && recording()) {
    std::lock_guard lock(state.mutex);
    try {
      state.pending.push_back(PendingIrecv{*request, ordinal});
    } catch (...) {
      // Out of memory: this receive's match goes unrecorded.
    }
  }
  return rc;
}

int wait(MPI_Request* request, MPI_Status* status, WaitFn plain) noexcept {
  Completions done(request, 1, status, 1);
  MPI_Status* st = done.statuses(status);
  const int rc = plain(request, st);
  if (rc == MPI_SUCCESS) done.completed(0, 0);
  return rc;
}

int waitall(int count, MPI_Request* requests, MPI_Status* statuses, WaitallFn plain) noexcept {
  Completions done(requests, count, statuses, count);
  MPI_Status* st = done.statuses(statuses);
  const int rc = plain(count, requests, st);
  if (rc == MPI_SUCCESS)
    for (int i = 0; i < count; ++i) done.completed(i, i);
  return rc;
}

int waitany(int count, MPI_Request* requests, int* index, MPI_Status* status, WaitanyFn plain) noexcept {
  if (replaying()) {
    const std::string call = requestsCall("MPI_Waitany", count);
    if (auto d = nextDecision(DecisionKind::Waitany, call)) {
      if (d->index >= 0 && checkIndex(requests, count, d->index, *d, call)) {
        // MPI_Waitany itself (its safe point, its request tracking) over the
        // recorded request alone.
        const int i = static_cast<int>(d->index);
        std::vector<MPI_Request> masked;
        try {
          masked.assign(static_cast<std::size_t>(count), MPI_REQUEST_NULL);
        } catch (...) {
          return MPI_Wait(&requests[i], status);
        }
        masked[static_cast<std::size_t>(i)] = requests[i];
        Completions done(masked.data(), count, status, 1);
        int got = MPI_UNDEFINED;
        const int rc = plain(count, masked.data(), &got, done.statuses(status));
        requests[i] = masked[static_cast<std::size_t>(i)];
        if (rc == MPI_SUCCESS) {
          done.completed(got, 0);
          if (index) *index = got;
          if (recording()) recordDecision(*d);
        }
        return rc;
      }
      if (d->index < 0 && !allNull(requests, count))
        diverge(call, "the record holds " + record::describe(*d) + ", but a request is active");
    }
  }
  Completions done(requests, count, status, 1);
  MPI_Status* st = done.statuses(status);
  const int rc = plain(count, requests, index, st);
  if (rc == MPI_SUCCESS && index) {
    done.completed(*index, 0);
    if (recording()) {
      Decision d;
      d.kind = DecisionKind::Waitany;
      d.index = *index == MPI_UNDEFINED ? -1 : *index;
      recordDecision(d);
    }
  }
  return rc;
}

namespace {

/// Replays Waitsome/Testsome `d`: waits for each recorded index in order.
/// Returns true with `rc` set when it did; false when the call must run as
/// the program asked (replay off or diverged).
bool replaySome(const Decision& d, int count, MPI_Request* requests, int* outcount, int* indices,
                MPI_Status* statuses, const std::string& call, int& rc) noexcept {
  if (d.someUndefined) {
    if (!allNull(requests, count)) {
      diverge(call, "the record holds " + record::describe(d) + ", but a request is active");
      return false;
    }
    if (outcount) *outcount = MPI_UNDEFINED;
    rc = MPI_SUCCESS;
    return true;
  }
  for (std::int32_t i : d.indices)
    if (!checkIndex(requests, count, i, d, call)) return false;
  rc = MPI_SUCCESS;
  int k = 0;
  for (std::int32_t i : d.indices) {
    rc = MPI_Wait(&requests[i], statusAt(statuses, k));
    if (rc != MPI_SUCCESS) break;
    if (indices) indices[k] = i;
    ++k;
  }
  if (outcount) *outcount = k;
  if (rc == MPI_SUCCESS && recording()) recordDecision(d);
  return true;
}

Decision someDecision(DecisionKind kind, const int* outcount, const int* indices) {
  Decision d;
  d.kind = kind;
  if (*outcount == MPI_UNDEFINED) {
    d.someUndefined = true;
  } else {
    for (int k = 0; k < *outcount; ++k) d.indices.push_back(indices[k]);
  }
  return d;
}

}  // namespace

namespace {

/// MPI_Waitsome and MPI_Testsome (the same signature): replays the recorded
/// index list (after passing the call's safe point on null requests), or
/// runs `plain` and records what it completed.
int some(DecisionKind kind, int count, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses,
         WaitsomeFn plain) noexcept {
  if (replaying()) {
    const std::string call = requestsCall(record::functionOf(kind), count);
    if (auto d = nextDecision(kind, call)) {
      NullRequests nulls(count);
      int out = 0;
      plain(nulls.count(), nulls.data(), &out, indices, MPI_STATUSES_IGNORE);
      int rc = MPI_SUCCESS;
      if (kind == DecisionKind::Waitsome && !d->someUndefined && d->indices.empty())
        diverge(call, "the record holds MPI_Waitsome with no index");
      else if (replaySome(*d, count, requests, outcount, indices, statuses, call, rc))
        return rc;
    }
  }
  Completions done(requests, count, statuses, count);
  MPI_Status* st = done.statuses(statuses);
  const int rc = plain(count, requests, outcount, indices, st);
  if (rc == MPI_SUCCESS && outcount && indices) {
    if (*outcount != MPI_UNDEFINED)
      for (int k = 0; k < *outcount; ++k) done.completed(indices[k], k);
    if (recording()) {
      try {
        recordDecision(someDecision(kind, outcount, indices));
      } catch (...) {
        // Out of memory: this decision goes unrecorded; replay reports where.
      }
    }
  }
  return rc;
}

}  // namespace

int waitsome(int count, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses,
             WaitsomeFn plain) noexcept {
  return some(DecisionKind::Waitsome, count, requests, outcount, indices, statuses, plain);
}

int test(MPI_Request* request, int* flag, MPI_Status* status, TestFn plain) noexcept {
  if (replaying()) {
    if (auto d = nextDecision(DecisionKind::Test, requestsCall("MPI_Test", 1))) {
      int rc = MPI_SUCCESS;
      int done = 0;
      if (d->flag) {
        // Completed in the recorded run: it will here (MPI_Wait when the
        // test itself does not find it complete).
        Completions completion(request, 1, status, 1);
        rc = plain(request, &done, completion.statuses(status));
        if (rc == MPI_SUCCESS && done) completion.completed(0, 0);
        if (rc == MPI_SUCCESS && !done) rc = MPI_Wait(request, status);
      } else {
        // Not completed then: not now either (the test runs on a null
        // request for its safe point).
        MPI_Request none = MPI_REQUEST_NULL;
        plain(&none, &done, MPI_STATUS_IGNORE);
      }
      if (flag) *flag = d->flag ? 1 : 0;
      if (rc == MPI_SUCCESS && recording()) recordDecision(*d);
      return rc;
    }
  }
  Completions done(request, 1, status, 1);
  MPI_Status* st = done.statuses(status);
  const int rc = plain(request, flag, st);
  if (rc == MPI_SUCCESS && flag) {
    if (*flag) done.completed(0, 0);
    if (recording()) {
      Decision d;
      d.kind = DecisionKind::Test;
      d.flag = *flag != 0;
      recordDecision(d);
    }
  }
  return rc;
}

int testall(int count, MPI_Request* requests, int* flag, MPI_Status* statuses, TestallFn plain) noexcept {
  if (replaying()) {
    if (auto d = nextDecision(DecisionKind::Testall, requestsCall("MPI_Testall", count))) {
      int rc = MPI_SUCCESS;
      NullRequests nulls(count);
      int done = 0;
      plain(nulls.count(), nulls.data(), &done, MPI_STATUSES_IGNORE);  // the safe point
      if (d->flag) rc = MPI_Waitall(count, requests, statuses);
      if (flag) *flag = d->flag ? 1 : 0;
      if (rc == MPI_SUCCESS && recording()) recordDecision(*d);
      return rc;
    }
  }
  Completions done(requests, count, statuses, count);
  MPI_Status* st = done.statuses(statuses);
  const int rc = plain(count, requests, flag, st);
  if (rc == MPI_SUCCESS && flag) {
    if (*flag)
      for (int i = 0; i < count; ++i) done.completed(i, i);
    if (recording()) {
      Decision d;
      d.kind = DecisionKind::Testall;
      d.flag = *flag != 0;
      recordDecision(d);
    }
  }
  return rc;
}

int testany(int count, MPI_Request* requests, int* index, int* flag, MPI_Status* status, TestanyFn plain) noexcept {
  if (replaying()) {
    const std::string call = requestsCall("MPI_Testany", count);
    if (auto d = nextDecision(DecisionKind::Testany, call)) {
      {
        NullRequests nulls(count);
        int i = MPI_UNDEFINED, done = 0;
        plain(nulls.count(), nulls.data(), &i, &done, MPI_STATUS_IGNORE);  // the safe point
      }
      if (!d->flag) {
        if (flag) *flag = 0;
        if (index) *index = MPI_UNDEFINED;
        if (recording()) recordDecision(*d);
        return MPI_SUCCESS;
      }
      if (d->index >= 0 && checkIndex(requests, count, d->index, *d, call)) {
        const int i = static_cast<int>(d->index);
        const int rc = MPI_Wait(&requests[i], status);
        if (rc == MPI_SUCCESS) {
          if (index) *index = i;
          if (flag) *flag = 1;
          if (recording()) recordDecision(*d);
        }
        return rc;
      }
      if (d->index < 0 && !allNull(requests, count))
        diverge(call, "the record holds " + record::describe(*d) + ", but a request is active");
    }
  }
  Completions done(requests, count, status, 1);
  MPI_Status* st = done.statuses(status);
  const int rc = plain(count, requests, index, flag, st);
  if (rc == MPI_SUCCESS && flag && index) {
    if (*flag) done.completed(*index, 0);
    if (recording()) {
      Decision d;
      d.kind = DecisionKind::Testany;
      d.flag = *flag != 0;
      d.index = *flag && *index != MPI_UNDEFINED ? *index : -1;
      recordDecision(d);
    }
  }
  return rc;
}

int testsome(int count, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses,
             TestsomeFn plain) noexcept {
  return some(DecisionKind::Testsome, count, requests, outcount, indices, statuses, plain);
}

void requestFreed(MPI_Request request) noexcept {
  if (request == MPI_REQUEST_NULL || !recording()) return;
  Decisions& d = state();
  std::lock_guard lock(d.mutex);
  for (std::size_t i = 0; i < d.pending.size(); ++i) {
    if (d.pending[i].request != request) continue;
    d.pending[i] = d.pending.back();
    d.pending.pop_back();
    return;
  }
}

}  // namespace decided

}  // namespace mpidbg::rt
