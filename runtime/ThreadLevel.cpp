// MPI thread-level compliance checks (ThreadLevel.hpp): the slow path's
// checks at call entry and exit, the violation reports, and the
// mpidbg/threadlevel handler.
#include "ThreadLevel.hpp"

#include <mpi.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <atomic>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "CallScope.hpp"
#include "Control.hpp"
#include "TypedHandler.hpp"
#include "Runtime.hpp"
#include "StackCapture.hpp"
#include "ccs/transport/Server.hpp"

namespace mpidbg::rt {

std::uintptr_t gThreadGate = kThreadGateClosed;
std::uintptr_t gFastGate = kThreadGateClosed;

void refreshFastGate() noexcept {
  auto allowed = [] {
    const std::uintptr_t thread = __atomic_load_n(&gThreadGate, __ATOMIC_SEQ_CST);
    const bool open = thread != kThreadGateClosed && __atomic_load_n(&gFastRuntime, __ATOMIC_SEQ_CST) != nullptr &&
                      __atomic_load_n(&mpidbg_rt_armed, __ATOMIC_SEQ_CST) == 0;
    return open ? thread : kThreadGateClosed;
  };
  const std::uintptr_t thread = allowed();
  __atomic_store_n(&gFastGate, thread, __ATOMIC_SEQ_CST);
  if (thread != kThreadGateClosed && allowed() != thread)
    __atomic_store_n(&gFastGate, kThreadGateClosed, __ATOMIC_SEQ_CST);
}

namespace {

namespace proto = ccs::proto;

std::uintptr_t gInitThread = 0;  ///< thread pointer of the MPI_Init thread
int gInitTid = 0;
int gRequested = MPI_THREAD_SINGLE;
int gProvided = MPI_THREAD_SINGLE;
std::atomic<bool> gFinalized{false};
/// Threads counted inside MPI by the slow path.
std::atomic<int> gInside{0};
/// Below MULTIPLE: the tid of the slow-path thread that entered while nobody
/// else was inside (0: the record's owner, if any, is the MPI_Init thread).
std::atomic<int> gInsideTid{0};
std::atomic<int> gRequired{MPI_THREAD_SINGLE};
std::atomic<std::uint64_t> gViolations{0};
__thread int tTid __attribute__((tls_model("initial-exec"))) = 0;

/// MULTIPLE: the blocking collectives in progress, by communicator.
struct CollSlot {
  std::uint64_t comm = 0;  ///< 0 = free
  int tid = 0;
  MpiFunction function = MpiFunction::None;
};
std::mutex gSlotMutex;
std::array<CollSlot, 64> gCollSlots{};

std::mutex gReportedMutex;
std::set<std::string> gReported;  ///< "kind|function|other function"

int myTid() noexcept {
  if (tTid == 0) tTid = static_cast<int>(::gettid());
  return tTid;
}

void raiseRequired(int level) noexcept {
  int seen = gRequired.load(std::memory_order_relaxed);
  while (seen < level && !gRequired.compare_exchange_weak(seen, level, std::memory_order_relaxed)) {
  }
}

/// "thread 4312 (worker)": the kernel tid and /proc/self/task/TID/comm.
std::string describeThread(int tid) {
  std::string name;
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/comm");
  std::getline(in, name);
  return "thread " + std::to_string(tid) + (name.empty() ? std::string() : " (" + name + ")");
}

/// "MPI_Reduce(comm=MPI_COMM_WORLD)", "MPI_Wait()".
std::string describeCall(Runtime& rt, MpiFunction function, std::uint64_t comm) {
  return std::string(functionName(function)) + "(" + (comm != 0 ? "comm=" + rt.comms().nameOf(comm) : "") + ")";
}

bool isBlockingCollective(MpiFunction f) noexcept {
  const auto v = static_cast<int>(f);
  return v >= static_cast<int>(MpiFunction::Barrier) && v <= static_cast<int>(MpiFunction::Scatterv);
}

/// The stacks of the calling thread and of `otherTid` (0: none) for a
/// violation event (StackCapture::captureSelfAnd), encoded; "" when capture
/// is unavailable.
std::string violationStacks(Runtime& rt, int otherTid) {
  StackCapture& capture = StackCapture::instance();
  capture.attach(rt.rank(), Control::instance().freezeSignal());
  std::vector<std::int32_t> others;
  if (otherTid != 0 && otherTid != myTid()) others.push_back(otherTid);
  return proto::encode(capture.captureSelfAnd(rt.rank(), others));
}

/// One violation: sends the event the first time its key is seen (with the
/// stacks of the calling thread and of `otherTid`, the other thread
/// involved, 0 for none), then lets Control stop the thread when `break
/// violation` is set. `stacks` false: none (the calling thread is not where
/// the violation happened).
void report(Runtime& rt, const std::string& key, const std::string& text, const std::string& where,
            int needed, int otherTid = 0, bool stacks = true) noexcept {
  gViolations.fetch_add(1, std::memory_order_relaxed);
  try {
    bool fresh = false;
    {
      std::lock_guard lock(gReportedMutex);
      fresh = gReported.insert(key).second;
    }
    if (fresh) {
      proto::Event event;
      event.kind = proto::Event::Kind::Violation;
      event.code = needed;
      event.where = where;
      event.text = text;
      try {
        if (stacks) event.stacks = violationStacks(rt, otherTid);
      } catch (...) {
        // The report goes without stacks.
      }
      rt.events().send(rt.rank(), event);
    }
    Control::instance().violation(rt, text);
  } catch (...) {
    // Out of memory while reporting: the program runs on.
  }
}

/// MULTIPLE: claims the communicator for this thread's blocking collective;
/// returns the slot of another thread already in one on it, else nullopt
/// (`claimed` says whether a free slot was taken).
std::optional<CollSlot> claimComm(std::uint64_t comm, MpiFunction function, bool& claimed) noexcept {
  std::lock_guard lock(gSlotMutex);
  CollSlot* free = nullptr;
  for (CollSlot& s : gCollSlots) {
    if (s.comm == comm) return s;
    if (s.comm == 0 && !free) free = &s;
  }
  if (free) *free = {comm, myTid(), function};
  claimed = free != nullptr;
  return std::nullopt;
}

void releaseComm() noexcept {
  std::lock_guard lock(gSlotMutex);
  for (CollSlot& s : gCollSlots)
    if (s.comm != 0 && s.tid == myTid()) s = {};
}

void checkEntry(Runtime& rt, MpiFunction function, std::uint64_t comm, bool collective, std::uint8_t& token) {
  const std::string level = proto::threadLevelName(gProvided);
  if (gFinalized.load(std::memory_order_acquire)) {
    const std::string where = describeCall(rt, function, comm);
    report(rt, "finalized|" + std::string(functionName(function)),
           "MPI lifecycle violated: " + describeThread(myTid()) + " called " + where + " after MPI_Finalize", where,
           -1);
    return;
  }
  const bool foreign = threadPointer() != gInitThread;
  if (gProvided >= MPI_THREAD_MULTIPLE) {
    if (gInside.load(std::memory_order_acquire) > 0) raiseRequired(MPI_THREAD_MULTIPLE);
    else if (foreign) raiseRequired(MPI_THREAD_SERIALIZED);
    if (!collective) return;
    bool claimed = false;
    const auto other = claimComm(comm, function, claimed);
    if (claimed) token |= kThreadCommSlot;
    if (!other) return;
    raiseRequired(proto::kThreadLevelDistinctComms);
    const std::string where = describeCall(rt, function, comm);
    report(rt, "samecomm|" + std::string(functionName(function)) + "|" + std::string(functionName(other->function)),
           level + " violated: " + describeThread(myTid()) + " entered " + where + " while " +
               describeThread(other->tid) + " was in " + describeCall(rt, other->function, other->comm) +
               "; needs " + proto::threadLevelName(proto::kThreadLevelDistinctComms),
           where, proto::kThreadLevelDistinctComms, other->tid);
    return;
  }
  // Below MULTIPLE: another thread inside the slow path, or the MPI_Init
  // thread inside the fast path (its published call record).
  const bool inside = gInside.load(std::memory_order_acquire) > 0;
  std::optional<MpiCallRecord> otherCall = rt.currentCall().read();
  if (inside || otherCall) {
    token |= kThreadSkipRecord;
    const int insideTid = gInsideTid.load(std::memory_order_acquire);
    const int otherTid = insideTid != 0 ? insideTid : gInitTid;
    if (otherTid == myTid()) return;  // our own stale record: nobody else is inside
    const bool sameComm = collective && otherCall && isBlockingCollective(otherCall->function) &&
                          otherCall->comm == comm;
    const int needed = sameComm ? proto::kThreadLevelDistinctComms : MPI_THREAD_MULTIPLE;
    raiseRequired(needed);
    const std::string where = describeCall(rt, function, comm);
    const std::string otherWhere = otherCall ? describeCall(rt, otherCall->function, otherCall->comm) : "an MPI call";
    report(rt,
           "concurrent|" + std::string(functionName(function)) + "|" +
               std::string(otherCall ? functionName(otherCall->function) : ""),
           level + " violated: " + describeThread(myTid()) + " entered " + where + " while " +
               describeThread(otherTid) + " was in " + otherWhere + "; needs " + proto::threadLevelName(needed),
           where, needed, otherTid);
    return;
  }
  if (!foreign) return;
  raiseRequired(MPI_THREAD_SERIALIZED);
  if (gProvided >= MPI_THREAD_SERIALIZED) return;
  const std::string where = describeCall(rt, function, comm);
  report(rt, "thread|" + std::string(functionName(function)),
         level + " violated: " + describeThread(myTid()) + " called " + where + ", but MPI was initialized by " +
             describeThread(gInitTid) + "; needs " + proto::threadLevelName(MPI_THREAD_SERIALIZED),
         where, MPI_THREAD_SERIALIZED, gInitTid);
}

}  // namespace

void noteMpiInit(int requested, int provided) noexcept {
  gRequested = requested;
  gProvided = provided;
  gInitThread = threadPointer();
  gInitTid = myTid();
  if (provided < MPI_THREAD_MULTIPLE) __atomic_store_n(&gThreadGate, gInitThread, __ATOMIC_SEQ_CST);
  refreshFastGate();
}

bool gMpiInitEntered = false;

namespace {

/// Calls seen before MPI_Init, once per function (noteCallBeforeInit).
std::mutex gBeforeInitMutex;
std::vector<std::pair<MpiFunction, int>> gBeforeInit;  ///< function, tid

std::string beforeInitText(MpiFunction function, int tid) {
  return "MPI lifecycle violated: " + describeThread(tid) + " called " + std::string(functionName(function)) +
         " before MPI_Init";
}

}  // namespace

void noteCallBeforeInit(MpiFunction function) noexcept {
  try {
    const int tid = myTid();
    {
      std::lock_guard lock(gBeforeInitMutex);
      for (const auto& [f, t] : gBeforeInit)
        if (f == function) return;
      gBeforeInit.emplace_back(function, tid);
    }
    std::fprintf(stderr, "mpidbg-rt: %s\n", beforeInitText(function, tid).c_str());
  } catch (...) {
    // Out of memory before MPI_Init: nothing to report with.
  }
}

void reportCallsBeforeInit(Runtime& rt) noexcept {
  std::vector<std::pair<MpiFunction, int>> calls;
  {
    std::lock_guard lock(gBeforeInitMutex);
    calls.swap(gBeforeInit);
  }
  for (const auto& [function, tid] : calls) {
    try {
      report(rt, "before-init|" + std::string(functionName(function)), beforeInitText(function, tid),
             std::string(functionName(function)), -1, 0, false);
    } catch (...) {
    }
  }
}

void noteMpiFinalized() noexcept {
  gFinalized.store(true, std::memory_order_release);
  __atomic_store_n(&gThreadGate, kThreadGateClosed, __ATOMIC_SEQ_CST);
  __atomic_store_n(&gFastGate, kThreadGateClosed, __ATOMIC_SEQ_CST);
}

std::uint8_t threadEnter(Runtime& rt, MpiFunction function, std::uint64_t comm, bool collective) noexcept {
  std::uint8_t token = kThreadCounted;
  try {
    checkEntry(rt, function, comm, collective, token);
  } catch (...) {
    // Formatting failed (out of memory): the call goes on unchecked.
  }
  if (gInside.fetch_add(1, std::memory_order_acq_rel) == 0 && gProvided < MPI_THREAD_MULTIPLE &&
      !(token & kThreadSkipRecord))
    gInsideTid.store(myTid(), std::memory_order_release);
  __atomic_store_n(&gThreadGate, kThreadGateClosed, __ATOMIC_RELAXED);
  __atomic_store_n(&gFastGate, kThreadGateClosed, __ATOMIC_RELAXED);
  return token;
}

void threadLeave(std::uint8_t token) noexcept {
  if (!(token & kThreadCounted)) return;
  if (gProvided >= MPI_THREAD_MULTIPLE) {
    if (token & kThreadCommSlot) releaseComm();
    gInside.fetch_sub(1, std::memory_order_acq_rel);
    return;
  }
  int mine = myTid();
  gInsideTid.compare_exchange_strong(mine, 0, std::memory_order_acq_rel);
  if (gInside.fetch_sub(1, std::memory_order_acq_rel) != 1 || gFinalized.load(std::memory_order_acquire)) return;
  __atomic_store_n(&gThreadGate, gInitThread, __ATOMIC_SEQ_CST);
  // Someone entered meanwhile, or MPI_Finalize returned: close it again.
  if (gInside.load(std::memory_order_acquire) != 0 || gFinalized.load(std::memory_order_acquire))
    __atomic_store_n(&gThreadGate, kThreadGateClosed, __ATOMIC_SEQ_CST);
  refreshFastGate();
}

proto::ThreadLevelInfo threadLevelInfo(std::int32_t rank) noexcept {
  proto::ThreadLevelInfo info;
  info.rank = rank;
  info.requested = gRequested;
  info.provided = gProvided;
  info.required = gRequired.load(std::memory_order_relaxed);
  info.violations = gViolations.load(std::memory_order_relaxed);
  return info;
}

void registerThreadLevelHandler(ccs::Server& server, Runtime& runtime) {
  Runtime* rt = &runtime;
  on<proto::NoData, proto::ThreadLevelInfo>(server, proto::kThreadLevelHandler,
                                            [rt](const proto::NoData&) { return threadLevelInfo(rt->rank()); });
}

}  // namespace mpidbg::rt
