#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "Errors.hpp"
#include "Layout.hpp"
#include "Target.hpp"

namespace mpidbg::mqs {

/// Decodes one record of a layout type from its bytes (typeSize() of them,
/// which Layout::read guarantees cover every field).
class RecordView {
 public:
  RecordView(const Layout& layout, const Target& target, std::span<const std::byte> bytes) noexcept
      : layout_(layout), target_(target), bytes_(bytes) {}

  std::uint64_t u(Field field) const noexcept {
    const FieldLoc loc = layout_.at(field);
    return target_.toUnsigned(bytes_.data() + loc.offset, loc.size);
  }
  std::int64_t s(Field field) const noexcept {
    const FieldLoc loc = layout_.at(field);
    return target_.toSigned(bytes_.data() + loc.offset, loc.size);
  }
  /// Element `i` (< 14) of a per-class u64 counter array.
  std::uint64_t counter(Field field, std::size_t i) const noexcept {
    const FieldLoc loc = layout_.at(field);
    return target_.toUnsigned(bytes_.data() + loc.offset + 8 * i, 8);
  }
  /// A text field, cleaned by cleanText, at most `limit` bytes.
  std::string text(Field field, std::size_t limit) const {
    const FieldLoc loc = layout_.at(field);
    return cleanText(bytes_.subspan(loc.offset, loc.size), limit);
  }

 private:
  const Layout& layout_;
  const Target& target_;
  std::span<const std::byte> bytes_;
};

/// "root": where everything else is. Capacities are bounded by the reader.
struct Root {
  std::int32_t worldRank = -1;
  std::int32_t worldSize = 0;
  std::uint32_t phase = 0;
  mqs_taddr_t comms = 0;
  std::uint32_t commCapacity = 0;
  mqs_taddr_t ops = 0;
  std::uint32_t opCapacity = 0;
  mqs_taddr_t history = 0;
  std::uint32_t historyCapacity = 0;
  std::uint64_t historyNext = 0;
  mqs_taddr_t call = 0;
  mqs_taddr_t functionNames = 0;
  std::uint32_t functionCount = 0;
  std::uint32_t functionNameLen = 0;
  std::uint64_t opOverflow = 0;  ///< operations the runtime could not record (0 if not kept)
};

/// One live "comm" slot read consistently (seqlock). worldRanks is empty when
/// the runtime did not record them; entries of -1 were out of range.
struct Comm {
  std::uint64_t handle = 0;
  std::int32_t size = 0;
  std::int32_t localRank = 0;
  std::string name;  ///< at most 63 bytes, printable ASCII
  std::vector<std::int32_t> worldRanks;
  std::uint64_t collSeq = 0;
  std::uint64_t uid = 0;  ///< "comm".uid; 0 when unknown or not in the layout
  std::array<std::uint64_t, mqs_comm_class_count> entries{};
  std::array<std::uint64_t, mqs_comm_class_count> exits{};
};

/// One live "op" slot (a pending nonblocking operation).
struct Op {
  std::uint32_t kind = 0;  ///< enum mpidbg_op_kind, checked <= COLLECTIVE
  std::uint32_t function = 0;
  std::uint32_t flags = 0;
  std::uint64_t request = 0;
  std::uint64_t comm = 0;
  std::int32_t peer = -1;
  std::int32_t tag = -1;
  std::int64_t count = -1;
  std::int64_t bytes = -1;
  mqs_taddr_t buffer = 0;
  std::int32_t collClass = -1;  ///< -1, or a valid mqs_comm_class
  std::uint64_t collCall = 0;
  std::uint64_t collSeq = 0;
  std::uint64_t issued = 0;
};

/// The "call" record read consistently (seqlock); only while function != 0.
struct Call {
  std::uint32_t function = 0;
  std::uint32_t peerRole = 0;
  bool hasTag = false;
  std::int32_t peer = 0;
  std::int32_t tag = 0;
  std::uint64_t comm = 0;
  std::uint64_t collCall = 0;
  std::uint64_t seq = 0;
  std::int32_t requestCount = 0;        ///< as the runtime says (>= 0)
  std::vector<std::uint64_t> requests;  ///< the first min(requestCount, 64) handles
};

/// One "coll" history record.
struct CollRecord {
  std::uint64_t comm = 0;
  std::uint64_t seq = 0;
  std::uint32_t function = 0;
  std::int32_t root = -1;
  std::int64_t count = -1;
};

/// The runtime's table of MPI function names (root.function_names).
class FunctionNames {
 public:
  FunctionNames() = default;
  explicit FunctionNames(std::vector<std::string> names) : names_(std::move(names)) {}
  /// The name at `index`: "" for 0 (no function), "unknown function N" when
  /// out of range.
  std::string nameOf(std::uint32_t index) const;

