// Blocking point-to-point calls and the MPI_Wait family. Each wrapper
// publishes the call with the peer it waits on (dest for sends, source for
// receives and probes, the source for MPI_Sendrecv*) and calls PMPI. The
// blocking ones also count the message in the rank's MessageLedger (a send
// or a receive naming its source and tag on entry, a wildcard receive by the
// message it matched) and do nothing else (the fast path); the MPI_Wait
// family also publishes its request array and marks and completes the
// recorded operations (RequestTracking.hpp). Calls that take a matching
// decision go through record/replay first when it is on (Record.hpp).
#include <mpi.h>

#include <climits>

#include "MessageLedger.hpp"
#include "Record.hpp"
#include "RequestTracking.hpp"

using mpidbg::rt::CallScope;
using mpidbg::rt::MpiFunction;
using mpidbg::rt::PeerRole;
using mpidbg::rt::WaitedOps;
using mpidbg::rt::WaitScope;

namespace {

/// Counts a message `function` sends when the call is the outermost one
/// (an MPI library's own calls through the MPI symbols are not counted).
[[gnu::always_inline]] inline void countSent(MPI_Comm comm, int dest, int tag, MpiFunction function) noexcept {
  if (mpidbg::rt::tCalls.depth == 0)
    mpidbg::rt::gMessages.sent(mpidbg::rt::commKey(comm), dest, tag, function, &mpidbg::rt::tCalls.lastMessage);
}

/// Counts a receive naming its `source` and `tag` on entry (outermost calls).
[[gnu::always_inline]] inline void countReceived(MPI_Comm comm, int source, int tag) noexcept {
  if (mpidbg::rt::tCalls.depth == 0)
    mpidbg::rt::gMessages.received(mpidbg::rt::commKey(comm), source, tag, &mpidbg::rt::tCalls.lastMessage);
}

/// Counts the message `status` says a receive or matched probe took, when
/// that call was the outermost (`outermost`, known before its scope began).
void countMatched(bool outermost, MPI_Comm comm, const MPI_Status& status) noexcept {
  if (outermost)
    mpidbg::rt::gMessages.received(mpidbg::rt::commKey(comm), status.MPI_SOURCE, status.MPI_TAG,
                                   &mpidbg::rt::tCalls.lastMessage);
}

/// A receive that names no single envelope (MPI_ANY_SOURCE, MPI_ANY_TAG or
/// MPI_PROC_NULL): `receive(status)` with a status of ours when the program
/// ignores it, then the message it matched counted (countMatched).
template <typename Receive>
int receiveCounted(MPI_Comm comm, MPI_Status* status, Receive receive) {
  const bool outermost = mpidbg::rt::tCalls.depth == 0;
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = receive(st);
  if (rc == MPI_SUCCESS) countMatched(outermost, comm, *st);
  return rc;
}

/// The counting of one MPI_Sendrecv*: its send on entry, its receive as
/// receiveCounted or countReceived count one, around `call(status)`.
template <typename Call>
int sendReceiveCounted(MPI_Comm comm, int dest, int sendtag, int source, int recvtag, MpiFunction function,
                       MPI_Status* status, Call call) {
  countSent(comm, dest, sendtag, function);
  if ((source | recvtag) < 0) return receiveCounted(comm, status, call);
  countReceived(comm, source, recvtag);
  return call(status);
}

}  // namespace

// Sends and receives: the fast path (CallScope.hpp fastEnter), with the
// ordinary CallScope as the slow path.
#define MPIDBG_SEND_WRAPPER(NAME, FUNCTION)                                                            \
  MPIDBG_P2P_WRAPPER(NAME, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm), \
                     (buf, count, datatype, dest, tag, comm),                                                   \
                     mpidbg::rt::gMessages.sentCached(mpidbg::rt::tCalls.lastMessage, mpidbg::rt::commKey(comm),  \
                                                      dest, tag),                                                \
                     countSent(comm, dest, tag, FUNCTION), FUNCTION, comm, PeerRole::Dest, dest, tag,            \
                     FUNCTION, comm, PeerRole::Dest, dest, true, tag, count)

