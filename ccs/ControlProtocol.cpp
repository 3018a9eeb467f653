// Execution-control records between the front end and the runtime (format in
// ccs/ControlProtocol.hpp; the same text records as ccs/RankProtocol.hpp).
#include "ccs/ControlProtocol.hpp"

#include <charconv>
#include <map>

#include "ccs/Condition.hpp"

namespace mpidbg::ccs::proto {
namespace {

using Fields = std::map<std::string, std::string, std::less<>>;

std::string shorten(std::string_view text) {
  constexpr std::size_t kMax = 60;
  std::string out(text.substr(0, kMax));
  for (char& ch : out)
    if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) ch = '?';
  return text.size() > kMax ? out + "..." : out;
}

void put(std::string& out, std::string_view key, std::string_view value) {
  out += key;
  out += '=';
  for (char ch : value) {
    if (ch == '\\') out += "\\\\";
    else if (ch == '\n') out += "\\n";
    else out += ch;
  }
  out += '\n';
}

template <typename Int>
void putInt(std::string& out, std::string_view key, Int value) {
  put(out, key, std::to_string(value));
}

Expected<void> addLine(Fields& record, std::string_view line) {
  const auto equals = line.find('=');
  if (equals == std::string_view::npos || equals == 0)
    return fail("malformed record line '" + shorten(line) + "'");
  const std::string_view key = line.substr(0, equals);
  std::string value;
  for (std::size_t i = equals + 1; i < line.size(); ++i) {
    if (line[i] != '\\') {
      value += line[i];
      continue;
    }
    const char next = i + 1 < line.size() ? line[i + 1] : '\0';
    if (next != '\\' && next != 'n') return fail("bad escape in value of key '" + shorten(key) + "'");
    value += next == 'n' ? '\n' : '\\';
    ++i;
  }
  if (!record.emplace(std::string(key), std::move(value)).second)
    return fail("duplicate key '" + shorten(key) + "' in record");
  return {};
}

Expected<std::vector<Fields>> parseRecords(std::string_view text) {
  std::vector<Fields> records(1);
  while (!text.empty()) {
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line == "--") {
      if (!records.back().empty()) records.emplace_back();
      continue;
    }
    if (auto added = addLine(records.back(), line); !added) return std::unexpected(added.error());
  }
  if (records.back().empty()) records.pop_back();
  return records;
}

/// Exactly one record; an empty text is one empty record when `emptyOk`.
Expected<Fields> parseOne(std::string_view text, std::string_view what, bool emptyOk = false) {
  auto records = parseRecords(text);
  if (!records) return fail("bad " + std::string(what) + ": " + records.error().message);
  if (records->empty() && emptyOk) return Fields{};
  if (records->size() != 1)
    return fail("bad " + std::string(what) + ": expected one record, got " + std::to_string(records->size()));
  return std::move(records->front());
}

Expected<std::string> text(const Fields& r, std::string_view key) {
  const auto found = r.find(key);
  if (found == r.end()) return fail("record is missing key '" + std::string(key) + "'");
  return found->second;
}

template <typename Int>
Expected<Int> integer(const Fields& r, std::string_view key) {
  auto value = text(r, key);
  if (!value) return std::unexpected(value.error());
  std::string_view digits = *value;
  int base = 10;
  if (digits.starts_with("0x") || digits.starts_with("0X")) {
    digits.remove_prefix(2);
    base = 16;
  }
  Int result{};
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), result, base);
  if (digits.empty() || digits.front() == '+' || ec != std::errc{} || end != digits.data() + digits.size())
    return fail("key '" + std::string(key) + "' has a bad integer value '" + shorten(*value) + "'");
  return result;
}

Expected<bool> flag(const Fields& r, std::string_view key) {
  auto value = integer<int>(r, key);
  if (!value) return std::unexpected(value.error());
  if (*value != 0 && *value != 1) return fail("key '" + std::string(key) + "' must be 0 or 1");
  return *value == 1;
}

// "Assign or return the error, prefixed" inside the decoders.
#define MPIDBG_TRY_ASSIGN(target, expr)                                    \
  do {                                                                     \
    auto mpidbg_value = (expr);                                            \
    if (!mpidbg_value) return fail(prefix + mpidbg_value.error().message); \
    target = std::move(*mpidbg_value);                                     \
  } while (0)

