// The queue-state record of one rank (format described in ccs/proto/QueueProtocol.hpp).
#include "ccs/proto/QueueProtocol.hpp"

#include <algorithm>
#include <cstdio>

#include "ccs/proto/TextRecord.hpp"

namespace mpidbg::ccs::proto {
namespace {

constexpr std::array<std::string_view, 4> kPhaseNames = {"not-initialized", "running", "finalizing", "finalized"};
constexpr std::array<std::string_view, 4> kKindNames = {"send", "recv", "collective", "rma"};

/// The operation lists of a communicator: count key and element key, and
/// whether a record may leave the list out (a list added after the others:
/// runtimes before it do not write it).
struct OpList {
  std::vector<PendingOp> CommQueues::*member;
  std::string_view countKey;
  std::string_view elementKey;
  bool optional = false;
};
constexpr std::array<OpList, 5> kOpLists = {{
    {&CommQueues::sends, "sends", "send"},
    {&CommQueues::recvs, "recvs", "recv"},
    {&CommQueues::unexpected, "unexpected", "unexp"},
    {&CommQueues::collectives, "collectives", "coll"},
    {&CommQueues::rma, "rma", "rma", true},
}};

template <typename Int>
std::string joinList(const std::vector<Int>& values, bool hex) {
  std::string out;
  char text[24];
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (hex)
      std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(values[i]));
    else
      std::snprintf(text, sizeof text, "%lld", static_cast<long long>(values[i]));
    if (i) out += ',';
    out += text;
  }
  return out;
}

