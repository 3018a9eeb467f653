#include "StateReader.hpp"

#include <algorithm>

#include "Callbacks.hpp"
#include "mpidbg/StateLayout.h"

namespace mpidbg::mqs {
namespace {
using F = Field;

// How an op slot looked in two reads (StateLayout.h, "op".version).
enum class SlotRead { Live, Gone, Changing };
SlotRead compareReads(const RecordView& before, const RecordView& after) {
  const bool liveBefore = before.u(F::OpState) == MPIDBG_SLOT_LIVE;
  const bool liveAfter = after.u(F::OpState) == MPIDBG_SLOT_LIVE;
  if (!liveBefore && !liveAfter) return SlotRead::Gone;
  const std::uint64_t version = before.u(F::OpVersion);
  if (liveBefore && liveAfter && !(version & 1) && version == after.u(F::OpVersion))
    return SlotRead::Live;
  return SlotRead::Changing;
}

// Re-reads the 4- or 8-byte version field of the record at `record`.
Result<std::uint64_t> versionAt(const Target& target, const Layout& layout, mqs_taddr_t record,
                                Field field) {
  const FieldLoc loc = layout.at(field);
  std::byte bytes[8];
  if (auto ok = target.fetch(record + loc.offset, std::span(bytes, loc.size)); !ok)
    return std::unexpected(ok.error());
  return target.toUnsigned(bytes, loc.size);
}
}  // namespace

std::string FunctionNames::nameOf(std::uint32_t index) const {
  if (index < names_.size()) return names_[index];
  if (index == 0) return "";
  return "unknown function " + std::to_string(index);
}

Result<Root> StateReader::root() const {
  auto bytes = target_.fetchBytes(state_, layout_.typeSize(TypeId::Root));
  if (!bytes) return std::unexpected(bytes.error());
  const RecordView r(layout_, target_, *bytes);
  const std::uint64_t magic = r.u(F::RootMagic);
  if (magic == 0) return failWith(kErrNotAttached);
  if (magic != MPIDBG_LAYOUT_MAGIC) {
    debugPrint("state root magic is 0x%llx", static_cast<unsigned long long>(magic));
    return failWith(kErrRootMagic);
  }
  Root root;
  root.worldRank = static_cast<std::int32_t>(r.s(F::RootWorldRank));
  root.worldSize = static_cast<std::int32_t>(r.s(F::RootWorldSize));
  root.phase = static_cast<std::uint32_t>(r.u(F::RootPhase));
  root.comms = r.u(F::RootComms);
  root.commCapacity = static_cast<std::uint32_t>(r.u(F::RootCommCapacity));
  root.ops = r.u(F::RootOps);
  root.opCapacity = static_cast<std::uint32_t>(r.u(F::RootOpCapacity));
  root.history = r.u(F::RootHistory);
  root.historyCapacity = static_cast<std::uint32_t>(r.u(F::RootHistoryCapacity));
  root.historyNext = r.u(F::RootHistoryNext);
  root.call = r.u(F::RootCall);
  root.functionNames = r.u(F::RootFunctionNames);
  root.functionCount = static_cast<std::uint32_t>(r.u(F::RootFunctionCount));
  root.functionNameLen = static_cast<std::uint32_t>(r.u(F::RootFunctionNameLen));
  if (layout_.has(F::RootOpOverflow)) root.opOverflow = r.u(F::RootOpOverflow);
  if (root.commCapacity > kMaxSlots || root.opCapacity > kMaxSlots ||
      root.historyCapacity > kMaxSlots || root.worldSize < 0 || root.worldSize > kMaxCommSize) {
    debugPrint("state root: comm_capacity %u, op_capacity %u, history_capacity %u, world_size %d",
               root.commCapacity, root.opCapacity, root.historyCapacity, root.worldSize);
    return failWith(kErrCapacity);
  }
  return root;
}

Result<std::vector<std::byte>> StateReader::slotArray(mqs_taddr_t base, std::uint32_t capacity,
                                                      TypeId type) const {
  if (capacity == 0) return std::vector<std::byte>{};
  const std::uint64_t bytes = std::uint64_t{capacity} * layout_.typeSize(type);
  if (bytes > Target::kMaxRead) return failWith(kErrCapacity);
  return target_.fetchBytes(base, static_cast<std::size_t>(bytes));
}

Result<std::vector<std::byte>> StateReader::secondRead(bool wanted, mqs_taddr_t base, std::uint32_t capacity,
                                                       TypeId type) const {
  if (!wanted) return std::vector<std::byte>{};
  return slotArray(base, capacity, type);
}

Result<std::vector<Comm>> StateReader::comms(const Root& root) const {
  auto array = slotArray(root.comms, root.commCapacity, TypeId::Comm);
  if (!array) return std::unexpected(array.error());
  const std::size_t stride = layout_.typeSize(TypeId::Comm);
  std::vector<Comm> out;
  for (std::uint32_t i = 0; i < root.commCapacity; ++i) {
    const std::span<const std::byte> first(array->data() + i * stride, stride);
    if (RecordView(layout_, target_, first).u(F::CommState) != MPIDBG_SLOT_LIVE) continue;
    auto comm = commAt(root.comms + i * stride, first, root.worldSize);
    if (!comm) return std::unexpected(comm.error());
    if (!*comm) continue;
    // The registry is keyed by handle: a second live slot with the same
    // handle is corrupt, and a debugger keying by it would mix the two up.
    const bool duplicate = std::any_of(out.begin(), out.end(),
                                       [&](const Comm& c) { return c.handle == (*comm)->handle; });
    if (duplicate) {
      debugPrint("comm slot %u repeats handle 0x%llx; skipped", i,
                 static_cast<unsigned long long>((*comm)->handle));
      continue;
    }
    out.push_back(std::move(**comm));
  }
  return out;
}

Result<std::optional<Comm>> StateReader::commAt(mqs_taddr_t slot, std::span<const std::byte> first,
                                                std::int32_t worldSize) const {
  std::vector<std::byte> again;
  std::span<const std::byte> bytes = first;
  for (int attempt = 0; attempt < kSeqlockTries; ++attempt) {
    if (attempt > 0) {
      auto fresh = target_.fetchBytes(slot, first.size());
      if (!fresh) return std::unexpected(fresh.error());
      again = std::move(*fresh);
      bytes = again;
    }
    const RecordView r(layout_, target_, bytes);
    if (r.u(F::CommState) != MPIDBG_SLOT_LIVE) return std::nullopt;  // freed meanwhile
    const std::uint64_t before = r.u(F::CommVersion);
    if (before & 1) continue;  // a writer is inside
    Comm comm;
    comm.handle = r.u(F::CommHandle);
    comm.size = static_cast<std::int32_t>(r.s(F::CommSize));
    comm.localRank = static_cast<std::int32_t>(r.s(F::CommLocalRank));
    comm.name = r.text(F::CommName, 63);
    comm.collSeq = r.u(F::CommCollSeq);
    if (layout_.has(F::CommUid)) comm.uid = r.u(F::CommUid);
    for (std::size_t c = 0; c < comm.entries.size(); ++c) {
      comm.entries[c] = r.counter(F::CommEntries, c);
      comm.exits[c] = r.counter(F::CommExits, c);
    }
    const bool sane = comm.size > 0 && comm.size <= kMaxCommSize && comm.localRank >= 0 &&
                      comm.localRank < comm.size;
    if (sane) {
      if (const mqs_taddr_t ranks = r.u(F::CommWorldRanks); ranks != 0) {
        auto raw = target_.fetchBytes(ranks, std::size_t(comm.size) * 4);
        if (raw) {
          comm.worldRanks.resize(comm.size);
          for (std::int32_t k = 0; k < comm.size; ++k) {
            const auto w = static_cast<std::int32_t>(target_.toSigned(raw->data() + 4 * k, 4));
            comm.worldRanks[k] = (w >= 0 && (worldSize == 0 || w < worldSize)) ? w : -1;
          }
        } else {
          debugPrint("comm 0x%llx: world_ranks at 0x%lx unreadable",
                     static_cast<unsigned long long>(comm.handle), ranks);
        }
      }
    }
    auto after = versionAt(target_, layout_, slot, F::CommVersion);
    if (!after) return std::unexpected(after.error());
    if (*after != before) continue;
    if (!sane) {
      debugPrint("comm slot at 0x%lx: size %d, local_rank %d; skipped", slot, comm.size,
                 comm.localRank);
      return std::nullopt;
    }
    return comm;
  }
  debugPrint("comm slot at 0x%lx kept changing while read; skipped", slot);
  return std::nullopt;
}

Result<std::optional<std::vector<std::byte>>> StateReader::settledOp(mqs_taddr_t slot) const {
  const std::size_t stride = layout_.typeSize(TypeId::Op);
  for (int attempt = 0; attempt < kSeqlockTries; ++attempt) {
    auto before = target_.fetchBytes(slot, stride);
    if (!before) return std::unexpected(before.error());
    auto after = target_.fetchBytes(slot, stride);
    if (!after) return std::unexpected(after.error());
    switch (
        compareReads(RecordView(layout_, target_, *before), RecordView(layout_, target_, *after))) {
      case SlotRead::Live:
        return std::move(*before);
      case SlotRead::Gone:
        return std::nullopt;
      case SlotRead::Changing:
        break;
    }
  }
  debugPrint("op slot at 0x%lx kept changing while read; skipped", slot);
  return std::nullopt;
}

Result<std::vector<Op>> StateReader::ops(const Root& root) const {
  auto first = slotArray(root.ops, root.opCapacity, TypeId::Op);
  if (!first) return std::unexpected(first.error());
  const bool seqlock = layout_.has(F::OpVersion);
  auto reread = secondRead(seqlock, root.ops, root.opCapacity, TypeId::Op);
  if (!reread) return std::unexpected(reread.error());
  std::vector<std::byte> second = std::move(*reread);
  const std::size_t stride = layout_.typeSize(TypeId::Op);
  std::vector<Op> out;
  for (std::uint32_t i = 0; i < root.opCapacity; ++i) {
    std::span<const std::byte> bytes(first->data() + i * stride, stride);
    std::optional<std::vector<std::byte>> settled;
    const RecordView a(layout_, target_, bytes);
    if (!seqlock) {
      if (a.u(F::OpState) != MPIDBG_SLOT_LIVE) continue;
    } else {
      const RecordView b(layout_, target_, std::span(second.data() + i * stride, stride));
      const SlotRead read = compareReads(a, b);
      if (read == SlotRead::Gone) continue;
      if (read == SlotRead::Changing) {
        auto fresh = settledOp(root.ops + i * stride);
        if (!fresh) return std::unexpected(fresh.error());
        if (!*fresh) continue;
        settled = std::move(*fresh);
        bytes = *settled;
      }
    }
    const RecordView r(layout_, target_, bytes);
    Op op;
    op.kind = static_cast<std::uint32_t>(r.u(F::OpKind));
    if (op.kind == MPIDBG_OP_RMA) continue;  // one-sided requests: no queue of the interface shows them
    if (op.kind > MPIDBG_OP_COLLECTIVE) {
      debugPrint("op slot %u has kind %u; skipped", i, op.kind);
      continue;
    }
    op.function = static_cast<std::uint32_t>(r.u(F::OpFunction));
    op.flags = static_cast<std::uint32_t>(r.u(F::OpFlags));
    op.request = r.u(F::OpRequest);
    op.comm = r.u(F::OpComm);
    op.peer = static_cast<std::int32_t>(r.s(F::OpPeer));
    op.tag = static_cast<std::int32_t>(r.s(F::OpTag));
    op.count = r.s(F::OpCount);
    op.bytes = r.s(F::OpBytes);
    op.buffer = r.u(F::OpBuffer);
    op.collClass = static_cast<std::int32_t>(r.s(F::OpCollClass));
    if (op.collClass < -1 || op.collClass >= mqs_comm_class_count) op.collClass = -1;
    op.collCall = r.u(F::OpCollCall);
    op.collSeq = r.u(F::OpCollSeq);
    op.issued = r.u(F::OpIssued);
    out.push_back(op);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Op& a, const Op& b) { return a.issued < b.issued; });
  return out;
}

