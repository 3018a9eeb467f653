// mpidbg's own DLL functions (mpidbg_mqs.h) over the runtime's exported state.

#include <algorithm>
#include <cstring>

#include "Exported.hpp"

using namespace mpidbg::mqs;

namespace {
// "No (attached) runtime" is not an error for the extension queries.
int noRuntimeAsNoInformation(int code) {
  return (code == kErrNoRuntime || code == kErrNotAttached) ? int{mqs_no_information} : code;
}
}  // namespace

MQS_EXPORT int mpidbg_mqs_get_call(mqs_process* process, struct mpidbg_mqs_call* out) {
  return onProcess(process, out, [](ProcessInfo& info, mpidbg_mqs_call& o) {
    auto root = info.readRoot();
    if (!root) return noRuntimeAsNoInformation(root.error());
    auto call = info.reader().call(*root);
    if (!call) return call.error();
    std::memset(&o, 0, sizeof o);
    o.phase = static_cast<int>(root->phase);
    if (!*call) return int{mqs_ok};  // not inside a call: function ""
    auto names = info.functionNames(*root);
    if (!names) return names.error();
    const Call& c = **call;
    copyText((*names)->nameOf(c.function), o.function, sizeof o.function);
    o.peer_role = c.peerRole <= 3 ? static_cast<int>(c.peerRole) : 0;
    o.peer = c.peer;
    o.has_tag = c.hasTag ? 1 : 0;
    o.tag = c.tag;
    o.comm = c.comm;
    o.coll_call = c.collCall;
    o.seq = c.seq;
    const std::size_t kept = std::min(c.requests.size(), std::size(o.requests));
    o.request_count = static_cast<int>(kept);
    std::copy_n(c.requests.begin(), kept, o.requests);
    return int{mqs_ok};
  });
}

MQS_EXPORT int mpidbg_mqs_last_operation_detail(mqs_process* process,
                                                struct mpidbg_mqs_op_detail* detail) {
  return onProcess(process, detail, [](ProcessInfo& info, mpidbg_mqs_op_detail& out) {
    const PendingOp* last = info.lastOperation();
    if (last == nullptr) return int{mqs_no_information};
    out = last->detail;
    return int{mqs_ok};
  });
}

MQS_EXPORT int mpidbg_mqs_get_comm_coll_seq(mqs_process* process, mqs_taddr_t* seq) {
  return onCurrentComm(process, seq, [](const Comm& comm, mqs_taddr_t& out) {
    out = comm.collSeq;
    return int{mqs_ok};
  });
}

MQS_EXPORT int mpidbg_mqs_get_comm_uid(mqs_process* process, mqs_taddr_t* uid) {
  return onCurrentComm(process, uid, [](const Comm& comm, mqs_taddr_t& out) {
    if (comm.uid == 0) return int{mqs_no_information};
    out = comm.uid;
    return int{mqs_ok};
  });
}

MQS_EXPORT int mpidbg_mqs_setup_coll_history(mqs_process* process) {
  return guarded([&] {
    ProcessInfo* info = processInfoOf(process);
    if (info == nullptr) return missingProcessInfoCode();
    info->setHistory({});
    auto root = info->readRoot();
    if (!root) return noRuntimeAsNoInformation(root.error());
    auto history = info->reader().history(*root);
    if (!history) return history.error();
    auto names = info->functionNames(*root);
    if (!names) return names.error();
    std::vector<mpidbg_mqs_coll_record> records;
    records.reserve(history->size());
    for (const CollRecord& h : *history) {
      mpidbg_mqs_coll_record r{};
      r.comm = h.comm;
      r.seq = h.seq;
      copyText((*names)->nameOf(h.function), r.function, sizeof r.function);
      r.root = h.root;
      r.count = h.count;
      records.push_back(r);
    }
    info->setHistory(std::move(records));
    return int{mqs_ok};
  });
}

MQS_EXPORT int mpidbg_mqs_next_coll_record(mqs_process* process,
                                           struct mpidbg_mqs_coll_record* record) {
  return onProcess(process, record, [](ProcessInfo& info, mpidbg_mqs_coll_record& out) {
    const mpidbg_mqs_coll_record* next = info.nextRecord();
    if (next == nullptr) return int{mqs_end_of_list};
    out = *next;
    return int{mqs_ok};
  });
}
