// The queue-state record of one rank (format described in ccs/proto/QueueProtocol.hpp).
#include "ccs/proto/QueueProtocol.hpp"

#include "ccs/proto/Message.hpp"
#include "ccs/proto/TextRecord.hpp"

namespace mpidbg::ccs::proto {
namespace queueproto {

/// Decodes the text of one encoding without its terminator.
Expected<RankQueues> decodeOne(std::string_view text, const std::string& what) {
  auto records = parseRecords(text);
  if (!records) return fail(what + records.error().message);
  if (records->size() != 1) return fail(what + "expected one record, got " + std::to_string(records->size()));
  RankQueues q;
  if (auto filled = getFields(records->front(), q); !filled) return fail(what + filled.error().message);
  return q;
}

}  // namespace queueproto

std::string_view phaseName(MpiPhase p) {
  const auto index = static_cast<std::size_t>(p);
  return index < kMpiPhaseNames.size() ? kMpiPhaseNames[index] : "unknown";
}

std::string_view opKindName(PendingOp::Kind k) {
  const auto index = static_cast<std::size_t>(k);
  return index < kOpKindNames.size() ? kOpKindNames[index] : "unknown";
}

std::string encode(const RankQueues& q) {
  std::string w;
  putFields(w, q);
  w += kQueuesTerminator;
  w += '\n';
  return w;
}

Expected<RankQueues> decodeRankQueues(std::string_view text) {
  // Strip one terminator line (and what follows it, if only blank lines).
  std::size_t pos = 0;
  std::size_t end = text.size();
  while (pos < text.size()) {
    const std::size_t start = pos;
    if (nextLine(text, pos) == kQueuesTerminator) {
      end = start;
      for (std::size_t rest = pos; rest < text.size();)
        if (!nextLine(text, rest).empty()) return fail("bad rank queues: text after the '==' line");
      break;
    }
  }
  return queueproto::decodeOne(text.substr(0, end), "bad rank queues: ");
}

Expected<std::vector<RankQueues>> decodeRankQueuesList(std::string_view text) {
  std::vector<RankQueues> out;
  std::size_t pos = 0;
  std::size_t start = 0;
  bool pending = false;  // non-blank lines since the last terminator
  while (pos < text.size()) {
    const std::size_t lineStart = pos;
    const std::string_view line = nextLine(text, pos);
    if (line != kQueuesTerminator) {
      pending = pending || !line.empty();
      continue;
    }
    auto q = queueproto::decodeOne(text.substr(start, lineStart - start), "bad rank queues " + std::to_string(out.size()) + ": ");
    if (!q) return std::unexpected(q.error());
    out.push_back(std::move(*q));
    start = pos;
    pending = false;
  }
  if (pending)
    return fail("bad rank queues " + std::to_string(out.size()) + ": no '==' line at the end (reply cut short?)");
  return out;
}

}  // namespace mpidbg::ccs::proto