Result<std::optional<Call>> StateReader::call(const Root& root) const {
  if (root.call == 0) return std::nullopt;
  const std::size_t size = layout_.typeSize(TypeId::Call);
  for (int attempt = 0; attempt < kSeqlockTries; ++attempt) {
    auto bytes = target_.fetchBytes(root.call, size);
    if (!bytes) return std::unexpected(bytes.error());
    const RecordView r(layout_, target_, *bytes);
    const std::uint64_t before = r.u(F::CallVersion);
    if (before & 1) continue;
    Call call;
    call.function = static_cast<std::uint32_t>(r.u(F::CallFunction));
    if (call.function == 0) return std::nullopt;
    call.peerRole = static_cast<std::uint32_t>(r.u(F::CallPeerRole));
    call.hasTag = r.u(F::CallHasTag) != 0;
    call.peer = static_cast<std::int32_t>(r.s(F::CallPeer));
    call.tag = static_cast<std::int32_t>(r.s(F::CallTag));
    call.comm = r.u(F::CallComm);
    call.collCall = r.u(F::CallCollCall);
    call.seq = r.u(F::CallSeq);
    call.requestCount = static_cast<std::int32_t>(r.s(F::CallRequestCount));
    if (call.requestCount < 0 || call.requestCount > kMaxRequests) {
      debugPrint("call record: request_count %d", call.requestCount);
      return failWith(kErrCapacity);
    }
    const mqs_taddr_t requests = r.u(F::CallRequests);
    const std::size_t keep = std::min<std::size_t>(call.requestCount, kCallRequestsKept);
    if (requests != 0 && keep > 0) {
      const std::size_t each = layout_.requestSize();
      auto raw = target_.fetchBytes(requests, keep * each);
      if (!raw) return std::unexpected(raw.error());
      for (std::size_t k = 0; k < keep; ++k)
        call.requests.push_back(target_.toUnsigned(raw->data() + k * each, each));
    }
    auto after = versionAt(target_, layout_, root.call, F::CallVersion);
    if (!after) return std::unexpected(after.error());
    if (*after == before) return call;
  }
  return failWith(kErrTorn);
}

