#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "Layout.hpp"
#include "Operations.hpp"
#include "StateReader.hpp"
#include "Target.hpp"
#include "mpidbg_mqs.h"

namespace mpidbg::mqs {

/// The runtime's two symbols in one image or process.
struct RuntimeSymbols {
  mqs_taddr_t layout = 0;  ///< mpidbg_layout
  mqs_taddr_t state = 0;   ///< mpidbg_state
};

/// Looks both symbols up with the image's find-symbol callback. Errors:
/// kErrMissingCallback, kErrNoRuntime (no mpidbg_layout: not an mpidbg
/// process), kErrNoStateSymbol.
Result<RuntimeSymbols> findRuntimeSymbols(const mqs_image_callbacks* callbacks, mqs_image* image);

/// What the DLL hangs on an image (mqs_put_image_info_fp).
struct ImageInfo {
  const mqs_image_callbacks* callbacks = nullptr;
  std::optional<RuntimeSymbols> symbols;  ///< once mqs_image_has_queues found them
};

/// What the DLL hangs on a process (mqs_put_process_info_fp): the validated
/// layout, the communicator list and the iterators' positions. Copy deleted:
/// the debugger holds a pointer to it.
class ProcessInfo {
 public:
  ProcessInfo(mqs_process* process, const mqs_process_callbacks* callbacks, mqs_image* image,
              const ImageInfo* imageInfo) noexcept
      : target_(process, callbacks), image_(image), imageInfo_(imageInfo) {}
  ProcessInfo(const ProcessInfo&) = delete;
  ProcessInfo& operator=(const ProcessInfo&) = delete;

  /// Finds the symbols (per process: the runtime is a shared library placed
  /// anywhere) and reads and validates the layout table, once; later calls
  /// return the cached result or retry a failure.
  Result<void> ensureLayout();

  /// The state root as it is now (ensureLayout first).
  Result<Root> readRoot();

  /// A reader over the current layout; only after ensureLayout succeeded.
  StateReader reader() const noexcept { return StateReader(target_, *layout_, symbols_.state); }

  /// The function-name table, read once per (address, count, length).
  Result<const FunctionNames*> functionNames(const Root& root);

  /// Re-reads the communicator list; the communicator iterator is reset
  /// (no current communicator until setupCommIterator).
  Result<void> refreshComms();

  /// mqs_setup_communicator_iterator: re-reads the list unless
  /// mqs_update_communicator_list did just now, then makes the first current.
  /// mqs_ok, mqs_end_of_list when there are none, or an error.
  int setupCommIterator();
  /// mqs_next_communicator: mqs_ok, mqs_end_of_list, or kErrNoCurrentComm.
  int nextComm();
  /// The current communicator, or null.
  const Comm* currentComm() const noexcept {
    return current_ < comms_.size() ? &comms_[current_] : nullptr;
  }

  /// What the operation walks of one communicator pass read: taken on the
  /// first walk after the communicator list was (re)read and kept until the
  /// next re-read, so all answers of one pass describe the same moment and
  /// the op array is fetched once per pass, not once per communicator.
  struct OpSnapshot {
    std::vector<Op> ops;
    std::optional<Call> call;
    FunctionNames names;
  };
  Result<const OpSnapshot*> opSnapshot();

  /// Operation walk (mqs_setup_operation_iterator / mqs_next_operation).
  void setOperations(std::vector<PendingOp> ops) noexcept;
  const PendingOp* nextOperation() noexcept;
  /// The entry nextOperation() returned last, or null.
  const PendingOp* lastOperation() const noexcept { return last_; }

  /// Collective history walk.
  void setHistory(std::vector<mpidbg_mqs_coll_record> records) noexcept;
  const mpidbg_mqs_coll_record* nextRecord() noexcept;

 private:
  Target target_;
  mqs_image* image_;
  const ImageInfo* imageInfo_;
  RuntimeSymbols symbols_;
  std::optional<Layout> layout_;
  std::optional<FunctionNames> names_;
  Root namesKey_;

  std::vector<Comm> comms_;
  std::optional<OpSnapshot> opSnapshot_;
  bool listFresh_ = false;
  std::size_t current_ = static_cast<std::size_t>(-1);

  std::vector<PendingOp> ops_;
  std::size_t nextOp_ = 0;
  const PendingOp* last_ = nullptr;

  std::vector<mpidbg_mqs_coll_record> history_;
  std::size_t nextRecord_ = 0;
};

}  // namespace mpidbg::mqs