MPIDBG_SEND_WRAPPER(MPI_Send, MpiFunction::Send)
MPIDBG_SEND_WRAPPER(MPI_Ssend, MpiFunction::Ssend)
MPIDBG_SEND_WRAPPER(MPI_Bsend, MpiFunction::Bsend)
MPIDBG_SEND_WRAPPER(MPI_Rsend, MpiFunction::Rsend)

namespace {

[[gnu::noinline]] int MPI_Recv_slow(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                               MPI_Status* status) {
  CallScope scope(MpiFunction::Recv, comm, PeerRole::Source, source, true, tag, count);
  return MPIDBG_PMPI_OR_IDLE(MPI_Recv, (buf, count, datatype, source, tag, comm, status));
}

/// MPI_Recv as the program asked for it: the fast path, else MPI_Recv_slow.
/// Counts nothing (a wildcard receive is counted by what it matched).
[[gnu::always_inline]] inline int recvPlain(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                                            MPI_Comm comm, MPI_Status* status) {
  if (!mpidbg::rt::fastEnter(MpiFunction::Recv, comm, PeerRole::Source, source, tag)) [[unlikely]]
    return MPI_Recv_slow(buf, count, datatype, source, tag, comm, status);
  const int rc = PMPI_Recv(buf, count, datatype, source, tag, comm, status);
  mpidbg::rt::fastLeave();
  return rc;
}

/// A receive naming its source and tag, counted on entry, then as MPI_Recv_slow.
[[gnu::noinline]] int recvCountedSlow(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                                      MPI_Comm comm, MPI_Status* status) {
  countReceived(comm, source, tag);
  return MPI_Recv_slow(buf, count, datatype, source, tag, comm, status);
}

/// MPI_Recv naming its source and tag, counted on entry: the fast path
/// when the thread's ledger cache has the key, else recvCountedSlow.
[[gnu::always_inline]] inline int recvCounted(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                                              MPI_Comm comm, MPI_Status* status) {
  if (!mpidbg::rt::fastEnter(MpiFunction::Recv, comm, PeerRole::Source, source, tag, [&] {
        return mpidbg::rt::gMessages.receivedCached(mpidbg::rt::tCalls.lastMessage, mpidbg::rt::commKey(comm), source,
                                                    tag);
      })) [[unlikely]]
    return recvCountedSlow(buf, count, datatype, source, tag, comm, status);
  const int rc = PMPI_Recv(buf, count, datatype, source, tag, comm, status);
  mpidbg::rt::fastLeave();
  return rc;
}

/// A receive `function` on `comm` from `source` for `tag` naming no single
/// envelope (MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_PROC_NULL): `receive(status)`
/// counted by receiveCounted, then, for MPI_ANY_SOURCE, which sender it
/// matched, into the rank's WildcardLog (the hang verdict's "an earlier
/// wildcard took this sender's message").
template <typename Receive>
int receiveWildcard(const char* function, int source, int tag, MPI_Comm comm, MPI_Status* status, Receive receive) {
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = receiveCounted(comm, st, receive);
  if (rc == MPI_SUCCESS && source == MPI_ANY_SOURCE)
    if (mpidbg::rt::Runtime* rt = mpidbg::rt::Runtime::attached())
      rt->wildcards().note(function, mpidbg::rt::commKey(comm), tag == MPI_ANY_TAG ? -1 : tag, st->MPI_SOURCE,
                           st->MPI_TAG, rt->mpiCalls());
  return rc;
}

[[gnu::noinline]] int recvWildcard(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                                   MPI_Status* status) {
  return receiveWildcard("MPI_Recv", source, tag, comm, status, [&](MPI_Status* st) {
    if (mpidbg::rt::decisionsOn())
      return mpidbg::rt::decided::recv(buf, count, datatype, source, tag, comm, st, MPI_Recv_slow);
    return recvPlain(buf, count, datatype, source, tag, comm, st);
  });
}

int MPI_Sendrecv_slow(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  CallScope scope(MpiFunction::Sendrecv, comm, PeerRole::Source, source, true, recvtag, sendcount, dest);
  return MPIDBG_PMPI_OR_IDLE(MPI_Sendrecv, (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                                           recvtype, source, recvtag, comm, status));
}

int MPI_Sendrecv_replace_slow(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status* status) {
  CallScope scope(MpiFunction::SendrecvReplace, comm, PeerRole::Source, source, true, recvtag, count, dest);
  return MPIDBG_PMPI_OR_IDLE(MPI_Sendrecv_replace, (buf, count, datatype, dest, sendtag, source, recvtag, comm, status));
}

int MPI_Probe_slow(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  CallScope scope(MpiFunction::Probe, comm, PeerRole::Source, source, true, tag);
  return mpidbg::rt::gIdleWait ? mpidbg::rt::idle::probe(source, tag, comm, status)
                                : PMPI_Probe(source, tag, comm, status);
}

/// MPI_Iprobe itself, for record/replay's decision (the scope is the
/// caller's: replay may probe with MPI_Probe inside it).
int MPI_Iprobe_slow(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return PMPI_Iprobe(source, tag, comm, flag, status);
}

int MPI_Wait_slow(MPI_Request* request, MPI_Status* status) {
  WaitScope scope(MpiFunction::Wait, request, 1);
  WaitedOps ops(scope.tracking(), request, 1);
  const int rc = mpidbg::rt::gIdleWait ? mpidbg::rt::idle::wait(request, status) : PMPI_Wait(request, status);
  if (rc == MPI_SUCCESS) ops.completed(0);
  return rc;
}

int MPI_Waitall_slow(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  WaitScope scope(MpiFunction::Waitall, array_of_requests, count);
  WaitedOps ops(scope.tracking(), array_of_requests, count);
  const int rc = mpidbg::rt::gIdleWait ? mpidbg::rt::idle::waitall(count, array_of_requests, array_of_statuses)
                                       : PMPI_Waitall(count, array_of_requests, array_of_statuses);
  if (rc == MPI_SUCCESS) ops.completedAll();
  return rc;
}

int MPI_Waitany_slow(int count, MPI_Request array_of_requests[], int* indx, MPI_Status* status) {
  WaitScope scope(MpiFunction::Waitany, array_of_requests, count);
  WaitedOps ops(scope.tracking(), array_of_requests, count);
  const int rc = mpidbg::rt::gIdleWait ? mpidbg::rt::idle::waitany(count, array_of_requests, indx, status)
                                       : PMPI_Waitany(count, array_of_requests, indx, status);
  if (rc == MPI_SUCCESS && indx) ops.completed(*indx);
  return rc;
}

int MPI_Waitsome_slow(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                  MPI_Status array_of_statuses[]) {
  WaitScope scope(MpiFunction::Waitsome, array_of_requests, incount);
  WaitedOps ops(scope.tracking(), array_of_requests, incount);
  const int rc =
      mpidbg::rt::gIdleWait
          ? mpidbg::rt::idle::waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses)
          : PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
  if (rc == MPI_SUCCESS && outcount && *outcount != MPI_UNDEFINED && array_of_indices)
    for (int k = 0; k < *outcount; ++k) ops.completed(array_of_indices[k]);
  return rc;
}

}  // namespace