Expected<Breakpoint> fromFields(const Fields& r, const std::string& prefix) {
  Breakpoint b;
  MPIDBG_TRY_ASSIGN(b.id, integer<std::int32_t>(r, "id"));
  if (b.id <= 0) return fail(prefix + "key 'id' must be positive");
  std::string kind;
  MPIDBG_TRY_ASSIGN(kind, text(r, "kind"));
  if (kind == "mpi") b.kind = BreakKind::Mpi;
  else if (kind == "entry") b.kind = BreakKind::Entry;
  else return fail(prefix + "key 'kind' must be mpi or entry, not '" + shorten(kind) + "'");
  MPIDBG_TRY_ASSIGN(b.target, text(r, "target"));
  if (b.target.empty()) return fail(prefix + "key 'target' is empty");
  if (b.target.size() > kMaxTargetBytes)
    return fail(prefix + "key 'target' is longer than " + std::to_string(kMaxTargetBytes) + " bytes");
  if (const auto c = r.find("condition"); c != r.end()) b.condition = c->second;
  if (b.condition.size() > cond::kMaxText)
    return fail(prefix + "key 'condition' is longer than " + std::to_string(cond::kMaxText) + " bytes");
  MPIDBG_TRY_ASSIGN(b.hit, integer<std::uint64_t>(r, "hit"));
  MPIDBG_TRY_ASSIGN(b.enabled, flag(r, "enabled"));
  if (r.contains("hits")) MPIDBG_TRY_ASSIGN(b.hits, integer<std::uint64_t>(r, "hits"));
  if (r.contains("rank")) MPIDBG_TRY_ASSIGN(b.rank, integer<std::int32_t>(r, "rank"));
  return b;
}

Expected<ControlReply> replyFromFields(const Fields& record, const std::string& prefix) {
  ControlReply r;
  std::string result;
  MPIDBG_TRY_ASSIGN(result, text(record, "result"));
  if (result != "ok" && result != "error")
    return fail(prefix + "key 'result' must be ok or error, not '" + shorten(result) + "'");
  r.ok = result == "ok";
  if (const auto m = record.find("message"); m != record.end()) r.message = m->second;
  if (!r.ok && r.message.empty()) return fail(prefix + "an error reply has no message");
  if (record.contains("rank")) MPIDBG_TRY_ASSIGN(r.rank, integer<std::int32_t>(record, "rank"));
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

std::string_view breakKindName(BreakKind k) noexcept { return k == BreakKind::Entry ? "entry" : "mpi"; }

std::string encode(const Breakpoint& b) { return encodeOne(b, false); }

Expected<Breakpoint> decodeBreakpoint(std::string_view text) {
  auto record = parseOne(text, "breakpoint");
  if (!record) return std::unexpected(record.error());
  return fromFields(*record, "bad breakpoint: ");
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
    auto b = fromFields((*records)[i], "bad breakpoint record " + std::to_string(i) + ": ");
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
  MPIDBG_TRY_ASSIGN(r.id, integer<std::int32_t>(*record, "id"));
  if (withEnabled) MPIDBG_TRY_ASSIGN(r.enabled, flag(*record, "enabled"));
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
  if (record->contains("now")) MPIDBG_TRY_ASSIGN(r.now, flag(*record, "now"));
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
  if (record->contains("count")) MPIDBG_TRY_ASSIGN(r.count, integer<std::uint64_t>(*record, "count"));
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
    MPIDBG_TRY_ASSIGN(e.name, text((*records)[i], "name"));
    MPIDBG_TRY_ASSIGN(e.hits, integer<std::uint64_t>((*records)[i], "hits"));
    if ((*records)[i].contains("rank")) MPIDBG_TRY_ASSIGN(e.rank, integer<std::int32_t>((*records)[i], "rank"));
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
  return replyFromFields(*record, "bad control reply: ");
}

Expected<std::vector<ControlReply>> decodeControlReplies(std::string_view input) {
  auto records = parseRecords(input);
  if (!records) return fail("bad control replies: " + records.error().message);
  std::vector<ControlReply> out;
  for (std::size_t i = 0; i < records->size(); ++i) {
    auto r = replyFromFields((*records)[i], "bad control reply " + std::to_string(i) + ": ");
    if (!r) return std::unexpected(r.error());
    out.push_back(std::move(*r));
  }
  return out;
}

#undef MPIDBG_TRY_ASSIGN

}  // namespace mpidbg::ccs::proto
