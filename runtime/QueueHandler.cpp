// The mpidbg/queues reply of one rank (see QueueHandler.hpp).
#include "QueueHandler.hpp"

#include "mpidbg/MpiFunctions.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>

#include "ControlHandlers.hpp"
#include "MessageLedger.hpp"
#include "Handlers.hpp"
#include "RequestTracking.hpp"
#include "Runtime.hpp"

namespace mpidbg::rt {

namespace {

namespace proto = ccs::proto;

/// Most request handles copied out of a Wait/Test argument array.
constexpr std::int32_t kMaxWaited = 65536;

/// The blocking point-to-point call `call` as a pending operation, or
/// std::nullopt for any other call.
std::optional<proto::PendingOp> blockingOp(const MpiCallRecord& call) {
  proto::PendingOp op;
  const BlockingRole role = blockingRoleOf(functionName(call.function));
  switch (role) {
    case BlockingRole::Send:
    case BlockingRole::SyncSend: op.kind = proto::PendingOp::Kind::Send; break;
    // MPI_Sendrecv* waits for its receive; the record keeps only the source.
    case BlockingRole::Recv: op.kind = proto::PendingOp::Kind::Recv; break;
    case BlockingRole::No: return std::nullopt;
  }
  op.function = std::string(functionName(call.function));
  op.blocking = true;
  op.active = true;
  op.synchronous = role == BlockingRole::SyncSend;
  op.comm = call.comm;
  op.peer = call.peer;
  op.tag = call.hasTag ? call.tag : -1;
  return op;
}

/// The request handles (MPI_REQUEST_NULL left out) of the Wait/Test call
/// whose array `waited` describes, copied with process_vm_readv on this
/// process: the array belongs to the application and may be gone by now, and
/// a failed copy is an error code instead of a crash. When the copy fails or
/// the call has moved on, the operations marked WAITED stand in.
std::vector<std::uint64_t> waitedHandles(Runtime& rt, const WaitedRequests& waited,
                                         const std::vector<proto::PendingOp>& ops) {
  std::vector<std::uint64_t> out;
  if (waited.count <= 0 || waited.address == 0) return out;
  const auto n = static_cast<std::size_t>(std::min(waited.count, kMaxWaited));
  std::vector<MPI_Request> copy(n);
  iovec local{copy.data(), n * sizeof(MPI_Request)};
  iovec remote{reinterpret_cast<void*>(static_cast<std::uintptr_t>(waited.address)), n * sizeof(MPI_Request)};
  const ssize_t got = ::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0);
  if (got == static_cast<ssize_t>(local.iov_len) && rt.currentCall().unchangedSince(waited.version)) {
    for (MPI_Request r : copy)
      if (r != MPI_REQUEST_NULL) out.push_back(handleKey(r));
    return out;
  }
  for (const proto::PendingOp& op : ops)
    if (op.waited) out.push_back(op.request);
  return out;
}

}  // namespace

proto::RankQueues queuesOf(Runtime& rt) {
  proto::RankQueues q;
  q.worldRank = rt.rank();
  const std::uint32_t phase = stateRoot().phase.load(std::memory_order_acquire);
  q.phase = static_cast<proto::MpiPhase>(std::min<std::uint32_t>(phase, MPIDBG_PHASE_FINALIZED));
  q.source = "ccs";
  q.held = stopTextOf(rt);

  WaitedRequests waited;
  const std::optional<MpiCallRecord> call = rt.currentCall().read(&waited);
  std::vector<std::uint64_t> polled;
  q.call = observedCall(rt, call, &polled);
  std::vector<proto::PendingOp> ops = rt.ops().snapshot();
  if (call) q.waitingOn = waitedHandles(rt, waited, ops);
  else q.waitingOn = std::move(polled);

  q.comms = rt.comms().queueSnapshot();
  std::sort(q.comms.begin(), q.comms.end(),
            [](const proto::CommQueues& a, const proto::CommQueues& b) { return a.state.handle < b.state.handle; });
  for (proto::CommQueues& c : q.comms) c.state.worldRank = rt.rank();
  // An operation on a communicator the registry lost (freed meanwhile, or
  // the registry full) still shows, under a communicator of unknown size.
  auto commOf = [&](std::uint64_t handle) -> proto::CommQueues& {
    for (proto::CommQueues& c : q.comms)
      if (c.state.handle == handle) return c;
    proto::CommQueues c;
    c.state.handle = handle;
    c.state.rootWorldRank = -1;
    c.state.localRank = -1;
    c.state.worldRank = rt.rank();
    c.state.name = rt.comms().nameOf(handle);
    q.comms.push_back(std::move(c));
    return q.comms.back();
  };
  auto place = [&](proto::PendingOp op) {
    proto::CommQueues& c = commOf(op.comm);
    switch (op.kind) {
      case proto::PendingOp::Kind::Send: c.sends.push_back(std::move(op)); break;
      case proto::PendingOp::Kind::Recv: c.recvs.push_back(std::move(op)); break;
      case proto::PendingOp::Kind::Collective: c.collectives.push_back(std::move(op)); break;
      case proto::PendingOp::Kind::Rma: c.rma.push_back(std::move(op)); break;
    }
  };
  if (call)
    if (auto op = blockingOp(*call)) place(std::move(*op));
  for (proto::PendingOp& op : ops) place(std::move(op));

  q.history = rt.history().snapshot();
  q.wildcards = rt.wildcards().snapshot();
  q.locks = rt.windowLocks().snapshot();
  q.epochs = rt.windowEpochs().snapshot();
  q.messages = gMessages.snapshot(&q.messagesPartial);
  return q;
}

}  // namespace mpidbg::rt