// Every call below that can take a matching decision first checks whether
// record or replay is on (Record.hpp decisionsOn: one load) and then takes
// the deciding path around the plain body. The plain bodies are named
// MPI_*_slow like MPIDBG_P2P_WRAPPER's: a wrapper tail-calls them, and merged
// stack trees show such a frame as the MPI call (StackQuery.cpp).

MPIDBG_EXPORT int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                           MPI_Status* status) {
  if ((source | tag) < 0) [[unlikely]]
    return recvWildcard(buf, count, datatype, source, tag, comm, status);
  if (mpidbg::rt::decisionsOn()) [[unlikely]] {
    countReceived(comm, source, tag);
    return mpidbg::rt::decided::recv(buf, count, datatype, source, tag, comm, status, MPI_Recv_slow);
  }
  return recvCounted(buf, count, datatype, source, tag, comm, status);
}

MPIDBG_EXPORT int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                               MPI_Comm comm, MPI_Status* status) {
  auto call = [&](MPI_Status* st) {
    if (mpidbg::rt::decisionsOn())
      return mpidbg::rt::decided::sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                                           source, recvtag, comm, st, MPI_Sendrecv_slow);
    return MPI_Sendrecv_slow(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                             recvtag, comm, st);
  };
  return sendReceiveCounted(comm, dest, sendtag, source, recvtag, MpiFunction::Sendrecv, status, call);
}

