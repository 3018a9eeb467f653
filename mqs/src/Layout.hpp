#pragma once

#include <array>
#include <cstdint>

#include "Errors.hpp"
#include "Target.hpp"

namespace mpidbg::mqs {

/// The runtime's exported types the DLL reads (common/include/mpidbg/StateLayout.h).
enum class TypeId : std::uint8_t { Root, Comm, Op, Coll, Call, Count_ };

/// Every field the DLL reads, named <Type><Field> after the table's spelling
/// ("comm" "world_ranks" is CommWorldRanks). Each has a row in a valid table,
/// except the optional ones at the end.
enum class Field : std::uint8_t {
  RootMagic,
  RootWorldRank,
  RootWorldSize,
  RootPhase,
  RootComms,
  RootCommCapacity,
  RootOps,
  RootOpCapacity,
  RootHistory,
  RootHistoryCapacity,
  RootHistoryNext,
  RootCall,
  RootFunctionNames,
  RootFunctionCount,
  RootFunctionNameLen,
  CommState,
  CommVersion,
  CommHandle,
  CommSize,
  CommLocalRank,
  CommName,
  CommWorldRanks,
  CommCollSeq,
  CommUid,
  CommEntries,
  CommExits,
  OpState,
  OpKind,
  OpFunction,
  OpFlags,
  OpRequest,
  OpComm,
  OpPeer,
  OpTag,
  OpCount,
  OpBytes,
  OpBuffer,
  OpCollClass,
  OpCollCall,
  OpCollSeq,
  OpIssued,
  CollComm,
  CollSeq,
  CollFunction,
  CollRoot,
  CollCount,
  CallVersion,
  CallFunction,
  CallPeerRole,
  CallHasTag,
  CallPeer,
  CallTag,
  CallComm,
  CallCollCall,
  CallSeq,
  CallRequests,
  CallRequestCount,
  // Optional (added to StateLayout.h without a version bump): read when the
  // table has them, see Layout::has().
  RootOpOverflow,
  OpVersion,
  CollStamp,
  Count_
};

/// Where a field is in its type: bytes from the start of the type.
struct FieldLoc {
  std::uint32_t offset = 0;
  std::uint32_t size = 0;
};

/// The runtime's layout table (symbol mpidbg_layout), validated: every type
/// and required field of TypeId/Field present once (optional fields at most
/// once), of the size its kind needs
/// (u32/i32 4 bytes, u64/i64 8, addresses 4 or 8, names 1 to 4096, the
/// per-class counters u64 arrays of at least 14), inside its type, and every
/// type between 1 byte and kMaxTypeSize. After read() succeeds, any record
/// buffer of typeSize(t) bytes can be decoded without further checks.
class Layout {
 public:
  /// Largest type size accepted (corrupt tables claim more).
  static constexpr std::uint32_t kMaxTypeSize = 64u << 10;
  /// Bytes of a request handle in the MPI_Wait* array when the table has no
  /// "request" type row (MPICH: MPI_Request is an int).
  static constexpr std::uint32_t kDefaultRequestSize = 4;

  /// Reads and validates the table at `address`. Errors: kErrFetchFailed,
  /// kErrBadAddress, kErrLayoutMagic, kErrLayoutVersion, kErrLayoutCount,
  /// kErrLayoutName, kErrLayoutMissingRow, kErrLayoutFieldSize,
  /// kErrLayoutTypeSize (the offending row is named through debugPrint).
  static Result<Layout> read(const Target& target, mqs_taddr_t address);

  std::uint32_t typeSize(TypeId type) const noexcept {
    return typeSizes_[static_cast<std::size_t>(type)];
  }
  FieldLoc at(Field field) const noexcept { return fields_[static_cast<std::size_t>(field)]; }
  /// Whether the table has `field` (always true for required fields).
  bool has(Field field) const noexcept { return present_[static_cast<std::size_t>(field)]; }
  /// Bytes of one MPI_Request in the call's request array: the size of the
  /// optional "request" type row, else kDefaultRequestSize.
  std::uint32_t requestSize() const noexcept { return requestSize_; }

 private:
  std::array<std::uint32_t, static_cast<std::size_t>(TypeId::Count_)> typeSizes_{};
  std::array<FieldLoc, static_cast<std::size_t>(Field::Count_)> fields_{};
  std::array<bool, static_cast<std::size_t>(Field::Count_)> present_{};
  std::uint32_t requestSize_ = kDefaultRequestSize;
};

/// "root", "comm", ... as the table spells the type.
const char* typeName(TypeId type) noexcept;

}  // namespace mpidbg::mqs
