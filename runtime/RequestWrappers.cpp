// Nonblocking and persistent point-to-point calls, MPI_Start*, 
// MPI_Request_free and the MPI_Test family. Each wrapper publishes the call
// like the blocking ones (CallScope) and keeps the pending-operation table
// in step (RequestTracking.hpp): an operation is recorded when issued (a
// persistent one inactive), activated by MPI_Start*, WAITED while an
// MPI_Test* names it, and removed (persistent: made inactive) when one
// reports it complete. The MPI_Wait family is in P2pWrappers.cpp.
#include <mpi.h>

#include "MessageLedger.hpp"
#include "Record.hpp"
#include "RequestTracking.hpp"

using mpidbg::rt::CallScope;
using mpidbg::rt::MpiFunction;
using mpidbg::rt::notePoll;
using mpidbg::rt::PeerRole;
using mpidbg::rt::PointToPoint;
using mpidbg::rt::WaitedOps;
using mpidbg::rt::WaitScope;

namespace {

/// One nonblocking or persistent send/receive: publishes the call, runs
/// `issue` (the PMPI call) and records its request when it succeeded. The
/// operation's description is built only then.
template <typename Issue>
int pointToPoint(MpiFunction function, std::uint32_t kind, std::uint32_t flags, const void* buf, int count,
                 MPI_Datatype datatype, int peer, int tag, MPI_Comm comm, MPI_Request* request, Issue issue) {
  CallScope scope(function, comm, kind == MPIDBG_OP_RECV ? PeerRole::Source : PeerRole::Dest, peer, true, tag, count);
  const int rc = issue();
  if (scope.outermost() && rc == MPI_SUCCESS && request)
    recordPointToPoint(*scope.runtime(), PointToPoint{function, kind, flags, buf, count, datatype, peer, tag, comm},
                       *request);
  return rc;
}

constexpr std::uint32_t kSend = MPIDBG_OP_SEND;
constexpr std::uint32_t kRecv = MPIDBG_OP_RECV;
constexpr std::uint32_t kPersistent = MPIDBG_OP_PERSISTENT;
constexpr std::uint32_t kSynchronous = MPIDBG_OP_SYNCHRONOUS;

/// MPI_Start* succeeded on `requests`: their operations are active again.
void started(mpidbg::rt::Runtime& rt, const MPI_Request* requests, int count) noexcept {
  if (rt.ops().empty()) return;
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    mpidbg::rt::OpRecord* op = rt.ops().find(mpidbg::rt::handleKey(requests[i]));
    if (!op) continue;
    if (op->kind.load(std::memory_order_relaxed) == MPIDBG_OP_COLLECTIVE)
      mpidbg::rt::startPersistentCollective(rt, *op);
    else
      rt.ops().start(*op, rt.mpiCalls());
  }
}

}  // namespace

MPIDBG_EXPORT int MPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                            MPI_Request* request) {
  return pointToPoint(MpiFunction::Isend, kSend, 0, buf, count, datatype, dest, tag, comm, request,
                      [&] { return PMPI_Isend(buf, count, datatype, dest, tag, comm, request); });
}

MPIDBG_EXPORT int MPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                             MPI_Request* request) {
  return pointToPoint(MpiFunction::Issend, kSend, kSynchronous, buf, count, datatype, dest, tag, comm, request,
                      [&] { return PMPI_Issend(buf, count, datatype, dest, tag, comm, request); });
}

MPIDBG_EXPORT int MPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                             MPI_Request* request) {
  return pointToPoint(MpiFunction::Ibsend, kSend, 0, buf, count, datatype, dest, tag, comm, request,
                      [&] { return PMPI_Ibsend(buf, count, datatype, dest, tag, comm, request); });
}

MPIDBG_EXPORT int MPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                             MPI_Request* request) {
  return pointToPoint(MpiFunction::Irsend, kSend, 0, buf, count, datatype, dest, tag, comm, request,
                      [&] { return PMPI_Irsend(buf, count, datatype, dest, tag, comm, request); });
}

namespace {

int MPI_Irecv_slow(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return pointToPoint(MpiFunction::Irecv, kRecv, 0, buf, count, datatype, source, tag, comm, request,
                      [&] { return PMPI_Irecv(buf, count, datatype, source, tag, comm, request); });
}

}  // namespace