MPIDBG_EXPORT int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                       int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  auto call = [&](MPI_Status* st) {
    if (mpidbg::rt::decisionsOn())
      return mpidbg::rt::decided::sendrecvReplace(buf, count, datatype, dest, sendtag, source, recvtag, comm, st,
                                                  MPI_Sendrecv_replace_slow);
    return MPI_Sendrecv_replace_slow(buf, count, datatype, dest, sendtag, source, recvtag, comm, st);
  };
  return sendReceiveCounted(comm, dest, sendtag, source, recvtag, MpiFunction::SendrecvReplace, status, call);
}

MPIDBG_EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  if (mpidbg::rt::decisionsOn()) return mpidbg::rt::decided::probe(source, tag, comm, status, MPI_Probe_slow);
  return MPI_Probe_slow(source, tag, comm, status);
}

/// A call like the others (a breakpoint target, in status), a decision for
/// record/replay (its flag), and a test whose repetition is polling
/// (PollWatch).
MPIDBG_EXPORT int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  CallScope scope(MpiFunction::Iprobe, comm, PeerRole::Source, source, true, tag);
  const std::int64_t entry = mpidbg::rt::callClockNow();
  const int rc = mpidbg::rt::decisionsOn()
                     ? mpidbg::rt::decided::iprobe(source, tag, comm, flag, status, MPI_Iprobe_slow)
                     : PMPI_Iprobe(source, tag, comm, flag, status);
  mpidbg::rt::noteProbePoll(scope.outermost() ? scope.runtime() : nullptr, MpiFunction::Iprobe, source, tag, comm,
                            entry, rc != MPI_SUCCESS || !flag || *flag);
  return rc;
}

// Matched probes and receives (MPI-3). MPI_Mprobe waits like MPI_Probe;
// MPI_Improbe is polled like MPI_Iprobe; MPI_Mrecv and MPI_Imrecv receive a
// message already matched, from no peer a wait could name. Their matching
// decisions are not recorded (record/replay: docs/commands.md).
// A matched probe takes its message out of matching: the ledger counts it
// received there (MPI_Mrecv names no envelope).
MPIDBG_EXPORT int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  return receiveCounted(comm, status, [&](MPI_Status* st) {
    CallScope scope(MpiFunction::Mprobe, comm, PeerRole::Source, source, true, tag);
    return PMPI_Mprobe(source, tag, comm, message, st);
  });
}

MPIDBG_EXPORT int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                              MPI_Status* status) {
  CallScope scope(MpiFunction::Improbe, comm, PeerRole::Source, source, true, tag);
  const std::int64_t entry = mpidbg::rt::callClockNow();
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Improbe(source, tag, comm, flag, message, st);
  if (rc == MPI_SUCCESS && flag && *flag) countMatched(scope.outermost(), comm, *st);
  mpidbg::rt::noteProbePoll(scope.outermost() ? scope.runtime() : nullptr, MpiFunction::Improbe, source, tag, comm,
                            entry, rc != MPI_SUCCESS || !flag || *flag);
  return rc;
}

MPIDBG_EXPORT int MPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
  CallScope scope(MpiFunction::Mrecv, MPI_COMM_NULL, PeerRole::None, 0, false, 0, count);
  return PMPI_Mrecv(buf, count, datatype, message, status);
}

MPIDBG_EXPORT int MPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                             MPI_Request* request) {
  CallScope scope(MpiFunction::Imrecv, MPI_COMM_NULL, PeerRole::None, 0, false, 0, count);
  return PMPI_Imrecv(buf, count, datatype, message, request);
}

MPIDBG_EXPORT int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  if (mpidbg::rt::decisionsOn()) return mpidbg::rt::decided::wait(request, status, MPI_Wait_slow);
  return MPI_Wait_slow(request, status);
}

MPIDBG_EXPORT int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  if (mpidbg::rt::decisionsOn())
    return mpidbg::rt::decided::waitall(count, array_of_requests, array_of_statuses, MPI_Waitall_slow);
  return MPI_Waitall_slow(count, array_of_requests, array_of_statuses);
}