 private:
  std::vector<std::string> names_;
};

/// Reads the runtime's state rooted at symbol mpidbg_state following a
/// validated Layout. Everything read is treated as hostile: capacities and
/// sizes are bounded (kMax*), addresses are checked by Target, strings are
/// cleaned, seqlocked records ("comm", "call") are re-read until their
/// version is even and unchanged (at most kSeqlockTries times).
class StateReader {
 public:
  static constexpr std::uint32_t kMaxSlots = 1u << 16;   ///< comm, op, history capacity
  static constexpr std::int32_t kMaxCommSize = 1 << 22;  ///< ranks in one communicator
  static constexpr std::uint32_t kMaxFunctions = 4096;
  static constexpr std::uint32_t kMaxFunctionNameLen = 256;
  static constexpr std::int32_t kMaxRequests = 1 << 24;
  static constexpr std::size_t kCallRequestsKept = 64;
  static constexpr int kSeqlockTries = 8;

  StateReader(const Target& target, const Layout& layout, mqs_taddr_t state) noexcept
      : target_(target), layout_(layout), state_(state) {}

  /// The root. Errors: kErrNotAttached (magic 0: before MPI_Init),
  /// kErrRootMagic, kErrCapacity, kErrFetchFailed, kErrBadAddress.
  Result<Root> root() const;

  /// Every live communicator slot, in slot order; slots that stay torn, are
  /// corrupt, or repeat an earlier slot's handle are skipped (named through
  /// debugPrint). Errors of reading the slot array.
  Result<std::vector<Comm>> comms(const Root& root) const;

  /// Every live op slot, in issue order (op.issued). With op.version in the
  /// table the array is read twice and a slot is kept only when it is live
  /// with the same even version in both reads (else re-read alone, at most
  /// kSeqlockTries times, then skipped). Corrupt slots are skipped.
  Result<std::vector<Op>> ops(const Root& root) const;

  /// The call the process is inside, or nullopt when none (or root.call is 0).
  /// Errors: kErrTorn, kErrCapacity, fetch errors.
  Result<std::optional<Call>> call(const Root& root) const;

  /// The collective history, oldest record first: min(history_next,
  /// history_capacity) records ending at (history_next - 1) % capacity.
  /// With coll.stamp in the table, record i is kept only when its stamp is
  /// i + 1 in two reads of the ring (one being written is skipped).
  Result<std::vector<CollRecord>> history(const Root& root) const;

  /// The function-name table. Errors: kErrNameTable, fetch errors.
  Result<FunctionNames> functionNames(const Root& root) const;

 private:
  Result<std::vector<std::byte>> slotArray(mqs_taddr_t base, std::uint32_t capacity,
                                           TypeId type) const;
  /// The same slot array read a second time, for comparing with the first
  /// (seqlocked or stamped slots); empty when `wanted` is false.
  Result<std::vector<std::byte>> secondRead(bool wanted, mqs_taddr_t base, std::uint32_t capacity,
                                            TypeId type) const;
  Result<std::optional<std::vector<std::byte>>> settledOp(mqs_taddr_t slot) const;
  Result<std::optional<Comm>> commAt(mqs_taddr_t slot, std::span<const std::byte> first,
                                     std::int32_t worldSize) const;

  const Target& target_;
  const Layout& layout_;
  mqs_taddr_t state_;
};

}  // namespace mpidbg::mqs
