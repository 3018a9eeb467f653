#pragma once
// The mpidbg runtime's exported state (StateLayout.h) written into a
// FakeTarget by name: a layout table whose field order differs from any C
// struct, records written through that table, and a small job (communicators,
// pending operations, the current call, the collective history).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "FakeTarget.hpp"
#include "mpidbg/StateLayout.h"

namespace mpidbg::mqs::test {

/// A layout table being built: rows of (type, field, offset, size).
class FakeLayout {
 public:
  struct Row {
    std::string type, field;
    std::uint32_t offset = 0, size = 0;
  };
  struct FieldSpec {
    std::string name;
    std::uint32_t size;
  };

  /// Adds `type` with `fields` placed in the order given, each after `gap`
  /// bytes of padding and aligned to its size (at most 8), then the type's
  /// size row.
  void addType(const std::string& type, const std::vector<FieldSpec>& fields, std::uint32_t gap);
  /// Every type and field StateLayout.h documents; `order` 0 lists each
  /// type's fields reversed, 1 rotated by half, so neither matches the
  /// header's order; `gap` pads between fields. `added` false leaves out the
  /// fields that came later (root.op_overflow, op.version, coll.stamp,
  /// comm.uid).
  static FakeLayout standard(int order = 0, std::uint32_t gap = 4, bool added = true);

  std::uint32_t sizeOf(const std::string& type) const;
  const Row& at(const std::string& type, const std::string& field) const;
  Row* find(const std::string& type, const std::string& field);

  /// Writes an mpidbg_layout_table image into a new region: `magic`,
  /// `version`, `count` (default: the number of rows), the rows.
  std::uint64_t install(FakeTarget& target, std::uint64_t magic = MPIDBG_LAYOUT_MAGIC,
                        std::uint32_t version = MPIDBG_LAYOUT_VERSION,
                        std::optional<std::uint32_t> count = std::nullopt) const;

  std::vector<Row> rows;
};

/// Writes fields of one record at `address` by name, through the layout.
class RecordWriter {
 public:
  RecordWriter(const FakeLayout& layout, FakeTarget& target, std::string type,
               std::uint64_t address)
      : layout_(layout), target_(target), type_(std::move(type)), address_(address) {}
  /// An integer of the field's size, in target byte order.
  RecordWriter& set(const std::string& field, std::uint64_t value);
  /// Element `index` (8 bytes) of an array field.
  RecordWriter& setElement(const std::string& field, std::size_t index, std::uint64_t value);
  /// Raw bytes (no NUL added when `text` fills the field).
  RecordWriter& setText(const std::string& field, std::string_view text);

 private:
  const FakeLayout& layout_;
  FakeTarget& target_;
  std::string type_;
  std::uint64_t address_;
};

/// A communicator to place in a slot.
struct FakeComm {
  std::uint64_t handle;
  std::string name;
  std::int32_t localRank;
  std::vector<std::int32_t> worldRanks;  ///< its size is the communicator's size
  std::uint64_t collSeq = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> counters =
      {};  ///< (entries, exits) per class
  std::uint32_t state = MPIDBG_SLOT_LIVE;
  std::uint64_t uid = 0;  ///< "comm".uid (0: none)
};

/// A pending nonblocking operation to place in a slot.
struct FakeOp {
  std::uint32_t kind;
  std::string function;
  std::uint64_t comm;
  std::int32_t peer;
  std::int32_t tag;
  std::int64_t bytes;
  std::uint64_t issued;
  std::uint64_t request = 0;
  std::uint32_t flags = MPIDBG_OP_ACTIVE;
  std::int32_t collClass = -1;
  std::uint64_t collCall = 0;
  std::uint64_t collSeq = 0;
  std::uint64_t buffer = 0x1000;
  std::int64_t count = 1;
  std::uint32_t state = MPIDBG_SLOT_LIVE;
};

/// The call the process is inside.
struct FakeCall {
  std::string function;
  std::uint32_t peerRole;
  std::int32_t peer;
  bool hasTag;
  std::int32_t tag;
  std::uint64_t comm;
  std::uint64_t collCall = 0;
  std::uint64_t seq = 77;
  std::vector<std::uint32_t> requests = {};  ///< 4-byte handles, as MPICH's MPI_Request
};

/// One rank's whole runtime state in a FakeTarget, attached (root magic set),
/// with empty slot arrays until add*() fills them.
class FakeJob {
 public:
  static constexpr std::uint32_t kCommCapacity = 8, kOpCapacity = 8, kHistoryCapacity = 4;
  static constexpr std::uint32_t kNameLen = 32;

  explicit FakeJob(bool bigEndian = false, FakeLayout layout = FakeLayout::standard());

  FakeTarget target;
  FakeLayout layout;
  std::uint64_t layoutAddress = 0, state = 0, comms = 0, ops = 0, history = 0, call = 0, names = 0;

  /// Index of `function` in the runtime's name table (added when new).
  std::uint32_t functionIndex(const std::string& function);
  RecordWriter root() { return {layout, target, "root", state}; }
  RecordWriter commSlot(std::uint32_t i);
  RecordWriter opSlot(std::uint32_t i);
  RecordWriter historySlot(std::uint32_t i);
  RecordWriter callRecord() { return {layout, target, "call", call}; }

  void addComm(std::uint32_t slot, const FakeComm& comm);
  void addOp(std::uint32_t slot, const FakeOp& op);
  void setCall(const FakeCall& call);
  /// Writes history record `seq` (1-based) the way the runtime does: at slot
  /// (seq - 1) % capacity, and sets history_next = seq.
  void addHistory(std::uint64_t seq, std::uint64_t comm, const std::string& function,
                  std::int32_t root, std::int64_t count);

 private:
  void writeNames();
  std::vector<std::string> functions_;
};

/// Drives the DLL for one FakeTarget the way a debugger does.
class DllSession {
 public:
  /// Installs the basic callbacks, sets up the image and the process; the
  /// codes and messages are kept.
  explicit DllSession(FakeTarget& target);

  int imageCode = -1;
  const char* imageMessage = nullptr;
  int processCode = -1;
  int hasQueuesCode = -1;
  const char* processMessage = nullptr;

  /// mqs_update_communicator_list + iterate; `code` gets the first failure.
  std::vector<mqs_communicator> communicators(int* code = nullptr);
  /// Makes the communicator with `handle` current; false when absent.
  bool select(std::uint64_t handle);

  struct Operation {
    mqs_pending_operation op;
    mpidbg_mqs_op_detail detail;
  };
  /// Walks class `opClass` of the current communicator; `code` gets the
  /// setup's result.
  std::vector<Operation> operations(int opClass, int* code = nullptr);
  /// The collective history, oldest first; `code` gets the setup's result.
  std::vector<mpidbg_mqs_coll_record> history(int* code = nullptr);

  mqs_process* process() { return target_.process(); }
  const Dll& dll;

 private:
  FakeTarget& target_;
};

/// `s`, or "(null)" for a null pointer: the DLL's message strings in a check.
inline std::string textOrNull(const char* s) { return s ? s : "(null)"; }

}  // namespace mpidbg::mqs::test