Result<std::vector<CollRecord>> StateReader::history(const Root& root) const {
  auto first = slotArray(root.history, root.historyCapacity, TypeId::Coll);
  if (!first) return std::unexpected(first.error());
  std::vector<CollRecord> out;
  if (root.historyCapacity == 0) return out;
  const bool stamped = layout_.has(F::CollStamp);
  auto reread = secondRead(stamped, root.history, root.historyCapacity, TypeId::Coll);
  if (!reread) return std::unexpected(reread.error());
  std::vector<std::byte> second = std::move(*reread);
  const std::uint64_t cap = root.historyCapacity;
  const std::uint64_t n = std::min(root.historyNext, cap);
  const std::size_t stride = layout_.typeSize(TypeId::Coll);
  std::uint64_t skipped = 0;
  for (std::uint64_t index = root.historyNext - n; index != root.historyNext; ++index) {
    const std::size_t slot = static_cast<std::size_t>(index % cap);
    const RecordView r(layout_, target_, std::span(first->data() + slot * stride, stride));
    if (stamped) {
      const RecordView after(layout_, target_, std::span(second.data() + slot * stride, stride));
      if (r.u(F::CollStamp) != index + 1 || after.u(F::CollStamp) != index + 1) {
        ++skipped;
        continue;
      }
    }
    CollRecord rec;
    rec.comm = r.u(F::CollComm);
    rec.seq = r.u(F::CollSeq);
    rec.function = static_cast<std::uint32_t>(r.u(F::CollFunction));
    rec.root = static_cast<std::int32_t>(r.s(F::CollRoot));
    rec.count = r.s(F::CollCount);
    out.push_back(rec);
  }
  if (skipped > 0)
    debugPrint("%llu history records were being written (stamp mismatch); skipped",
               static_cast<unsigned long long>(skipped));
  return out;
}

Result<FunctionNames> StateReader::functionNames(const Root& root) const {
  if (root.functionCount == 0) return FunctionNames{};
  if (root.functionCount > kMaxFunctions || root.functionNameLen < 2 ||
      root.functionNameLen > kMaxFunctionNameLen || root.functionNames == 0) {
    debugPrint("function names: %u names of %u bytes at 0x%lx", root.functionCount,
               root.functionNameLen, root.functionNames);
    return failWith(kErrNameTable);
  }
  auto raw = target_.fetchBytes(root.functionNames,
                                std::size_t(root.functionCount) * root.functionNameLen);
  if (!raw) return std::unexpected(raw.error());
  std::vector<std::string> names;
  names.reserve(root.functionCount);
  for (std::uint32_t i = 0; i < root.functionCount; ++i)
    names.push_back(cleanText(
        std::span(raw->data() + std::size_t(i) * root.functionNameLen, root.functionNameLen),
        root.functionNameLen - 1));
  return FunctionNames(std::move(names));
}

}  // namespace mpidbg::mqs
