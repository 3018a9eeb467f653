// The stacks record of one rank (format described in ccs/proto/StackProtocol.hpp).
#include "ccs/proto/StackProtocol.hpp"

#include <algorithm>
#include <cstdio>

#include "ccs/proto/TextRecord.hpp"

namespace mpidbg::ccs::proto {
namespace {

/// Most modules, threads, and frames per thread a decoded record may claim.
/// The runtime sends at most 128 frames per thread; the bounds only keep a
/// hostile count from driving reservations or loops.
constexpr std::size_t kMaxModules = 1u << 16;
constexpr std::size_t kMaxThreads = 1u << 16;
constexpr std::size_t kMaxFrames = 1u << 16;

/// "M,0xOFFSET,E": module index, offset in hex, exact flag.
std::string frameText(const StackFrame& f) {
  char text[48];
  std::snprintf(text, sizeof text, "%d,0x%llx,%d", static_cast<int>(f.module),
                static_cast<unsigned long long>(f.offset), f.exact ? 1 : 0);
  return text;
}

/// A count key: 0 .. `limit`.
Expected<std::size_t> countOf(const Record& r, const std::string& key, std::size_t limit) {
  auto n = r.integer<std::uint64_t>(key);
  if (!n) return std::unexpected(n.error());
  if (*n > limit)
    return fail("key '" + key + "' claims " + std::to_string(*n) + " elements (at most " + std::to_string(limit) + ")");
  return static_cast<std::size_t>(*n);
}

/// Parses "M,0xOFFSET,E" of key `key`; the module index must be -1 or below
/// `moduleCount`.
Expected<StackFrame> frameFrom(const std::string& key, std::string_view value, std::size_t moduleCount) {
  const auto first = value.find(',');
  const auto second = first == std::string_view::npos ? first : value.find(',', first + 1);
  if (second == std::string_view::npos || value.find(',', second + 1) != std::string_view::npos)
    return fail("key '" + key + "' is not 'module,offset,exact': '" + shorten(value) + "'");
  StackFrame f;
  auto module = Record::parseInt<std::int32_t>(key, value.substr(0, first));
  if (!module) return std::unexpected(module.error());
  if (*module < -1 || (*module >= 0 && static_cast<std::size_t>(*module) >= moduleCount))
    return fail("key '" + key + "' names module " + std::to_string(*module) + " but the record defines " +
                std::to_string(moduleCount));
  f.module = *module;
  auto offset = Record::parseInt<std::uint64_t>(key, value.substr(first + 1, second - first - 1));
  if (!offset) return std::unexpected(offset.error());
  f.offset = *offset;
  const std::string_view exact = value.substr(second + 1);
  if (exact != "0" && exact != "1") return fail("key '" + key + "' has an exact flag other than 0 or 1");
  f.exact = exact == "1";
  return f;
}

Expected<ThreadStack> threadFrom(const Record& r, std::size_t t, std::size_t moduleCount) {
  const std::string prefix;
  const std::string p = "thread." + std::to_string(t) + ".";
  ThreadStack s;
  MPIDBG_TRY_ASSIGN(s.tid, r.integer<std::int32_t>(p + "tid"));
  MPIDBG_TRY_ASSIGN(s.name, r.text(p + "name"));
  MPIDBG_TRY_ASSIGN(s.mainThread, r.flag(p + "main"));
  MPIDBG_TRY_ASSIGN(s.truncated, r.flag(p + "truncated"));
  s.error = r.text(p + "error", "");
  std::size_t n = 0;
  MPIDBG_TRY_ASSIGN(n, countOf(r, p + "frames", kMaxFrames));
  s.frames.reserve(std::min<std::size_t>(n, 256));
  for (std::size_t i = 0; i < n; ++i) {
    const std::string key = "frame." + std::to_string(t) + "." + std::to_string(i);
    std::string value;
    MPIDBG_TRY_ASSIGN(value, r.text(key));
    StackFrame f;
    MPIDBG_TRY_ASSIGN(f, frameFrom(key, value, moduleCount));
    s.frames.push_back(f);
  }
  return s;
}

Expected<RankStacks> rankStacksFrom(const Record& r) {
  const std::string prefix;
  RankStacks s;
  MPIDBG_TRY_ASSIGN(s.worldRank, r.integer<std::int32_t>("world"));
  MPIDBG_TRY_ASSIGN(s.pid, r.integer<std::int32_t>("pid"));
  MPIDBG_TRY_ASSIGN(s.host, r.text("host"));
  std::size_t n = 0;
  MPIDBG_TRY_ASSIGN(n, countOf(r, "modules", kMaxModules));
  s.modules.reserve(std::min<std::size_t>(n, 1024));
  for (std::size_t i = 0; i < n; ++i) {
    const std::string p = "module." + std::to_string(i) + ".";
    StackModule m;
    MPIDBG_TRY_ASSIGN(m.path, r.text(p + "path"));
    MPIDBG_TRY_ASSIGN(m.buildId, r.text(p + "buildid"));
    s.modules.push_back(std::move(m));
  }
  MPIDBG_TRY_ASSIGN(n, countOf(r, "threads", kMaxThreads));
  s.threads.reserve(std::min<std::size_t>(n, 1024));
  for (std::size_t t = 0; t < n; ++t) {
    ThreadStack thread;
    MPIDBG_TRY_ASSIGN(thread, threadFrom(r, t, s.modules.size()));
    s.threads.push_back(std::move(thread));
  }
  return s;
}

}  // namespace

std::string encode(const RankStacks& stacks) {
  std::string w;
  putInt(w, "world", stacks.worldRank);
  putInt(w, "pid", stacks.pid);
  put(w, "host", stacks.host);
  putInt(w, "modules", stacks.modules.size());
  for (std::size_t i = 0; i < stacks.modules.size(); ++i) {
    const std::string p = "module." + std::to_string(i) + ".";
    put(w, p + "path", stacks.modules[i].path);
    put(w, p + "buildid", stacks.modules[i].buildId);
  }
  putInt(w, "threads", stacks.threads.size());
  for (std::size_t t = 0; t < stacks.threads.size(); ++t) {
    const ThreadStack& s = stacks.threads[t];
    const std::string p = "thread." + std::to_string(t) + ".";
    putInt(w, p + "tid", s.tid);
    put(w, p + "name", s.name);
    putFlag(w, p + "main", s.mainThread);
    putFlag(w, p + "truncated", s.truncated);
    if (!s.error.empty()) put(w, p + "error", s.error);
    putInt(w, p + "frames", s.frames.size());
    for (std::size_t i = 0; i < s.frames.size(); ++i)
      put(w, "frame." + std::to_string(t) + "." + std::to_string(i), frameText(s.frames[i]));
  }
  w += kRecordSeparator;
  w += '\n';
  return w;
}

Expected<std::vector<RankStacks>> decodeRankStacksList(std::string_view text) {
  std::vector<RankStacks> out;
  std::size_t pos = 0;
  std::size_t start = 0;
  bool pending = false;  // non-blank lines since the last separator
  // Records are split here (not by parseRecords) so every error names its record.
  const auto decodeChunk = [&](std::string_view chunk) -> Expected<void> {
    const std::string what = "stacks record " + std::to_string(out.size()) + ": ";
    auto records = parseRecords(chunk);
    if (!records) return fail(what + records.error().message);
    if (records->size() != 1) return fail(what + "expected one record, got " + std::to_string(records->size()));
    auto stacks = rankStacksFrom(records->front());
    if (!stacks) return fail(what + stacks.error().message);
    out.push_back(std::move(*stacks));
    return {};
  };
  while (pos < text.size()) {
    const std::size_t lineStart = pos;
    const std::string_view line = nextLine(text, pos);
    if (line != kRecordSeparator) {
      pending = pending || !line.empty();
      continue;
    }
    if (pending)
      if (auto decoded = decodeChunk(text.substr(start, lineStart - start)); !decoded)
        return std::unexpected(decoded.error());
    start = pos;
    pending = false;
  }
  // A last record without its `--` line is accepted when complete (every
  // required key present); a reply cut inside a record lacks keys.
  if (pending)
    if (auto decoded = decodeChunk(text.substr(start)); !decoded) return std::unexpected(decoded.error());
  return out;
}

}  // namespace mpidbg::ccs::proto
