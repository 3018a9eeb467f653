#include "Operations.hpp"

#include <cstdio>

#include "mpidbg/MpiFunctions.hpp"
#include "mpidbg/StateLayout.h"

namespace mpidbg::mqs {
namespace {

// Appends lines to extra_text, dropping any beyond the fifth.
class ExtraText {
 public:
  explicit ExtraText(mqs_pending_operation& op) : op_(op) {}
  void add(const std::string& line) {
    if (next_ < 5) copyText(line, op_.extra_text[next_++], sizeof op_.extra_text[0]);
  }

 private:
  mqs_pending_operation& op_;
  int next_ = 0;
};

std::string hex(const char* label, std::uint64_t value) {
  char text[64];
  std::snprintf(text, sizeof text, "%s0x%llx", label, static_cast<unsigned long long>(value));
  return text;
}

PendingOp fromSlot(const Op& op, const Comm& comm, const FunctionNames& names) {
  PendingOp entry;
  mqs_pending_operation& o = entry.operation;
  const std::string function = names.nameOf(op.function);
  o.status = mqs_st_pending;
  o.desired_local_rank = op.peer;
  o.desired_global_rank = globalRankOf(comm, op.peer);
  o.tag_wild = op.kind == MPIDBG_OP_RECV && op.tag == -1;
  o.desired_tag = op.tag;
  o.desired_length = op.bytes;
  o.system_buffer = 0;
  o.buffer = op.buffer;
  const bool send = op.kind == MPIDBG_OP_SEND;
  o.actual_local_rank = send ? o.desired_local_rank : -1;
  o.actual_global_rank = send ? o.desired_global_rank : -1;
  o.actual_tag = send ? o.desired_tag : -1;
  o.actual_length = send ? o.desired_length : -1;

  ExtraText extra(o);
  extra.add(function);
  extra.add(hex("request ", op.request));
  if (op.flags & MPIDBG_OP_PERSISTENT)
    extra.add((op.flags & MPIDBG_OP_ACTIVE) ? "persistent, active" : "persistent, inactive");
  if (op.flags & MPIDBG_OP_WAITED) extra.add("waited");
  if (op.flags & MPIDBG_OP_SYNCHRONOUS) extra.add("synchronous");
  // A collective in no class (MPI_File_iwrite_all, ...) has no call number of a class.
  if (op.kind == MPIDBG_OP_COLLECTIVE)
    extra.add((op.collCall > 0 ? "collective call " + std::to_string(op.collCall) + ", sequence "
                               : std::string("collective, sequence ")) +
              std::to_string(op.collSeq));

  mpidbg_mqs_op_detail& d = entry.detail;
  copyText(function, d.function, sizeof d.function);
  d.blocking = 0;
  d.flags = op.flags;
  d.request = op.request;
  d.coll_class = op.kind == MPIDBG_OP_COLLECTIVE ? op.collClass : -1;
  d.coll_call = op.collCall;
  d.coll_seq = op.collSeq;
  d.count = op.count;
  return entry;
}

PendingOp fromCall(const Call& call, Blocking kind, const Comm& comm, const std::string& function) {
  PendingOp entry;
  mqs_pending_operation& o = entry.operation;
  o.status = mqs_st_pending;
  o.desired_local_rank = call.peer;
  o.desired_global_rank = globalRankOf(comm, call.peer);
  o.tag_wild = kind == Blocking::Receive && (!call.hasTag || call.tag == -1);
  o.desired_tag = call.hasTag ? call.tag : -1;
  o.desired_length = -1;  // the call record keeps no count
  o.buffer = 0;
  const bool send = kind == Blocking::Send;
  o.actual_local_rank = send ? o.desired_local_rank : -1;
  o.actual_global_rank = send ? o.desired_global_rank : -1;
  o.actual_tag = send ? o.desired_tag : -1;
  o.actual_length = -1;
  ExtraText extra(o);
  extra.add(function);
  extra.add("blocking call (the process is inside it)");

  mpidbg_mqs_op_detail& d = entry.detail;
  copyText(function, d.function, sizeof d.function);
  d.blocking = 1;
  d.flags = 0;
  d.request = 0;
  d.coll_class = -1;
  d.coll_call = call.collCall;
  d.coll_seq = 0;
  d.count = -1;
  return entry;
}

}  // namespace

Blocking blockingKindOf(std::string_view f) noexcept {
  // The function table's ROLE column (common/include/mpidbg/MpiFunctions.hpp),
  // as the runtime's queues read it: the large-count forms too.
  switch (blockingRoleOf(f)) {
    case BlockingRole::Send:
    case BlockingRole::SyncSend: return Blocking::Send;
    case BlockingRole::Recv: return Blocking::Receive;
    case BlockingRole::No: return Blocking::None;
  }
  return Blocking::None;
}

mqs_tword_t globalRankOf(const Comm& comm, std::int64_t local) noexcept {
  if (local < 0) return local;
  if (static_cast<std::uint64_t>(local) < comm.worldRanks.size()) return comm.worldRanks[local];
  return -1;
}

std::vector<PendingOp> pendingOperations(int opClass, const Comm& comm, const std::vector<Op>& ops,
                                         const std::optional<Call>& call,
                                         const FunctionNames& names) {
  std::uint32_t kind = 0;
  Blocking blocking = Blocking::None;
  switch (opClass) {
    case mqs_pending_sends:
      kind = MPIDBG_OP_SEND;
      blocking = Blocking::Send;
      break;
    case mqs_pending_receives:
      kind = MPIDBG_OP_RECV;
      blocking = Blocking::Receive;
      break;
    case MPIDBG_MQS_PENDING_COLLECTIVES:
      kind = MPIDBG_OP_COLLECTIVE;
      break;
    default:
      return {};
  }
  std::vector<PendingOp> out;
  for (const Op& op : ops)
    if (op.kind == kind && op.comm == comm.handle) out.push_back(fromSlot(op, comm, names));
  if (call && blocking != Blocking::None && call->comm == comm.handle) {
    const std::string function = names.nameOf(call->function);
    if (blockingKindOf(function) == blocking)
      out.push_back(fromCall(*call, blocking, comm, function));
  }
  return out;
}

}  // namespace mpidbg::mqs
