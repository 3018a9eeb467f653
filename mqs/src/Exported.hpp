#pragma once

#include <new>

#include "Callbacks.hpp"
#include "Errors.hpp"
#include "ProcessInfo.hpp"

/// Marks a function of the DLL's C interface: the only symbols
/// libmpidbg-mqs.so exports (everything else is hidden).
#define MQS_EXPORT extern "C" __attribute__((visibility("default")))

namespace mpidbg::mqs {

/// Runs `body` (returning an int code) so that no exception crosses the C
/// interface: out of memory becomes kErrOutOfMemory, anything else
/// kErrInternal.
template <typename Body>
int guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return kErrOutOfMemory;
  } catch (...) {
    return kErrInternal;
  }
}

/// The ProcessInfo the DLL hung on `process`, or null (no basic callbacks,
/// null process, or mqs_setup_process not called).
inline ProcessInfo* processInfoOf(mqs_process* process) noexcept {
  const mqs_basic_callbacks* cb = basicCallbacks();
  if (cb == nullptr || process == nullptr) return nullptr;
  return reinterpret_cast<ProcessInfo*>(cb->mqs_get_process_info_fp(process));
}

/// The code to return when processInfoOf(process) is null.
inline int missingProcessInfoCode() noexcept {
  return basicCallbacks() == nullptr ? kErrNoBasicCallbacks : kErrNoProcessInfo;
}

/// A query about `process` that writes `*out` (guarded):
/// missingProcessInfoCode() without process info, kErrBadArgument for a
/// null `out`, else what `read(info, *out)` returns.
template <typename Out, typename Read>
int onProcess(mqs_process* process, Out* out, Read&& read) noexcept {
  return guarded([&] {
    ProcessInfo* info = processInfoOf(process);
    if (info == nullptr) return missingProcessInfoCode();
    if (out == nullptr) return int{kErrBadArgument};
    return read(*info, *out);
  });
}

/// onProcess() about the current communicator: kErrNoCurrentComm without
/// one, else what `read(comm, *out)` returns.
template <typename Out, typename Read>
int onCurrentComm(mqs_process* process, Out* out, Read&& read) noexcept {
  return onProcess(process, out, [&](ProcessInfo& info, Out& o) {
    const Comm* comm = info.currentComm();
    if (comm == nullptr) return int{kErrNoCurrentComm};
    return read(*comm, o);
  });
}

}  // namespace mpidbg::mqs
