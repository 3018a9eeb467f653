#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mpi_interface.h"
#include "mpidbg/Error.hpp"
#include "mpidbg_mqs.h"

namespace mpidbg::core::mqs {

/// The functions of one loaded mqs DLL (mqs/include/mpi_interface.h and
/// mqs/include/mpidbg_mqs.h). Required ones are never null; optional ones
/// are null when the DLL does not export them.
struct MqsFunctions {
  mqs_setup_basic_callbacks_t setupBasicCallbacks = nullptr;
  mqs_version_string_t versionString = nullptr;
  mqs_version_compatibility_t versionCompatibility = nullptr;
  mqs_dll_taddr_width_t taddrWidth = nullptr;
  mqs_dll_error_string_t errorString = nullptr;
  mqs_setup_image_t setupImage = nullptr;
  mqs_image_has_queues_t imageHasQueues = nullptr;
  mqs_destroy_image_info_t destroyImageInfo = nullptr;
  mqs_setup_process_t setupProcess = nullptr;
  mqs_process_has_queues_t processHasQueues = nullptr;
  mqs_destroy_process_info_t destroyProcessInfo = nullptr;
  mqs_update_communicator_list_t updateCommunicatorList = nullptr;
  mqs_setup_communicator_iterator_t setupCommunicatorIterator = nullptr;
  mqs_get_communicator_t getCommunicator = nullptr;
  mqs_next_communicator_t nextCommunicator = nullptr;
  mqs_setup_operation_iterator_t setupOperationIterator = nullptr;
  mqs_next_operation_t nextOperation = nullptr;
  // Optional (standard):
  mqs_get_comm_group_t getCommGroup = nullptr;
  mqs_get_comm_coll_state_t getCommCollState = nullptr;
  // Optional (mpidbg's extensions):
  mpidbg_mqs_get_call_t getCall = nullptr;
  mpidbg_mqs_last_operation_detail_t lastOperationDetail = nullptr;
  mpidbg_mqs_get_comm_coll_seq_t getCommCollSeq = nullptr;
  mpidbg_mqs_get_comm_uid_t getCommUid = nullptr;
  mpidbg_mqs_setup_coll_history_t setupCollHistory = nullptr;
  mpidbg_mqs_next_coll_record_t nextCollRecord = nullptr;
};

/// One message-queue DLL, dlopened (RTLD_NOW | RTLD_LOCAL) and checked:
/// interface version MQS_INTERFACE_COMPATIBILITY (2), taddr width
/// sizeof(mqs_taddr_t), every required function present; its basic
/// callbacks are installed at load. Owns the dlopen handle (dlclose on
/// destruction). Calls into the DLL must hold lock() (DLLs keep global
/// state and are not known to be thread-safe).
class MqsHost {
 public:
  /// Loads the DLL at `path`. Errors: "cannot load mqs DLL <path>:
  /// <dlerror>", "mqs DLL <path> lacks the required function <name>",
  /// "mqs DLL <path> implements interface version N; mpidbg speaks 2",
  /// "mqs DLL <path> uses N-byte target addresses; mpidbg uses 8".
  static Expected<std::unique_ptr<MqsHost>> load(const std::string& path);
  /// load(), once per path for the whole process; later calls share it.
  static Expected<std::shared_ptr<MqsHost>> shared(const std::string& path);

  MqsHost(const MqsHost&) = delete;
  MqsHost& operator=(const MqsHost&) = delete;
  ~MqsHost();

  /// The path given to load().
  const std::string& path() const { return path_; }
  /// The file name of path() ("libmpidbg-mqs.so"), for source notes.
  std::string fileName() const;
  /// mqs_version_string(), or "" when it returned NULL.
  std::string version() const;
  /// The DLL's functions (required ones non-null).
  const MqsFunctions& functions() const { return fn_; }
  /// True when the DLL exports mqs_get_comm_coll_state.
  bool hasCollState() const { return fn_.getCommCollState != nullptr; }
  /// True when the DLL exports mpidbg's mpidbg_mqs_get_call (our DLL).
  bool hasMpidbgExtensions() const { return fn_.getCall != nullptr; }

  /// mqs_dll_error_string(code) verbatim with the code: "Failed to find some
  /// type (mqs code 102)"; the standard codes get their own names. (A DLL
  /// may pass on a code of the debugger's callbacks; the reader adds the
  /// callback's own failure text for that.)
  std::string errorText(int code) const;

  /// Serializes calls into the DLL.
  std::unique_lock<std::mutex> lock() { return std::unique_lock(mutex_); }

  /// Lines the DLL printed through mqs_dprints_fp (the last 200), oldest
  /// first. They are for debugging the DLL, not for users.
  std::vector<std::string> debugLog() const;
  /// Appends one line to the debug log (used by the dprints callback).
  void logDebug(std::string line);

 private:
  MqsHost() = default;

  std::string path_;
  void* handle_ = nullptr;
  MqsFunctions fn_;
  std::mutex mutex_;
  mutable std::mutex logMutex_;
  std::deque<std::string> log_;
};

}  // namespace mpidbg::core::mqs