MPIDBG_EXPORT int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                            MPI_Request* request) {
  if (mpidbg::rt::decisionsOn())
    return mpidbg::rt::decided::irecv(buf, count, datatype, source, tag, comm, request, MPI_Irecv_slow);
  return MPI_Irecv_slow(buf, count, datatype, source, tag, comm, request);
}

MPIDBG_EXPORT int MPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                                MPI_Request* request) {
  return pointToPoint(MpiFunction::SendInit, kSend, kPersistent, buf, count, datatype, dest, tag, comm, request,
                      [&] { return PMPI_Send_init(buf, count, datatype, dest, tag, comm, request); });
}

MPIDBG_EXPORT int MPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                                 MPI_Request* request) {
  return pointToPoint(MpiFunction::SsendInit, kSend, kPersistent | kSynchronous, buf, count, datatype, dest, tag, comm, request,
                      [&] { return PMPI_Ssend_init(buf, count, datatype, dest, tag, comm, request); });
}

MPIDBG_EXPORT int MPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                                 MPI_Request* request) {
  return pointToPoint(MpiFunction::BsendInit, kSend, kPersistent, buf, count, datatype, dest, tag, comm, request,
                      [&] { return PMPI_Bsend_init(buf, count, datatype, dest, tag, comm, request); });
}

MPIDBG_EXPORT int MPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                                 MPI_Request* request) {
  return pointToPoint(MpiFunction::RsendInit, kSend, kPersistent, buf, count, datatype, dest, tag, comm, request,
                      [&] { return PMPI_Rsend_init(buf, count, datatype, dest, tag, comm, request); });
}

MPIDBG_EXPORT int MPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                                MPI_Request* request) {
  return pointToPoint(MpiFunction::RecvInit, kRecv, kPersistent, buf, count, datatype, source, tag, comm, request,
                      [&] { return PMPI_Recv_init(buf, count, datatype, source, tag, comm, request); });
}

MPIDBG_EXPORT int MPI_Start(MPI_Request* request) {
  CallScope scope(MpiFunction::Start, MPI_COMM_NULL);
  const int rc = PMPI_Start(request);
  if (scope.outermost() && rc == MPI_SUCCESS && request) started(*scope.runtime(), request, 1);
  return rc;
}

MPIDBG_EXPORT int MPI_Startall(int count, MPI_Request array_of_requests[]) {
  CallScope scope(MpiFunction::Startall, MPI_COMM_NULL, PeerRole::None, 0, false, 0, count);
  const int rc = PMPI_Startall(count, array_of_requests);
  if (scope.outermost() && rc == MPI_SUCCESS && array_of_requests)
    started(*scope.runtime(), array_of_requests, count);
  return rc;
}

MPIDBG_EXPORT int MPI_Request_free(MPI_Request* request) {
  const MPI_Request freed = request ? *request : MPI_REQUEST_NULL;
  if (mpidbg::rt::decisionsOn()) mpidbg::rt::decided::requestFreed(freed);
  CallScope scope(MpiFunction::RequestFree, MPI_COMM_NULL);
  const int rc = PMPI_Request_free(request);
  mpidbg::rt::Runtime* rt = scope.runtime();
  if (scope.outermost() && rc == MPI_SUCCESS && freed != MPI_REQUEST_NULL && !rt->ops().empty()) {
    const std::uint64_t key = mpidbg::rt::handleKey(freed);
    if (mpidbg::rt::OpRecord* op = rt->ops().find(key)) {
      // A freed collective still completes, unseen: count its exit now. So
      // may an active receive: the ledger must not claim what it takes was
      // never received.
      const std::uint32_t kind = op->kind.load(std::memory_order_relaxed);
      if (kind == MPIDBG_OP_COLLECTIVE) rt->ops().complete(*op, key);
      if (kind == MPIDBG_OP_RECV && (op->flags.load(std::memory_order_relaxed) & MPIDBG_OP_ACTIVE) &&
          op->peer.load(std::memory_order_relaxed) != -2)
        mpidbg::rt::gMessages.unattributed(op->comm.load(std::memory_order_relaxed),
                                           op->tag.load(std::memory_order_relaxed));
      rt->ops().remove(*op, key);
    }
  }
  return rc;
}

