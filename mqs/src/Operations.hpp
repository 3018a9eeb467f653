#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "StateReader.hpp"
#include "mpidbg_mqs.h"

namespace mpidbg::mqs {

/// One entry of an operation walk: what mqs_next_operation returns and what
/// mpidbg_mqs_last_operation_detail returns right after it.
struct PendingOp {
  mqs_pending_operation operation{};
  mpidbg_mqs_op_detail detail{};
};

/// Which queue a blocking call the process is inside belongs to:
/// MPI_Send/Ssend/Bsend/Rsend wait as a pending send; MPI_Recv, MPI_Probe,
/// MPI_Mprobe, MPI_Sendrecv and MPI_Sendrecv_replace as a pending receive.
enum class Blocking { None, Send, Receive };
Blocking blockingKindOf(std::string_view function) noexcept;

/// The world rank of local rank `local` of `comm`: `local` itself when
/// negative (-1 any source, -2 MPI_PROC_NULL), -1 when unknown.
mqs_tword_t globalRankOf(const Comm& comm, std::int64_t local) noexcept;

/// The operations of class `opClass` (mqs_pending_sends, mqs_pending_receives
/// or MPIDBG_MQS_PENDING_COLLECTIVES) on `comm`: the op slots of the matching
/// kind in issue order, then the blocking call when it is of that class and on
/// `comm`. Every entry has status mqs_st_pending; lengths are in bytes (-1
/// unknown); extra_text holds the function name, "request 0x..", and
/// "persistent, inactive" / "persistent, active", "waited", "synchronous"
/// or "blocking call" lines as they apply.
std::vector<PendingOp> pendingOperations(int opClass, const Comm& comm, const std::vector<Op>& ops,
                                         const std::optional<Call>& call,
                                         const FunctionNames& names);

}  // namespace mpidbg::mqs