/// "a,b,c" -> integers; "" -> no integers. At most kMaxQueueListLength.
template <typename Int>
Expected<std::vector<Int>> splitInts(const std::string& key, std::string_view text) {
  std::vector<Int> out;
  if (text.empty()) return out;
  for (;;) {
    if (out.size() == kMaxQueueListLength)
      return fail("key '" + key + "' has more than " + std::to_string(kMaxQueueListLength) + " values");
    const auto comma = text.find(',');
    auto value = Record::parseInt<Int>(key, text.substr(0, comma));
    if (!value) return std::unexpected(value.error());
    out.push_back(*value);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

/// A list length key: 0 .. kMaxQueueListLength.
Expected<std::size_t> listLength(const Record& r, const std::string& key) {
  auto n = r.integer<std::uint64_t>(key);
  if (!n) return std::unexpected(n.error());
  if (*n > kMaxQueueListLength)
    return fail("key '" + key + "' claims " + std::to_string(*n) + " elements (at most " +
                std::to_string(kMaxQueueListLength) + ")");
  return static_cast<std::size_t>(*n);
}

void appendOp(std::string& w, const std::string& q, const PendingOp& op) {
  put(w, q + "kind", opKindName(op.kind));
  put(w, q + "function", op.function);
  putFlag(w, q + "blocking", op.blocking);
  putFlag(w, q + "persistent", op.persistent);
  putFlag(w, q + "active", op.active);
  putFlag(w, q + "waited", op.waited);
  putFlag(w, q + "sync", op.synchronous);
  putHex(w, q + "request", op.request);
  putHex(w, q + "comm", op.comm);
  putInt(w, q + "peer", op.peer);
  putInt(w, q + "tag", op.tag);
  putInt(w, q + "count", op.count);
  putInt(w, q + "bytes", op.bytes);
  putHex(w, q + "buffer", op.buffer);
  if (op.datatype != 0) putHex(w, q + "datatype", op.datatype);
  putInt(w, q + "class", op.collClass);
  putInt(w, q + "collcall", op.collCall);
  putInt(w, q + "collseq", op.collSeq);
}

Expected<PendingOp> opFrom(const Record& r, const std::string& q) {
  const std::string prefix;
  PendingOp op;
  std::string kind;
  MPIDBG_TRY_ASSIGN(kind, r.text(q + "kind"));
  std::size_t kindIndex = 0;
  MPIDBG_TRY_ASSIGN(kindIndex, lookupName(kKindNames, q + "kind", kind));
  op.kind = static_cast<PendingOp::Kind>(kindIndex);
  MPIDBG_TRY_ASSIGN(op.function, r.text(q + "function"));
  MPIDBG_TRY_ASSIGN(op.blocking, r.flag(q + "blocking"));
  MPIDBG_TRY_ASSIGN(op.persistent, r.flag(q + "persistent"));
  MPIDBG_TRY_ASSIGN(op.active, r.flag(q + "active"));
  MPIDBG_TRY_ASSIGN(op.waited, r.flag(q + "waited"));
  MPIDBG_TRY_ASSIGN(op.synchronous, r.flag(q + "sync"));
  MPIDBG_TRY_ASSIGN(op.request, r.integer<std::uint64_t>(q + "request"));
  MPIDBG_TRY_ASSIGN(op.comm, r.integer<std::uint64_t>(q + "comm"));
  MPIDBG_TRY_ASSIGN(op.peer, r.integer<std::int32_t>(q + "peer"));
  MPIDBG_TRY_ASSIGN(op.tag, r.integer<std::int32_t>(q + "tag"));
  MPIDBG_TRY_ASSIGN(op.count, r.integer<std::int64_t>(q + "count"));
  MPIDBG_TRY_ASSIGN(op.bytes, r.integer<std::int64_t>(q + "bytes"));
  MPIDBG_TRY_ASSIGN(op.buffer, r.integer<std::uint64_t>(q + "buffer"));
  if (r.has(q + "datatype")) {
    MPIDBG_TRY_ASSIGN(op.datatype, r.integer<std::uint64_t>(q + "datatype"));
  }
  MPIDBG_TRY_ASSIGN(op.collClass, r.integer<std::int32_t>(q + "class"));
  MPIDBG_TRY_ASSIGN(op.collCall, r.integer<std::uint64_t>(q + "collcall"));
  MPIDBG_TRY_ASSIGN(op.collSeq, r.integer<std::uint64_t>(q + "collseq"));
  return op;
}

void appendComm(std::string& w, const std::string& p, const CommQueues& c) {
  appendCommState(w, p, c.state);
  put(w, p + "worldranks", joinList(c.worldRanks, false));
  putInt(w, p + "collseq", c.collSeq);
  for (const OpList& list : kOpLists) {
    const std::vector<PendingOp>& ops = c.*list.member;
    if (list.optional && ops.empty()) continue;
    putInt(w, p + std::string(list.countKey), ops.size());
    for (std::size_t j = 0; j < ops.size(); ++j)
      appendOp(w, p + std::string(list.elementKey) + "." + std::to_string(j) + ".", ops[j]);
  }
}

Expected<CommQueues> commFrom(const Record& r, const std::string& p) {
  const std::string prefix;
  CommQueues c;
  MPIDBG_TRY_ASSIGN(c.state, commStateFrom(r, p));
  std::string ranks;
  MPIDBG_TRY_ASSIGN(ranks, r.text(p + "worldranks"));
  MPIDBG_TRY_ASSIGN(c.worldRanks, splitInts<std::int32_t>(p + "worldranks", ranks));
  MPIDBG_TRY_ASSIGN(c.collSeq, r.integer<std::uint64_t>(p + "collseq"));
  for (const OpList& list : kOpLists) {
    std::size_t n = 0;
    if (!list.optional || r.has(p + std::string(list.countKey)))
      MPIDBG_TRY_ASSIGN(n, listLength(r, p + std::string(list.countKey)));
    std::vector<PendingOp>& ops = c.*list.member;
    ops.reserve(std::min<std::size_t>(n, 1024));
    for (std::size_t j = 0; j < n; ++j) {
      PendingOp op;
      MPIDBG_TRY_ASSIGN(op, opFrom(r, p + std::string(list.elementKey) + "." + std::to_string(j) + "."));
      ops.push_back(std::move(op));
    }
  }
  return c;
}

Expected<RankQueues> rankQueuesFrom(const Record& r) {
  const std::string prefix;
  RankQueues q;
  MPIDBG_TRY_ASSIGN(q.worldRank, r.integer<std::int32_t>("world"));
  std::string phase;
  MPIDBG_TRY_ASSIGN(phase, r.text("phase"));
  std::size_t phaseIndex = 0;
  MPIDBG_TRY_ASSIGN(phaseIndex, lookupName(kPhaseNames, "phase", phase));
  q.phase = static_cast<MpiPhase>(phaseIndex);
  MPIDBG_TRY_ASSIGN(q.source, r.text("source"));
  q.error = r.text("error", "");
  q.held = r.text("held", "");
  MPIDBG_TRY_ASSIGN(q.call, callFrom(r));
  std::string waiting;
  MPIDBG_TRY_ASSIGN(waiting, r.text("waiting"));
  MPIDBG_TRY_ASSIGN(q.waitingOn, splitInts<std::uint64_t>("waiting", waiting));

  std::size_t n = 0;
  MPIDBG_TRY_ASSIGN(n, listLength(r, "frames"));
  q.frames.reserve(std::min<std::size_t>(n, 1024));
  for (std::size_t i = 0; i < n; ++i) {
    std::string frame;
    MPIDBG_TRY_ASSIGN(frame, r.text("frame." + std::to_string(i)));
    q.frames.push_back(std::move(frame));
  }

  MPIDBG_TRY_ASSIGN(n, listLength(r, "history"));
  q.history.reserve(std::min<std::size_t>(n, 1024));
  for (std::size_t i = 0; i < n; ++i) {
    const std::string h = "hist." + std::to_string(i) + ".";
    CollRecord c;
    MPIDBG_TRY_ASSIGN(c.comm, r.integer<std::uint64_t>(h + "comm"));
    MPIDBG_TRY_ASSIGN(c.seq, r.integer<std::uint64_t>(h + "seq"));
    MPIDBG_TRY_ASSIGN(c.function, r.text(h + "function"));
    MPIDBG_TRY_ASSIGN(c.root, r.integer<std::int32_t>(h + "root"));
    MPIDBG_TRY_ASSIGN(c.count, r.integer<std::int64_t>(h + "count"));
    q.history.push_back(std::move(c));
  }

  n = 0;
  if (r.has("wild")) MPIDBG_TRY_ASSIGN(n, listLength(r, "wild"));
  if (n > kWildcardMatches) return fail("key 'wild' claims " + std::to_string(n) + " matches (at most " +
                                        std::to_string(kWildcardMatches) + ")");
  for (std::size_t i = 0; i < n; ++i) {
    const std::string h = "wild." + std::to_string(i) + ".";
    WildcardMatch m;
    MPIDBG_TRY_ASSIGN(m.comm, r.integer<std::uint64_t>(h + "comm"));
    MPIDBG_TRY_ASSIGN(m.function, r.text(h + "function"));
    MPIDBG_TRY_ASSIGN(m.tag, r.integer<std::int32_t>(h + "tag"));
    MPIDBG_TRY_ASSIGN(m.source, r.integer<std::int32_t>(h + "source"));
    MPIDBG_TRY_ASSIGN(m.matchedTag, r.integer<std::int32_t>(h + "mtag"));
    MPIDBG_TRY_ASSIGN(m.call, r.integer<std::uint64_t>(h + "call"));
    q.wildcards.push_back(std::move(m));
  }

  n = 0;
  if (r.has("locks")) MPIDBG_TRY_ASSIGN(n, listLength(r, "locks"));
  if (n > kMaxWindowLocks)
    return fail("key 'locks' claims " + std::to_string(n) + " locks (at most " + std::to_string(kMaxWindowLocks) + ")");
  for (std::size_t i = 0; i < n; ++i) {
    const std::string h = "lock." + std::to_string(i) + ".";
    WindowLock l;
    MPIDBG_TRY_ASSIGN(l.win, r.integer<std::uint64_t>(h + "win"));
    MPIDBG_TRY_ASSIGN(l.target, r.integer<std::int32_t>(h + "target"));
    int exclusive = 0;
    MPIDBG_TRY_ASSIGN(exclusive, r.integer<int>(h + "excl"));
    l.exclusive = exclusive != 0;
    MPIDBG_TRY_ASSIGN(l.call, r.integer<std::uint64_t>(h + "call"));
    if (r.has(h + "granted")) MPIDBG_TRY_ASSIGN(l.granted, r.flag(h + "granted"));
    q.locks.push_back(l);
  }

  n = 0;
  if (r.has("epochs")) MPIDBG_TRY_ASSIGN(n, listLength(r, "epochs"));
  if (n > kMaxWindowEpochs)
    return fail("key 'epochs' claims " + std::to_string(n) + " epoch rows (at most " +
                std::to_string(kMaxWindowEpochs) + ")");
  for (std::size_t i = 0; i < n; ++i) {
    const std::string h = "epoch." + std::to_string(i) + ".";
    WindowEpoch e;
    MPIDBG_TRY_ASSIGN(e.win, r.integer<std::uint64_t>(h + "win"));
    MPIDBG_TRY_ASSIGN(e.peer, r.integer<std::int32_t>(h + "peer"));
    MPIDBG_TRY_ASSIGN(e.started, r.integer<std::uint64_t>(h + "started"));
    MPIDBG_TRY_ASSIGN(e.completed, r.integer<std::uint64_t>(h + "completed"));
    MPIDBG_TRY_ASSIGN(e.posted, r.integer<std::uint64_t>(h + "posted"));
    MPIDBG_TRY_ASSIGN(e.waited, r.integer<std::uint64_t>(h + "waited"));
    MPIDBG_TRY_ASSIGN(e.access, r.flag(h + "access"));
    MPIDBG_TRY_ASSIGN(e.exposure, r.flag(h + "exposure"));
    q.epochs.push_back(e);
  }

  n = 0;
  if (r.has("msgs")) MPIDBG_TRY_ASSIGN(n, listLength(r, "msgs"));
  if (n > kMaxMessageCounts)
    return fail("key 'msgs' claims " + std::to_string(n) + " message counts (at most " +
                std::to_string(kMaxMessageCounts) + ")");
  for (std::size_t i = 0; i < n; ++i) {
    const std::string h = "msg." + std::to_string(i) + ".";
    MessageCount m;
    MPIDBG_TRY_ASSIGN(m.comm, r.integer<std::uint64_t>(h + "comm"));
    MPIDBG_TRY_ASSIGN(m.peer, r.integer<std::int32_t>(h + "peer"));
    MPIDBG_TRY_ASSIGN(m.tag, r.integer<std::int32_t>(h + "tag"));
    MPIDBG_TRY_ASSIGN(m.sent, r.integer<std::uint64_t>(h + "sent"));
    MPIDBG_TRY_ASSIGN(m.received, r.integer<std::uint64_t>(h + "recvd"));
    if (r.has(h + "function")) MPIDBG_TRY_ASSIGN(m.function, r.text(h + "function"));
    q.messages.push_back(std::move(m));
  }
  if (r.has("msgs.partial")) {
    int partial = 0;
    MPIDBG_TRY_ASSIGN(partial, r.integer<int>("msgs.partial"));
    q.messagesPartial = partial != 0;
  }

  MPIDBG_TRY_ASSIGN(n, listLength(r, "comms"));
  q.comms.reserve(std::min<std::size_t>(n, 1024));
  for (std::size_t i = 0; i < n; ++i) {
    CommQueues c;
    MPIDBG_TRY_ASSIGN(c, commFrom(r, "comm." + std::to_string(i) + "."));
    q.comms.push_back(std::move(c));
  }
  return q;
}

/// Decodes the text of one encoding without its terminator.
Expected<RankQueues> decodeOne(std::string_view text, const std::string& what) {
  auto records = parseRecords(text);
  if (!records) return fail(what + records.error().message);
  if (records->size() != 1) return fail(what + "expected one record, got " + std::to_string(records->size()));
  auto q = rankQueuesFrom(records->front());
  if (!q) return fail(what + q.error().message);
  return q;
}

}  // namespace

std::string_view phaseName(MpiPhase p) {
  const auto index = static_cast<std::size_t>(p);
  return index < kPhaseNames.size() ? kPhaseNames[index] : "unknown";
}

std::string_view opKindName(PendingOp::Kind k) {
  const auto index = static_cast<std::size_t>(k);
  return index < kKindNames.size() ? kKindNames[index] : "unknown";
}

std::string encode(const RankQueues& q) {
  std::string w;
  putInt(w, "world", q.worldRank);
  put(w, "phase", phaseName(q.phase));
  put(w, "source", q.source);
  if (!q.error.empty()) put(w, "error", q.error);
  if (!q.held.empty()) put(w, "held", q.held);
  if (q.call) appendCall(w, *q.call);
  put(w, "waiting", joinList(q.waitingOn, true));
  putInt(w, "frames", q.frames.size());
  for (std::size_t i = 0; i < q.frames.size(); ++i) put(w, "frame." + std::to_string(i), q.frames[i]);
  putInt(w, "history", q.history.size());
  for (std::size_t i = 0; i < q.history.size(); ++i) {
    const CollRecord& c = q.history[i];
    const std::string h = "hist." + std::to_string(i) + ".";
    putHex(w, h + "comm", c.comm);
    putInt(w, h + "seq", c.seq);
    put(w, h + "function", c.function);
    putInt(w, h + "root", c.root);
    putInt(w, h + "count", c.count);
  }
  if (!q.wildcards.empty()) {
    putInt(w, "wild", q.wildcards.size());
    for (std::size_t i = 0; i < q.wildcards.size(); ++i) {
      const WildcardMatch& m = q.wildcards[i];
      const std::string h = "wild." + std::to_string(i) + ".";
      putHex(w, h + "comm", m.comm);
      put(w, h + "function", m.function);
      putInt(w, h + "tag", m.tag);
      putInt(w, h + "source", m.source);
      putInt(w, h + "mtag", m.matchedTag);
      putInt(w, h + "call", m.call);
    }
  }
  if (!q.locks.empty()) {
    putInt(w, "locks", q.locks.size());
    for (std::size_t i = 0; i < q.locks.size(); ++i) {
      const WindowLock& l = q.locks[i];
      const std::string h = "lock." + std::to_string(i) + ".";
      putHex(w, h + "win", l.win);
      putInt(w, h + "target", l.target);
      putInt(w, h + "excl", l.exclusive ? 1 : 0);
      putInt(w, h + "call", l.call);
      if (!l.granted) putFlag(w, h + "granted", false);
    }
  }
  if (!q.epochs.empty()) {
    putInt(w, "epochs", q.epochs.size());
    for (std::size_t i = 0; i < q.epochs.size(); ++i) {
      const WindowEpoch& e = q.epochs[i];
      const std::string h = "epoch." + std::to_string(i) + ".";
      putHex(w, h + "win", e.win);
      putInt(w, h + "peer", e.peer);
      putInt(w, h + "started", e.started);
      putInt(w, h + "completed", e.completed);
      putInt(w, h + "posted", e.posted);
      putInt(w, h + "waited", e.waited);
      putFlag(w, h + "access", e.access);
      putFlag(w, h + "exposure", e.exposure);
    }
  }
  if (!q.messages.empty()) {
    putInt(w, "msgs", q.messages.size());
    for (std::size_t i = 0; i < q.messages.size(); ++i) {
      const MessageCount& m = q.messages[i];
      const std::string h = "msg." + std::to_string(i) + ".";
      putHex(w, h + "comm", m.comm);
      putInt(w, h + "peer", m.peer);
      putInt(w, h + "tag", m.tag);
      putInt(w, h + "sent", m.sent);
      putInt(w, h + "recvd", m.received);
      if (!m.function.empty()) put(w, h + "function", m.function);
    }
  }
  if (q.messagesPartial) putInt(w, "msgs.partial", 1);
  putInt(w, "comms", q.comms.size());
  for (std::size_t i = 0; i < q.comms.size(); ++i) appendComm(w, "comm." + std::to_string(i) + ".", q.comms[i]);
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
  return decodeOne(text.substr(0, end), "bad rank queues: ");
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
    auto q = decodeOne(text.substr(start, lineStart - start), "bad rank queues " + std::to_string(out.size()) + ": ");
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