MPIDBG_EXPORT int MPI_Waitany(int count, MPI_Request array_of_requests[], int* indx, MPI_Status* status) {
  if (mpidbg::rt::decisionsOn())
    return mpidbg::rt::decided::waitany(count, array_of_requests, indx, status, MPI_Waitany_slow);
  return MPI_Waitany_slow(count, array_of_requests, indx, status);
}

MPIDBG_EXPORT int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int* outcount,
                               int array_of_indices[], MPI_Status array_of_statuses[]) {
  if (mpidbg::rt::decisionsOn())
    return mpidbg::rt::decided::waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses,
                                         MPI_Waitsome_slow);
  return MPI_Waitsome_slow(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

#if MPI_VERSION >= 4
// MPI-4's large-count forms (MPICH 4): published and decided as their int
// forms; the count a condition sees is -1 past INT_MAX. No fast path and no
// idle wait (runtime/IdleWait.hpp covers the int forms).
namespace {

int MPI_Recv_c_slow(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                    MPI_Status* status) {
  CallScope scope(MpiFunction::RecvC, comm, PeerRole::Source, source, true, tag, mpidbg::rt::smallCount(count));
  return PMPI_Recv_c(buf, count, datatype, source, tag, comm, status);
}

}  // namespace

#define MPIDBG_SEND_C_WRAPPER(NAME, FUNCTION)                                                                    \
  MPIDBG_EXPORT int NAME(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,           \
                         MPI_Comm comm) {                                                                        \
    countSent(comm, dest, tag, FUNCTION);                                                                        \
    CallScope scope(FUNCTION, comm, PeerRole::Dest, dest, true, tag, mpidbg::rt::smallCount(count));                     \
    return P##NAME(buf, count, datatype, dest, tag, comm);                                                       \
  }

MPIDBG_SEND_C_WRAPPER(MPI_Send_c, MpiFunction::SendC)
MPIDBG_SEND_C_WRAPPER(MPI_Ssend_c, MpiFunction::SsendC)
MPIDBG_SEND_C_WRAPPER(MPI_Bsend_c, MpiFunction::BsendC)
MPIDBG_SEND_C_WRAPPER(MPI_Rsend_c, MpiFunction::RsendC)

MPIDBG_EXPORT int MPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                             MPI_Status* status) {
  auto call = [&](MPI_Status* st) {
    if (mpidbg::rt::decisionsOn())
      return mpidbg::rt::decided::recvC(buf, count, datatype, source, tag, comm, st, MPI_Recv_c_slow);
    return MPI_Recv_c_slow(buf, count, datatype, source, tag, comm, st);
  };
  if ((source | tag) < 0) return receiveWildcard("MPI_Recv_c", source, tag, comm, status, call);
  countReceived(comm, source, tag);
  return call(status);
}

// MPI_Sendrecv_c and MPI_Sendrecv_replace_c as their int forms, without
// record/replay (their wildcard matches are not recorded), and MPI_Mrecv_c
// as MPI_Mrecv.
MPIDBG_EXPORT int MPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                                 int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                                 int recvtag, MPI_Comm comm, MPI_Status* status) {
  auto call = [&](MPI_Status* st) {
    CallScope scope(MpiFunction::SendrecvC, comm, PeerRole::Source, source, true, recvtag,
                    mpidbg::rt::smallCount(sendcount), dest);
    return PMPI_Sendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                           recvtag, comm, st);
  };
  return sendReceiveCounted(comm, dest, sendtag, source, recvtag, MpiFunction::SendrecvC, status, call);
}

MPIDBG_EXPORT int MPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                                         int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  auto call = [&](MPI_Status* st) {
    CallScope scope(MpiFunction::SendrecvReplaceC, comm, PeerRole::Source, source, true, recvtag,
                    mpidbg::rt::smallCount(count), dest);
    return PMPI_Sendrecv_replace_c(buf, count, datatype, dest, sendtag, source, recvtag, comm, st);
  };
  return sendReceiveCounted(comm, dest, sendtag, source, recvtag, MpiFunction::SendrecvReplaceC, status, call);
}

MPIDBG_EXPORT int MPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                              MPI_Status* status) {
  CallScope scope(MpiFunction::MrecvC, MPI_COMM_NULL, PeerRole::None, 0, false, 0, mpidbg::rt::smallCount(count));
  return PMPI_Mrecv_c(buf, count, datatype, message, status);
}
#endif
