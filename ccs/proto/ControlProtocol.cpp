// Execution-control records between the front end and the runtime (format in
// ccs/proto/ControlProtocol.hpp; the same text records as ccs/proto/RankProtocol.hpp).
#include "ccs/proto/ControlProtocol.hpp"

#include <charconv>
#include <map>

#include "ccs/proto/TextRecord.hpp"

namespace mpidbg::ccs::proto {
namespace {

Expected<Breakpoint> fromRecord(const Record& r, const std::string& prefix) {
  Breakpoint b;
  MPIDBG_TRY_ASSIGN(b.id, r.integer<std::int32_t>("id"));
  if (b.id <= 0) return fail(prefix + "key 'id' must be positive");
  std::string kind;
  MPIDBG_TRY_ASSIGN(kind, r.text("kind"));
  if (kind == "mpi") b.kind = BreakKind::Mpi;
  else if (kind == "entry") b.kind = BreakKind::Entry;
  else if (kind == "violation") b.kind = BreakKind::Violation;
  else return fail(prefix + "key 'kind' must be mpi, entry or violation, not '" + shorten(kind) + "'");
  MPIDBG_TRY_ASSIGN(b.target, r.text("target"));
  if (b.target.empty()) return fail(prefix + "key 'target' is empty");
  if (b.target.size() > kMaxTargetBytes)
    return fail(prefix + "key 'target' is longer than " + std::to_string(kMaxTargetBytes) + " bytes");
  b.condition = r.text("condition", "");
  if (b.condition.size() > kMaxConditionBytes)
    return fail(prefix + "key 'condition' is longer than " + std::to_string(kMaxConditionBytes) + " bytes");
  MPIDBG_TRY_ASSIGN(b.hit, r.integer<std::uint64_t>("hit"));
  MPIDBG_TRY_ASSIGN(b.enabled, r.flag("enabled"));
  if (r.has("hits")) MPIDBG_TRY_ASSIGN(b.hits, r.integer<std::uint64_t>("hits"));
  if (r.has("rank")) MPIDBG_TRY_ASSIGN(b.rank, r.integer<std::int32_t>("rank"));
  return b;
}

Expected<ControlReply> replyFromRecord(const Record& record, const std::string& prefix) {
  ControlReply r;
  std::string result;
  MPIDBG_TRY_ASSIGN(result, record.text("result"));
  if (result != "ok" && result != "error")
    return fail(prefix + "key 'result' must be ok or error, not '" + shorten(result) + "'");
  r.ok = result == "ok";
  r.message = record.text("message", "");
  if (!r.ok && r.message.empty()) return fail(prefix + "an error reply has no message");
  if (record.has("rank")) MPIDBG_TRY_ASSIGN(r.rank, record.integer<std::int32_t>("rank"));
  return r;
}

std::string encodeOne(const Breakpoint& b, bool withHits) {
  std::string out;
  putInt(out, "id", b.id);
  put(out, "kind", breakKindName(b.kind));
  put(out, "target", b.target);
  put(out, "condition", b.condition);
  putInt(out, "hit", b.hit);
  putInt(out, "enabled", b.enabled ? 1 : 0);
  if (withHits) putInt(out, "hits", b.hits);
  if (withHits && b.rank >= 0) putInt(out, "rank", b.rank);
  return out;
}

}  // namespace

std::string_view breakKindName(BreakKind k) noexcept {
  switch (k) {
    case BreakKind::Entry: return "entry";
    case BreakKind::Violation: return "violation";
    case BreakKind::Mpi: break;
  }
  return "mpi";
}

std::string encode(const Breakpoint& b) { return encodeOne(b, false); }

Expected<Breakpoint> decodeBreakpoint(std::string_view text) {
  auto record = parseOne(text, "breakpoint");
  if (!record) return std::unexpected(record.error());
  return fromRecord(*record, "bad breakpoint: ");
}

std::string encode(std::span<const Breakpoint> list) {
  std::string out;
  for (const Breakpoint& b : list) out += encodeOne(b, true) + "--\n";
  return out;
}

Expected<std::vector<Breakpoint>> decodeBreakpoints(std::string_view text) {
  auto records = parseRecords(text);
  if (!records) return fail("bad breakpoint list: " + records.error().message);
  std::vector<Breakpoint> out;
  for (std::size_t i = 0; i < records->size(); ++i) {
    auto b = fromRecord((*records)[i], "bad breakpoint record " + std::to_string(i) + ": ");
    if (!b) return std::unexpected(b.error());
    out.push_back(std::move(*b));
  }
  return out;
}

std::string encode(const BreakpointRef& r, bool withEnabled) {
  std::string out;
  putInt(out, "id", r.id);
  if (withEnabled) putInt(out, "enabled", r.enabled ? 1 : 0);
  return out;
}

Expected<BreakpointRef> decodeBreakpointRef(std::string_view input, bool withEnabled) {
  const std::string prefix = "bad breakpoint reference: ";
  auto record = parseOne(input, "breakpoint reference");
  if (!record) return std::unexpected(record.error());
  BreakpointRef r;
  MPIDBG_TRY_ASSIGN(r.id, record->integer<std::int32_t>("id"));
  if (withEnabled) MPIDBG_TRY_ASSIGN(r.enabled, record->flag("enabled"));
  return r;
}

std::string encode(const FreezeRequest& r) {
  std::string out;
  putInt(out, "now", r.now ? 1 : 0);
  return out;
}

Expected<FreezeRequest> decodeFreezeRequest(std::string_view input) {
  const std::string prefix = "bad freeze request: ";
  auto record = parseOne(input, "freeze request", true);
  if (!record) return std::unexpected(record.error());
  FreezeRequest r;
  if (record->has("now")) MPIDBG_TRY_ASSIGN(r.now, record->flag("now"));
  return r;
}

std::string encode(const StepRequest& r) {
  std::string out;
  putInt(out, "count", r.count);
  return out;
}

Expected<StepRequest> decodeStepRequest(std::string_view input) {
  const std::string prefix = "bad step request: ";
  auto record = parseOne(input, "step request", true);
  if (!record) return std::unexpected(record.error());
  StepRequest r;
  if (record->has("count")) MPIDBG_TRY_ASSIGN(r.count, record->integer<std::uint64_t>("count"));
  if (r.count == 0 || r.count > kMaxStepCount)
    return fail(prefix + "count must be between 1 and " + std::to_string(kMaxStepCount));
  return r;
}

std::string encode(std::span<const EntryInfo> entries) {
  std::string out;
  for (const EntryInfo& e : entries) {
    put(out, "name", e.name);
    putInt(out, "hits", e.hits);
    if (e.rank >= 0) putInt(out, "rank", e.rank);
    out += "--\n";
  }
  return out;
}

Expected<std::vector<EntryInfo>> decodeEntries(std::string_view input) {
  auto records = parseRecords(input);
  if (!records) return fail("bad entry list: " + records.error().message);
  std::vector<EntryInfo> out;
  for (std::size_t i = 0; i < records->size(); ++i) {
    const std::string prefix = "bad entry record " + std::to_string(i) + ": ";
    EntryInfo e;
    MPIDBG_TRY_ASSIGN(e.name, (*records)[i].text("name"));
    MPIDBG_TRY_ASSIGN(e.hits, (*records)[i].integer<std::uint64_t>("hits"));
    if ((*records)[i].has("rank")) MPIDBG_TRY_ASSIGN(e.rank, (*records)[i].integer<std::int32_t>("rank"));
    out.push_back(std::move(e));
  }
  return out;
}

std::string encode(const ControlReply& r) {
  std::string out;
  put(out, "result", r.ok ? "ok" : "error");
  if (!r.message.empty() || !r.ok) put(out, "message", r.message);
  if (r.rank >= 0) putInt(out, "rank", r.rank);
  return out + "--\n";
}

Expected<ControlReply> decodeControlReply(std::string_view input) {
  auto record = parseOne(input, "control reply");
  if (!record) return std::unexpected(record.error());
  return replyFromRecord(*record, "bad control reply: ");
}

Expected<std::vector<ControlReply>> decodeControlReplies(std::string_view input) {
  auto records = parseRecords(input);
  if (!records) return fail("bad control replies: " + records.error().message);
  std::vector<ControlReply> out;
  for (std::size_t i = 0; i < records->size(); ++i) {
    auto r = replyFromRecord((*records)[i], "bad control reply " + std::to_string(i) + ": ");
    if (!r) return std::unexpected(r.error());
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace mpidbg::ccs::proto
