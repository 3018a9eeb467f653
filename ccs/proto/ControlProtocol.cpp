// Execution-control records between the front end and the runtime (format in
// ccs/proto/ControlProtocol.hpp, each message's keys listed there once; the
// encoders and decoders come from ccs/proto/Message.hpp).
#include "ccs/proto/ControlProtocol.hpp"

#include "ccs/proto/Message.hpp"

namespace mpidbg::ccs::proto {

std::string_view breakKindName(BreakKind k) noexcept {
  const auto index = static_cast<std::size_t>(k);
  return index < kBreakKindNames.size() ? kBreakKindNames[index] : kBreakKindNames[0];
}

std::string encode(const Breakpoint& b) { return encodeRecord(b); }

Expected<Breakpoint> decodeBreakpoint(std::string_view text) { return decodeRecord<Breakpoint>(text); }

std::string encode(std::span<const Breakpoint> list) { return encodeRecords(list); }

Expected<std::vector<Breakpoint>> decodeBreakpoints(std::string_view text) {
  return decodeRecords<Breakpoint>(text, "breakpoint list");
}

std::string encode(const BreakpointRef& r) { return encodeRecord(r); }

Expected<BreakpointRef> decodeBreakpointRef(std::string_view text) { return decodeRecord<BreakpointRef>(text); }

std::string encode(const BreakpointEnable& r) { return encodeRecord(r); }

Expected<BreakpointEnable> decodeBreakpointEnable(std::string_view text) {
  return decodeRecord<BreakpointEnable>(text);
}

std::string encode(const FreezeRequest& r) { return encodeRecord(r); }

Expected<FreezeRequest> decodeFreezeRequest(std::string_view text) { return decodeRecord<FreezeRequest>(text); }

std::string encode(const StepRequest& r) { return encodeRecord(r); }

Expected<StepRequest> decodeStepRequest(std::string_view text) { return decodeRecord<StepRequest>(text); }

std::string encode(std::span<const EntryInfo> entries) { return encodeRecords(entries); }

Expected<std::vector<EntryInfo>> decodeEntries(std::string_view text) {
  return decodeRecords<EntryInfo>(text, "entry list");
}

std::string encode(const ControlReply& r) { return encodeRecord(r); }

Expected<ControlReply> decodeControlReply(std::string_view text) {
  // Exactly one record: an empty text is no reply at all.
  auto record = parseOne(text, ControlReply::kName);
  if (!record) return std::unexpected(record.error());
  return fromRecord<ControlReply>(*record);
}

Expected<std::vector<ControlReply>> decodeControlReplies(std::string_view text) {
  return decodeRecords<ControlReply>(text, "control replies");
}

}  // namespace mpidbg::ccs::proto
