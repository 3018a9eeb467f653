#pragma once

// The debugger side of the mqs interface: what mqs_image and mqs_process
// point at, and the three callback tables (mqs/include/mpi_interface.h,
// "Callbacks the debugger provides"). Used by MqsHost and the queue reader.

#include <string>
#include <vector>

#include "debugger/core/mqs/SymbolSource.hpp"
#include "debugger/core/mqs/TargetMemory.hpp"
#include "mpi_interface.h"

namespace mpidbg::core::mqs {

class MqsHost;

/// Codes the debugger's callbacks return (>= mqs_first_user_code); their
/// text comes from the errorstring callback and callbackErrorText().
enum CallbackCode : int {
  kFetchFailed = mqs_first_user_code,  ///< target memory could not be read
  kFunctionNotFound,                   ///< no such function in the image
  kSymbolNotFound,                     ///< no such data symbol in the image
  kBadArgument,                        ///< negative size, NULL buffer, ...
};

/// What an mqs_image points at: one target's executable and its symbols.
struct ImageHandle {
  SymbolSource* symbols = nullptr;
  std::string name;  ///< executable path, for messages
  int elfClass = 0;  ///< ELFCLASS64 / ELFCLASS32
  bool bigEndian = false;
  mqs_image_info* info = nullptr;  ///< the DLL's, through put/get image info
  /// Types the DLL asked for and no DWARF had (the first few), to explain a
  /// refusal such as Open MPI's "Failed to find some type".
  std::vector<std::string> missingTypes;
};

/// What an mqs_process points at: one rank's memory.
struct ProcessHandle {
  ImageHandle* image = nullptr;
  TargetMemory* memory = nullptr;
  long worldRank = -1;
  mqs_process_info* info = nullptr;  ///< the DLL's, through put/get process info
  std::string lastError;             ///< why the last failing callback failed
};

/// The opaque handle the DLL sees for an image (the callbacks cast it back).
inline mqs_image* toMqs(ImageHandle* h) { return reinterpret_cast<mqs_image*>(h); }
/// The opaque handle the DLL sees for a process.
inline mqs_process* toMqs(ProcessHandle* h) { return reinterpret_cast<mqs_process*>(h); }

/// The static callback tables (they outlive every DLL that keeps pointers
/// to them).
const mqs_basic_callbacks* basicCallbacks();
const mqs_image_callbacks* imageCallbacks();
const mqs_process_callbacks* processCallbacks();

/// Text of a CallbackCode ("cannot read target memory", ...); nullptr for
/// other codes.
const char* callbackErrorText(int code);

/// While alive, the DLL's debug prints on this thread go to `host`'s log.
class DebugLogScope {
 public:
  /// Routes this thread's debug prints to `host` until destruction.
  explicit DebugLogScope(MqsHost& host);
  ~DebugLogScope();
  DebugLogScope(const DebugLogScope&) = delete;
  DebugLogScope& operator=(const DebugLogScope&) = delete;

 private:
  MqsHost* previous_;
};

}  // namespace mpidbg::core::mqs
