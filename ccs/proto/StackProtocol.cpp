// The stacks record of one rank (format described in ccs/proto/StackProtocol.hpp).
#include "ccs/proto/StackProtocol.hpp"

#include <algorithm>
#include <cstdio>

#include "ccs/proto/Message.hpp"
#include "ccs/proto/TextRecord.hpp"

namespace mpidbg::ccs::proto {
namespace stackproto {

/// Every frame's module index must be -1 or name a module of the record.
Expected<void> checkModules(const RankStacks& s) {
  for (std::size_t t = 0; t < s.threads.size(); ++t)
    for (std::size_t i = 0; i < s.threads[t].frames.size(); ++i) {
      const std::int32_t module = s.threads[t].frames[i].module;
      if (module < -1 || (module >= 0 && static_cast<std::size_t>(module) >= s.modules.size()))
        return fail("key 'frame." + std::to_string(t) + "." + std::to_string(i) + "' names module " +
                    std::to_string(module) + " but the record defines " + std::to_string(s.modules.size()));
    }
  return {};
}

Expected<RankStacks> rankStacksFrom(const Record& r) {
  RankStacks s;
  if (auto filled = getFields(r, s); !filled) return std::unexpected(filled.error());
  if (auto checked = checkModules(s); !checked) return std::unexpected(checked.error());
  return s;
}

}  // namespace stackproto

std::string StackFrame::toText(const StackFrame& f) {
  char text[48];
  std::snprintf(text, sizeof text, "%d,0x%llx,%d", static_cast<int>(f.module),
                static_cast<unsigned long long>(f.offset), f.exact ? 1 : 0);
  return text;
}

Expected<StackFrame> StackFrame::fromText(std::string_view key, std::string_view value) {
  const auto first = value.find(',');
  const auto second = first == std::string_view::npos ? first : value.find(',', first + 1);
  if (second == std::string_view::npos || value.find(',', second + 1) != std::string_view::npos)
    return fail("key '" + std::string(key) + "' is not 'module,offset,exact': '" + shorten(value) + "'");
  StackFrame f;
  auto module = Record::parseInt<std::int32_t>(key, value.substr(0, first));
  if (!module) return std::unexpected(module.error());
  f.module = *module;
  auto offset = Record::parseInt<std::uint64_t>(key, value.substr(first + 1, second - first - 1));
  if (!offset) return std::unexpected(offset.error());
  f.offset = *offset;
  const std::string_view exact = value.substr(second + 1);
  if (exact != "0" && exact != "1") return fail("key '" + std::string(key) + "' has an exact flag other than 0 or 1");
  f.exact = exact == "1";
  return f;
}

std::string encode(const RankStacks& stacks) { return encodeRecord(stacks); }

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
    auto stacks = stackproto::rankStacksFrom(records->front());
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
