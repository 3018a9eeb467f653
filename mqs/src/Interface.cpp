// The standard message-queue DLL functions (mpi_interface.h) over the mpidbg
// runtime's exported state (common/include/mpidbg/StateLayout.h).
//
// What this DLL cannot give: the unexpected-message queue. The runtime sits
// above MPI (PMPI interposition) and never sees messages MPICH has received
// but not matched, so mqs_setup_operation_iterator answers
// mqs_no_information for mqs_unexpected_messages.

#include <climits>
#include <cstring>

#include "Exported.hpp"

using namespace mpidbg::mqs;

namespace {

#ifndef MPIDBG_MQS_VERSION
#define MPIDBG_MQS_VERSION "0"
#endif

int setComplaint(char** message, int code) {
  if (message != nullptr)
    *message = code == mqs_ok ? nullptr : const_cast<char*>(complaintFor(code));
  return code;
}

}  // namespace

MQS_EXPORT void mqs_setup_basic_callbacks(const mqs_basic_callbacks* callbacks) {
  setBasicCallbacks(callbacks);
}

MQS_EXPORT const char* mqs_version_string(void) {
  return "mpidbg " MPIDBG_MQS_VERSION
         " message-queue DLL (libmpidbg-mqs.so) for the mpidbg runtime, state layout v1";
}

MQS_EXPORT int mqs_version_compatibility(void) { return MQS_INTERFACE_COMPATIBILITY; }

MQS_EXPORT int mqs_dll_taddr_width(void) { return static_cast<int>(sizeof(mqs_taddr_t)); }

MQS_EXPORT const char* mqs_dll_error_string(int code) { return errorText(code); }

MQS_EXPORT int mqs_setup_image(mqs_image* image, const mqs_image_callbacks* callbacks) {
  return guarded([&] {
    const mqs_basic_callbacks* basic = basicCallbacks();
    if (basic == nullptr) return int{kErrNoBasicCallbacks};
    if (image == nullptr || callbacks == nullptr) return int{kErrBadArgument};
    auto* info = new ImageInfo{callbacks, std::nullopt};
    basic->mqs_put_image_info_fp(image, reinterpret_cast<mqs_image_info*>(info));
    return int{mqs_ok};
  });
}

MQS_EXPORT int mqs_image_has_queues(mqs_image* image, char** message) {
  const int code = guarded([&] {
    const mqs_basic_callbacks* basic = basicCallbacks();
    if (basic == nullptr) return int{kErrNoBasicCallbacks};
    if (image == nullptr) return int{kErrBadArgument};
    auto* info = reinterpret_cast<ImageInfo*>(basic->mqs_get_image_info_fp(image));
    if (info == nullptr) return int{kErrNoImageInfo};
    auto symbols = findRuntimeSymbols(info->callbacks, image);
    if (!symbols) return symbols.error();
    info->symbols = *symbols;
    return int{mqs_ok};
  });
  return setComplaint(message, code);
}

MQS_EXPORT void mqs_destroy_image_info(mqs_image_info* info) {
  delete reinterpret_cast<ImageInfo*>(info);
}

MQS_EXPORT int mqs_setup_process(mqs_process* process, const mqs_process_callbacks* callbacks) {
  return guarded([&] {
    const mqs_basic_callbacks* basic = basicCallbacks();
    if (basic == nullptr) return int{kErrNoBasicCallbacks};
    if (process == nullptr || callbacks == nullptr) return int{kErrBadArgument};
    if (callbacks->mqs_get_image_fp == nullptr || callbacks->mqs_fetch_data_fp == nullptr)
      return int{kErrMissingCallback};
    mqs_image* image = callbacks->mqs_get_image_fp(process);
    if (image == nullptr) return int{kErrNoImageInfo};
    auto* imageInfo = reinterpret_cast<ImageInfo*>(basic->mqs_get_image_info_fp(image));
    if (imageInfo == nullptr) return int{kErrNoImageInfo};
    auto* info = new ProcessInfo(process, callbacks, image, imageInfo);
    basic->mqs_put_process_info_fp(process, reinterpret_cast<mqs_process_info*>(info));
    auto layout = info->ensureLayout();
    return layout ? int{mqs_ok} : layout.error();
  });
}