namespace {

int MPI_Test_slow(MPI_Request* request, int* flag, MPI_Status* status) {
  WaitScope scope(MpiFunction::Test, request, 1);
  const std::int64_t entry = mpidbg::rt::callClockNow();
  WaitedOps ops(scope.tracking(), request, 1);
  const int rc = PMPI_Test(request, flag, status);
  if (rc == MPI_SUCCESS && flag && *flag) ops.completed(0);
  notePoll(scope.outermostRuntime(), MpiFunction::Test, request, 1, entry,
           rc != MPI_SUCCESS || !flag || *flag);
  return rc;
}

int MPI_Testall_slow(int count, MPI_Request array_of_requests[], int* flag, MPI_Status array_of_statuses[]) {
  WaitScope scope(MpiFunction::Testall, array_of_requests, count);
  const std::int64_t entry = mpidbg::rt::callClockNow();
  WaitedOps ops(scope.tracking(), array_of_requests, count);
  const int rc = PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
  if (rc == MPI_SUCCESS && flag && *flag) ops.completedAll();
  notePoll(scope.outermostRuntime(), MpiFunction::Testall, array_of_requests, count, entry,
           rc != MPI_SUCCESS || !flag || *flag);
  return rc;
}

int MPI_Testany_slow(int count, MPI_Request array_of_requests[], int* indx, int* flag, MPI_Status* status) {
  WaitScope scope(MpiFunction::Testany, array_of_requests, count);
  const std::int64_t entry = mpidbg::rt::callClockNow();
  WaitedOps ops(scope.tracking(), array_of_requests, count);
  const int rc = PMPI_Testany(count, array_of_requests, indx, flag, status);
  if (rc == MPI_SUCCESS && flag && *flag && indx) ops.completed(*indx);
  notePoll(scope.outermostRuntime(), MpiFunction::Testany, array_of_requests, count, entry,
           rc != MPI_SUCCESS || !flag || *flag);
  return rc;
}

int MPI_Testsome_slow(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                  MPI_Status array_of_statuses[]) {
  WaitScope scope(MpiFunction::Testsome, array_of_requests, incount);
  const std::int64_t entry = mpidbg::rt::callClockNow();
  WaitedOps ops(scope.tracking(), array_of_requests, incount);
  const int rc = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
  if (rc == MPI_SUCCESS && outcount && *outcount != MPI_UNDEFINED && array_of_indices)
    for (int k = 0; k < *outcount; ++k) ops.completed(array_of_indices[k]);
  // MPI_UNDEFINED: no active request left, which ends a streak like a completion.
  notePoll(scope.outermostRuntime(), MpiFunction::Testsome, array_of_requests, incount, entry,
           rc != MPI_SUCCESS || !outcount || *outcount != 0);
  return rc;
}

}  // namespace

MPIDBG_EXPORT int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  if (mpidbg::rt::decisionsOn()) return mpidbg::rt::decided::test(request, flag, status, MPI_Test_slow);
  return MPI_Test_slow(request, flag, status);
}

MPIDBG_EXPORT int MPI_Testall(int count, MPI_Request array_of_requests[], int* flag, MPI_Status array_of_statuses[]) {
  if (mpidbg::rt::decisionsOn())
    return mpidbg::rt::decided::testall(count, array_of_requests, flag, array_of_statuses, MPI_Testall_slow);
  return MPI_Testall_slow(count, array_of_requests, flag, array_of_statuses);
}

MPIDBG_EXPORT int MPI_Testany(int count, MPI_Request array_of_requests[], int* indx, int* flag, MPI_Status* status) {
  if (mpidbg::rt::decisionsOn())
    return mpidbg::rt::decided::testany(count, array_of_requests, indx, flag, status, MPI_Testany_slow);
  return MPI_Testany_slow(count, array_of_requests, indx, flag, status);
}

MPIDBG_EXPORT int MPI_Testsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                               MPI_Status array_of_statuses[]) {
  if (mpidbg::rt::decisionsOn())
    return mpidbg::rt::decided::testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses,
                                         MPI_Testsome_slow);
  return MPI_Testsome_slow(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

#if MPI_VERSION >= 4
// MPI-4's nonblocking send-receive (MPICH 4; Open MPI 4.1 has none). Each is
// recorded as its receive half: the wait-for graph then lacks the send's
// wait for its destination (a rendezvous send), and never gains an edge that
// is not there.
MPIDBG_EXPORT int MPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                                MPI_Comm comm, MPI_Request* request) {
  return pointToPoint(MpiFunction::Isendrecv, kRecv, 0, recvbuf, recvcount, recvtype, source, recvtag, comm, request,
                      [&] {
                        return PMPI_Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                                              recvtype, source, recvtag, comm, request);
                      });
}

