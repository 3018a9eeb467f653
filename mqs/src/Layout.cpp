#include "Layout.hpp"

#include <cstddef>
#include <cstring>
#include <string_view>

#include "Callbacks.hpp"
#include "mpidbg/StateLayout.h"

namespace mpidbg::mqs {
namespace {

// How a field is read, hence which sizes are acceptable.
enum class Kind : std::uint8_t { U32, I32, U64, I64, Addr, Text, Counters };

struct Spec {
  Field field;
  TypeId type;
  const char* name;
  Kind kind;
  bool optional = false;
};

using T = TypeId;
using F = Field;
// The fields documented in StateLayout.h that the DLL reads, in Field order.
constexpr Spec kSpecs[] = {
    {F::RootMagic, T::Root, "magic", Kind::U64},
    {F::RootWorldRank, T::Root, "world_rank", Kind::I32},
    {F::RootWorldSize, T::Root, "world_size", Kind::I32},
    {F::RootPhase, T::Root, "phase", Kind::U32},
    {F::RootComms, T::Root, "comms", Kind::Addr},
    {F::RootCommCapacity, T::Root, "comm_capacity", Kind::U32},
    {F::RootOps, T::Root, "ops", Kind::Addr},
    {F::RootOpCapacity, T::Root, "op_capacity", Kind::U32},
    {F::RootHistory, T::Root, "history", Kind::Addr},
    {F::RootHistoryCapacity, T::Root, "history_capacity", Kind::U32},
    {F::RootHistoryNext, T::Root, "history_next", Kind::U64},
    {F::RootCall, T::Root, "call", Kind::Addr},
    {F::RootFunctionNames, T::Root, "function_names", Kind::Addr},
    {F::RootFunctionCount, T::Root, "function_count", Kind::U32},
    {F::RootFunctionNameLen, T::Root, "function_name_len", Kind::U32},
    {F::CommState, T::Comm, "state", Kind::U32},
    {F::CommVersion, T::Comm, "version", Kind::U32},
    {F::CommHandle, T::Comm, "handle", Kind::U64},
    {F::CommSize, T::Comm, "size", Kind::I32},
    {F::CommLocalRank, T::Comm, "local_rank", Kind::I32},
    {F::CommName, T::Comm, "name", Kind::Text},
    {F::CommWorldRanks, T::Comm, "world_ranks", Kind::Addr},
    {F::CommCollSeq, T::Comm, "coll_seq", Kind::U64},
    {F::CommUid, T::Comm, "uid", Kind::U64, true},
    {F::CommEntries, T::Comm, "entries", Kind::Counters},
    {F::CommExits, T::Comm, "exits", Kind::Counters},
    {F::OpState, T::Op, "state", Kind::U32},
    {F::OpKind, T::Op, "kind", Kind::U32},
    {F::OpFunction, T::Op, "function", Kind::U32},
    {F::OpFlags, T::Op, "flags", Kind::U32},
    {F::OpRequest, T::Op, "request", Kind::U64},
    {F::OpComm, T::Op, "comm", Kind::U64},
    {F::OpPeer, T::Op, "peer", Kind::I32},
    {F::OpTag, T::Op, "tag", Kind::I32},
    {F::OpCount, T::Op, "count", Kind::I64},
    {F::OpBytes, T::Op, "bytes", Kind::I64},
    {F::OpBuffer, T::Op, "buffer", Kind::Addr},
    {F::OpCollClass, T::Op, "coll_class", Kind::I32},
    {F::OpCollCall, T::Op, "coll_call", Kind::U64},
    {F::OpCollSeq, T::Op, "coll_seq", Kind::U64},
    {F::OpIssued, T::Op, "issued", Kind::U64},
    {F::CollComm, T::Coll, "comm", Kind::U64},
    {F::CollSeq, T::Coll, "coll_seq", Kind::U64},
    {F::CollFunction, T::Coll, "function", Kind::U32},
    {F::CollRoot, T::Coll, "root", Kind::I32},
    {F::CollCount, T::Coll, "count", Kind::I64},
    {F::CallVersion, T::Call, "version", Kind::U32},
    {F::CallFunction, T::Call, "function", Kind::U32},
    {F::CallPeerRole, T::Call, "peer_role", Kind::U32},
    {F::CallHasTag, T::Call, "has_tag", Kind::U32},
    {F::CallPeer, T::Call, "peer", Kind::I32},
    {F::CallTag, T::Call, "tag", Kind::I32},
    {F::CallComm, T::Call, "comm", Kind::U64},
    {F::CallCollCall, T::Call, "coll_call", Kind::U64},
    {F::CallSeq, T::Call, "seq", Kind::U64},
    {F::CallRequests, T::Call, "requests", Kind::Addr},
    {F::CallRequestCount, T::Call, "request_count", Kind::I32},
    {F::RootOpOverflow, T::Root, "op_overflow", Kind::U64, true},
    {F::OpVersion, T::Op, "version", Kind::U32, true},
    {F::CollStamp, T::Coll, "stamp", Kind::U64, true},
};
static_assert(std::size(kSpecs) == static_cast<std::size_t>(Field::Count_));
constexpr bool specsInFieldOrder() {
  for (std::size_t i = 0; i < std::size(kSpecs); ++i)
    if (static_cast<std::size_t>(kSpecs[i].field) != i) return false;
  return true;
}
static_assert(specsInFieldOrder(), "kSpecs must list the fields in Field order");

constexpr const char* kTypeNames[] = {"root", "comm", "op", "coll", "call"};
static_assert(std::size(kTypeNames) == static_cast<std::size_t>(TypeId::Count_));

// The table's fixed layout (StateLayout.h): the host's and the target's C
// layouts agree because both are LP64 Linux with natural alignment.
constexpr std::size_t kHeaderSize = offsetof(mpidbg_layout_table, fields);
constexpr std::size_t kRowSize = sizeof(mpidbg_layout_field);
static_assert(kHeaderSize == 16 && kRowSize == 2 * MPIDBG_LAYOUT_NAME_LEN + 8);

bool sizeFits(Kind kind, std::uint32_t size) {
  switch (kind) {
    case Kind::U32:
    case Kind::I32:
      return size == 4;
    case Kind::U64:
    case Kind::I64:
      return size == 8;
    case Kind::Addr:
      return size == 4 || size == 8;
    case Kind::Text:
      return size >= 1 && size <= 4096;
    case Kind::Counters:
      return size % 8 == 0 && size / 8 >= mqs_comm_class_count && size <= 4096;
  }
  return false;
}

// The NUL-terminated name at `p` (MPIDBG_LAYOUT_NAME_LEN bytes), or nothing
// when it has no NUL.
bool rowName(const std::byte* p, std::string_view& out) {
  const void* nul = std::memchr(p, 0, MPIDBG_LAYOUT_NAME_LEN);
  if (nul == nullptr) return false;
  out = std::string_view(reinterpret_cast<const char*>(p), static_cast<const std::byte*>(nul) - p);
  return true;
}

}  // namespace

const char* typeName(TypeId type) noexcept {
  const auto i = static_cast<std::size_t>(type);
  return i < std::size(kTypeNames) ? kTypeNames[i] : "?";
}

Result<Layout> Layout::read(const Target& target, mqs_taddr_t address) {
  std::byte header[kHeaderSize];
  if (auto ok = target.fetch(address, header); !ok) return std::unexpected(ok.error());
  const std::uint64_t magic = target.toUnsigned(header + offsetof(mpidbg_layout_table, magic), 8);
  if (magic != MPIDBG_LAYOUT_MAGIC) {
    debugPrint("layout table magic is 0x%llx, expected 0x%llx",
               static_cast<unsigned long long>(magic), MPIDBG_LAYOUT_MAGIC);
    return failWith(kErrLayoutMagic);
  }
  const auto version = target.toUnsigned(header + offsetof(mpidbg_layout_table, version), 4);
  if (version != MPIDBG_LAYOUT_VERSION) {
    debugPrint("layout table version %llu, this DLL reads %u",
               static_cast<unsigned long long>(version), MPIDBG_LAYOUT_VERSION);
    return failWith(kErrLayoutVersion);
  }
  const auto count = target.toUnsigned(header + offsetof(mpidbg_layout_table, count), 4);
  if (count == 0 || count > MPIDBG_LAYOUT_MAX_FIELDS) {
    debugPrint("layout table claims %llu rows (room for %d)",
               static_cast<unsigned long long>(count), MPIDBG_LAYOUT_MAX_FIELDS);
    return failWith(kErrLayoutCount);
  }
  auto rows = target.fetchBytes(address + kHeaderSize, count * kRowSize);
  if (!rows) return std::unexpected(rows.error());

  Layout layout;
  std::array<bool, static_cast<std::size_t>(TypeId::Count_)> haveType{};
  auto& haveField = layout.present_;
  bool haveRequest = false;
  for (std::size_t r = 0; r < count; ++r) {
    const std::byte* row = rows->data() + r * kRowSize;
    std::string_view type, field;
    if (!rowName(row + offsetof(mpidbg_layout_field, type), type) ||
        !rowName(row + offsetof(mpidbg_layout_field, field), field)) {
      debugPrint("layout row %zu has an unterminated name", r);
      return failWith(kErrLayoutName);
    }
    const auto offset = static_cast<std::uint32_t>(
        target.toUnsigned(row + offsetof(mpidbg_layout_field, offset), 4));
    const auto size =
        static_cast<std::uint32_t>(target.toUnsigned(row + offsetof(mpidbg_layout_field, size), 4));
    bool* seen = nullptr;
    if (field.empty()) {
      if (type == "request") {
        if (size != 4 && size != 8) {
          debugPrint("layout: type request has size %u (expected 4 or 8)", size);
          return failWith(kErrLayoutFieldSize);
        }
        seen = &haveRequest;
        layout.requestSize_ = size;
      }
      for (std::size_t t = 0; t < haveType.size(); ++t)
        if (type == kTypeNames[t]) {
          seen = &haveType[t];
          layout.typeSizes_[t] = size;
        }
    } else {
      for (const Spec& spec : kSpecs)
        if (type == typeName(spec.type) && field == spec.name) {
          seen = &haveField[static_cast<std::size_t>(spec.field)];
          layout.fields_[static_cast<std::size_t>(spec.field)] = {offset, size};
        }
    }
    if (seen == nullptr) continue;  // a newer runtime's addition: not needed here
    if (*seen) {
      debugPrint("layout row %.*s.%.*s appears twice", static_cast<int>(type.size()), type.data(),
                 static_cast<int>(field.size()), field.data());
      return failWith(kErrLayoutName);
    }
    *seen = true;
  }

  for (std::size_t t = 0; t < haveType.size(); ++t) {
    if (!haveType[t]) {
      debugPrint("layout has no size row for type %s", kTypeNames[t]);
      return failWith(kErrLayoutMissingRow);
    }
    if (layout.typeSizes_[t] == 0 || layout.typeSizes_[t] > kMaxTypeSize) {
      debugPrint("layout: type %s has size %u", kTypeNames[t], layout.typeSizes_[t]);
      return failWith(kErrLayoutTypeSize);
    }
  }
  for (const Spec& spec : kSpecs) {
    const FieldLoc loc = layout.at(spec.field);
    if (!haveField[static_cast<std::size_t>(spec.field)]) {
      if (spec.optional) continue;
      debugPrint("layout has no row for %s.%s", typeName(spec.type), spec.name);
      return failWith(kErrLayoutMissingRow);
    }
    if (!sizeFits(spec.kind, loc.size) ||
        std::uint64_t{loc.offset} + loc.size > layout.typeSize(spec.type)) {
      debugPrint("layout: %s.%s at offset %u size %u does not fit (type size %u)",
                 typeName(spec.type), spec.name, loc.offset, loc.size, layout.typeSize(spec.type));
      return failWith(kErrLayoutFieldSize);
    }
  }
  return layout;
}

}  // namespace mpidbg::mqs