MQS_EXPORT int mqs_process_has_queues(mqs_process* process, char** message) {
  const int code = guarded([&] {
    ProcessInfo* info = processInfoOf(process);
    if (info == nullptr) return missingProcessInfoCode();
    auto root = info->readRoot();
    return root ? int{mqs_ok} : root.error();
  });
  return setComplaint(message, code);
}

MQS_EXPORT void mqs_destroy_process_info(mqs_process_info* info) {
  delete reinterpret_cast<ProcessInfo*>(info);
}

MQS_EXPORT int mqs_update_communicator_list(mqs_process* process) {
  return guarded([&] {
    ProcessInfo* info = processInfoOf(process);
    if (info == nullptr) return missingProcessInfoCode();
    auto ok = info->refreshComms();
    return ok ? int{mqs_ok} : ok.error();
  });
}

MQS_EXPORT int mqs_setup_communicator_iterator(mqs_process* process) {
  return guarded([&] {
    ProcessInfo* info = processInfoOf(process);
    return info == nullptr ? missingProcessInfoCode() : info->setupCommIterator();
  });
}

MQS_EXPORT int mqs_get_communicator(mqs_process* process, mqs_communicator* communicator) {
  return onCurrentComm(process, communicator, [](const Comm& comm, mqs_communicator& out) {
    std::memset(&out, 0, sizeof out);
    out.unique_id = comm.handle;
    out.local_rank = comm.localRank;
    out.size = comm.size;
    copyText(comm.name, out.name, sizeof out.name);
    return int{mqs_ok};
  });
}

MQS_EXPORT int mqs_next_communicator(mqs_process* process) {
  return guarded([&] {
    ProcessInfo* info = processInfoOf(process);
    return info == nullptr ? missingProcessInfoCode() : info->nextComm();
  });
}

MQS_EXPORT int mqs_get_comm_group(mqs_process* process, int* world_ranks) {
  // `out` is the first of the communicator's size entries.
  return onCurrentComm(process, world_ranks, [&](const Comm& comm, int&) {
    if (comm.worldRanks.empty()) return int{kErrCommGroupUnknown};
    std::memcpy(world_ranks, comm.worldRanks.data(), comm.worldRanks.size() * sizeof(int));
    return int{mqs_ok};
  });
}

MQS_EXPORT int mqs_setup_operation_iterator(mqs_process* process, int op_class) {
  return guarded([&] {
    ProcessInfo* info = processInfoOf(process);
    if (info == nullptr) return missingProcessInfoCode();
    info->setOperations({});
    const Comm* comm = info->currentComm();
    if (comm == nullptr) return int{kErrNoCurrentComm};
    if (op_class == mqs_unexpected_messages) return int{mqs_no_information};
    if (op_class != mqs_pending_sends && op_class != mqs_pending_receives &&
        op_class != MPIDBG_MQS_PENDING_COLLECTIVES)
      return int{kErrBadOpClass};
    auto snapshot = info->opSnapshot();
    if (!snapshot) return snapshot.error();
    const ProcessInfo::OpSnapshot& s = **snapshot;
    info->setOperations(pendingOperations(op_class, *comm, s.ops, s.call, s.names));
    return int{mqs_ok};
  });
}

MQS_EXPORT int mqs_next_operation(mqs_process* process, mqs_pending_operation* operation) {
  return onProcess(process, operation, [](ProcessInfo& info, mqs_pending_operation& out) {
    const PendingOp* next = info.nextOperation();
    if (next == nullptr) return int{mqs_end_of_list};
    out = next->operation;
    return int{mqs_ok};
  });
}

MQS_EXPORT int mqs_get_comm_coll_state(mqs_process* process, int comm_class, int* count,
                                       int* active) {
  return guarded([&] {
    ProcessInfo* info = processInfoOf(process);
    if (info == nullptr) return missingProcessInfoCode();
    if (count == nullptr || active == nullptr) return int{kErrBadArgument};
    if (comm_class < 0 || comm_class >= mqs_comm_class_count) return int{kErrBadCollClass};
    const Comm* comm = info->currentComm();
    if (comm == nullptr) return int{kErrNoCurrentComm};
    const std::uint64_t entries = comm->entries[comm_class];
    *count = entries > INT_MAX ? INT_MAX : static_cast<int>(entries);
    *active = entries != comm->exits[comm_class] ? 1 : 0;
    return int{mqs_ok};
  });
}