MPIDBG_EXPORT int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                        int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return pointToPoint(MpiFunction::IsendrecvReplace, kRecv, 0, buf, count, datatype, source, recvtag, comm, request,
                      [&] {
                        return PMPI_Isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                                      request);
                      });
}

// MPI-4's large-count nonblocking and persistent point-to-point forms, as
// their int forms (the recorded count is -1 past INT_MAX). MPI_Irecv_c's
// wildcard matches are not recorded for replay.
#define MPIDBG_ISEND_C_WRAPPER(NAME, FUNCTION, FLAGS)                                                         \
  MPIDBG_EXPORT int NAME(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,          \
                         MPI_Comm comm, MPI_Request* request) {                                                 \
    return pointToPoint(FUNCTION, kSend, FLAGS, buf, mpidbg::rt::smallCount(count), datatype, dest, tag, comm, \
                        request, [&] { return P##NAME(buf, count, datatype, dest, tag, comm, request); });      \
  }

MPIDBG_ISEND_C_WRAPPER(MPI_Isend_c, MpiFunction::IsendC, 0)
MPIDBG_ISEND_C_WRAPPER(MPI_Issend_c, MpiFunction::IssendC, kSynchronous)
MPIDBG_ISEND_C_WRAPPER(MPI_Ibsend_c, MpiFunction::IbsendC, 0)
MPIDBG_ISEND_C_WRAPPER(MPI_Irsend_c, MpiFunction::IrsendC, 0)
MPIDBG_ISEND_C_WRAPPER(MPI_Send_init_c, MpiFunction::SendInitC, kPersistent)
MPIDBG_ISEND_C_WRAPPER(MPI_Ssend_init_c, MpiFunction::SsendInitC, kPersistent | kSynchronous)
MPIDBG_ISEND_C_WRAPPER(MPI_Bsend_init_c, MpiFunction::BsendInitC, kPersistent)
MPIDBG_ISEND_C_WRAPPER(MPI_Rsend_init_c, MpiFunction::RsendInitC, kPersistent)

MPIDBG_EXPORT int MPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                              MPI_Request* request) {
  return pointToPoint(MpiFunction::IrecvC, kRecv, 0, buf, mpidbg::rt::smallCount(count), datatype, source, tag, comm,
                      request, [&] { return PMPI_Irecv_c(buf, count, datatype, source, tag, comm, request); });
}

MPIDBG_EXPORT int MPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                                  MPI_Comm comm, MPI_Request* request) {
  return pointToPoint(MpiFunction::RecvInitC, kRecv, kPersistent, buf, mpidbg::rt::smallCount(count), datatype,
                      source, tag, comm, request,
                      [&] { return PMPI_Recv_init_c(buf, count, datatype, source, tag, comm, request); });
}

MPIDBG_EXPORT int MPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                               MPI_Request* request) {
  CallScope scope(MpiFunction::ImrecvC, MPI_COMM_NULL, PeerRole::None, 0, false, 0, mpidbg::rt::smallCount(count));
  return PMPI_Imrecv_c(buf, count, datatype, message, request);
}

MPIDBG_EXPORT int MPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                                  int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                                  int recvtag, MPI_Comm comm, MPI_Request* request) {
  return pointToPoint(MpiFunction::IsendrecvC, kRecv, 0, recvbuf, mpidbg::rt::smallCount(recvcount), recvtype, source,
                      recvtag, comm, request, [&] {
                        return PMPI_Isendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                                                recvtype, source, recvtag, comm, request);
                      });
}

MPIDBG_EXPORT int MPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                                          int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return pointToPoint(MpiFunction::IsendrecvReplaceC, kRecv, 0, buf, mpidbg::rt::smallCount(count), datatype, source,
                      recvtag, comm, request, [&] {
                        return PMPI_Isendrecv_replace_c(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                                        request);
                      });
}
#endif
