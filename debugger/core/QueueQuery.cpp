// Debugger::queueStates and addCulpritFrames: what `queues` and `hang` read.
#include <signal.h>

#include <fstream>
#include <thread>

#include "ccs/proto/QueueProtocol.hpp"
#include "debugger/core/Backtrace.hpp"
#include "debugger/core/Debugger.hpp"
#include "debugger/core/mqs/QueueReader.hpp"
#include "debugger/core/mqs/QueueSources.hpp"

namespace mpidbg::core {

namespace proto = ccs::proto;

namespace {

/// True once /proc/PID/stat shows the process stopped ('T' or 't').
bool isStopped(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  const std::size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() &&
         (line[paren + 2] == 'T' || line[paren + 2] == 't');
}

/// Lists every rank of `ranks` that `input` says nothing about as unreadable.
void markMissing(HangInput& input, const RankSet& ranks, const Job& job) {
  for (int r : ranks) {
    bool known = input.ended.count(r) || input.unreadable.count(r);
    for (const auto& q : input.ranks) known = known || q.worldRank == r;
    if (!known) input.unreadable[r] = job.rank(r) ? "no answer" : "not registered";
  }
}

/// Stops processes with SIGSTOP and continues them when destroyed.
class StopGuard {
 public:
  void stop(pid_t pid) {
    if (::kill(pid, SIGSTOP) == 0) stopped_.push_back(pid);
  }
  /// Waits (at most `timeout`) until every stopped process shows as stopped.
  void settle(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (pid_t pid : stopped_)
      while (!isStopped(pid) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~StopGuard() {
    for (pid_t pid : stopped_) ::kill(pid, SIGCONT);
  }

 private:
  std::vector<pid_t> stopped_;
};

}  // namespace

HangInput Debugger::queueStates(const RankSet& wanted) {
  HangInput input;
  input.worldSize = session_.job().size();
  const RankSet ranks = wanted.empty() ? RankSet::all(session_.job().size()) : wanted;
  session_.refreshProcesses();
  const RankSort sorted = session_.router().sort(ranks);
  RankSet reachable;
  for (const auto& info : sorted.reachable) reachable.insert(info.rank);
  // The ranks whose runtime cannot answer are read otherwise: ended ones say
  // how they ended, held ones are read from memory, ones without a runtime
  // through the mqs DLL or their stack frames.
  for (const auto& [rank, reach] : sorted.refused) {
    if (reach == RankReach::NotRegistered) continue;  // markMissing lists them
    const RankInfo& info = sorted.infos.at(rank);
    if (reach == RankReach::Ended) {
      input.ended[rank] = info.describeEnd();
      continue;
    }
    auto q = reach == RankReach::HeldByGdb ? readHeldRank(info) : readProcessRank(info);
    if (q) input.ranks.push_back(std::move(*q));
    else input.unreadable[rank] = (reach == RankReach::HeldByGdb ? std::string(RankRouter::kHeldByGdb) + "; " : "") +
                                  q.error().message;
  }
  if (!reachable.empty()) {
    auto [text, missing] = collect(reachable, proto::kQueuesHandler);
    auto decoded = proto::decodeRankQueuesList(text);
    if (!decoded) {
      for (int r : reachable) input.unreadable[r] = "bad mpidbg/queues reply: " + decoded.error().message;
    } else {
      for (auto& q : *decoded)
        if (reachable.contains(q.worldRank)) input.ranks.push_back(std::move(q));
    }
    for (const auto& [rank, why] : missing) input.unreadable[rank] = why;
  }
  markMissing(input, ranks, session_.job());
  return input;
}


HangInput Debugger::queueStatesFromMemory(const RankSet& wanted) {
  HangInput input;
  input.worldSize = session_.job().size();
  const RankSet ranks = wanted.empty() ? RankSet::all(session_.job().size()) : wanted;
  // Every live rank is read, whether its runtime could answer or not; those
  // gdb holds are stopped already, the others are stopped for the read.
  const RankSort sorted = session_.router().sort(ranks);
  std::vector<RankInfo> targets = sorted.reachable;
  StopGuard guard;
  for (const auto& info : targets) guard.stop(info.pid);
  for (const auto& [rank, reach] : sorted.refused) {
    if (reach == RankReach::NotRegistered) continue;  // markMissing lists them
    const RankInfo& info = sorted.infos.at(rank);
    if (reach == RankReach::Ended) {
      input.ended[rank] = info.describeEnd();
      continue;
    }
    if (reach != RankReach::HeldByGdb) guard.stop(info.pid);
    targets.push_back(info);
  }
  guard.settle(std::chrono::milliseconds(2000));
  for (const auto& info : targets) {
    auto q = mqs::readLiveRank(info.rank, info.pid, mqsDll_);
    if (q) input.ranks.push_back(std::move(*q));
    else input.unreadable[info.rank] = q.error().message;
  }
  markMissing(input, ranks, session_.job());
  return input;
}

std::vector<std::string> Debugger::heldFrames(int rank, int depth) {
  auto out = session_.gdb().run(RankSet::range(rank, rank), "bt -no-filters " + std::to_string(depth));
  if (auto it = out.find(rank); it != out.end() && it->second) return parseBacktrace(*it->second);
  return {};
}

Expected<proto::RankQueues> Debugger::readHeldRank(const RankInfo& info) {
  // gdb keeps the process stopped: its memory holds still while the DLL reads.
  auto q = mqs::readLiveRank(info.rank, info.pid, mqsDll_);
  if (!q || !mqs::collectivesFromFrames(*q) || q->call) return q;
  // A DLL without collective state (Open MPI's, MPICH's): the collective the
  // rank is in, if any, comes from its stack frames, which gdb has.
  q->frames = heldFrames(info.rank, 16);
  if (const auto coll = mqs::inferCollectiveFromFrames(q->frames)) {
    proto::MpiCall call;
    call.function = std::string(proto::collName(*coll));
    q->call = std::move(call);
  }
  return q;
}

Expected<proto::RankQueues> Debugger::readProcessRank(const RankInfo& info) {
  if (!isThisHost(info.host)) return fail("runs on " + info.host + ", out of reach without its runtime");
  std::string dllWhy;
  {
    // The MPI's own DLL, with the rank stopped so its queues hold still.
    StopGuard guard;
    guard.stop(info.pid);
    guard.settle(std::chrono::milliseconds(2000));
    auto q = mqs::readLiveRank(info.rank, info.pid, mqsDll_);
    if (q && (!mqs::collectivesFromFrames(*q) || q->call)) return q;
    if (!q) dllWhy = q.error().message;
  }
  // No DLL (MPICH names none) or one without collective state: the call the
  // rank is in, from its frames.
  auto frames = oneShotBacktrace(session_.gdb().gdbPath, info.pid, 24, std::chrono::seconds(30));
  if (!frames) return fail(frames.error().message + (dllWhy.empty() ? "" : "; " + dllWhy));
  proto::RankQueues q;
  q.worldRank = info.rank;
  q.source = "gdb (no runtime" + (dllWhy.empty() ? std::string() : ", no message queues") + ")" +
             std::string(mqs::kCollectivesFromFrames);
  q.frames = std::move(*frames);
  if (const auto coll = mqs::inferCollectiveFromFrames(q.frames)) {
    proto::MpiCall call;
    call.function = std::string(proto::collName(*coll));
    q.call = std::move(call);
  } else {
    // The outermost MPI entry among the frames (MPI_Recv above its PMPI_ and
    // internal frames).
    for (const std::string& text : q.frames) {
      const GdbFrame frame = splitFrame(text);  // f points into it
      std::string_view f = frame.function;
      if (f.starts_with("PMPI_")) f.remove_prefix(1);
      if (!f.starts_with("MPI_")) continue;
      proto::MpiCall call;
      call.function = std::string(f);
      q.call = std::move(call);
    }
  }
  if (q.call && q.call->function == "MPI_Finalize") q.phase = proto::MpiPhase::Finalizing;
  return q;
}

void Debugger::addCulpritFrames(HangInput& input, int depth, std::size_t limit) {
  const HangVerdict first = analyzeHang(input);
  std::size_t done = 0;
  for (auto& q : input.ranks) {
    if (done >= limit) break;
    if (!first.culprits.count(q.worldRank) || !q.frames.empty() || !q.error.empty()) continue;
    const auto info = session_.job().rank(q.worldRank);
    if (!info) continue;
    const RankReach reach = RankRouter::reachOf(*info);
    if (reach == RankReach::Ended) continue;
    ++done;
    if (reach == RankReach::HeldByGdb) {
      q.frames = heldFrames(q.worldRank, depth);
      continue;
    }
    auto frames = oneShotBacktrace(session_.gdb().gdbPath, info->pid, depth, std::chrono::seconds(20));
    if (frames) q.frames = std::move(*frames);
  }
}

}  // namespace mpidbg::core
