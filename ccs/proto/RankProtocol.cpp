// mpidbg's text records between the runtime and the front end
// (format described in ccs/proto/RankProtocol.hpp).
#include "ccs/proto/RankProtocol.hpp"

#include "ccs/proto/TextRecord.hpp"

#include <charconv>
#include <limits>
#include <map>

namespace mpidbg::ccs::proto {
namespace {

constexpr std::array<std::string_view, kCollClassCount> kCollNames = {
    "MPI_Barrier",  "MPI_Bcast",     "MPI_Allgather",      "MPI_Allgatherv", "MPI_Allreduce",
    "MPI_Alltoall", "MPI_Alltoallv", "MPI_Reduce_scatter", "MPI_Reduce",     "MPI_Gather",
    "MPI_Gatherv",  "MPI_Scan",      "MPI_Scatter",        "MPI_Scatterv"};
constexpr std::array<std::string_view, 4> kStateNames = {"running", "frozen", "in-mpi",
                                                         "finalized"};
constexpr std::array<std::string_view, 8> kEventKinds = {"finalized", "exited",     "signal",   "abort",
                                                          "breakpoint", "stopped", "violation", "notice"};


std::string joinCounts(const std::array<std::uint64_t, kCollClassCount>& counts) {
  std::string out;
  for (std::size_t i = 0; i < counts.size(); ++i) out += (i ? "," : "") + std::to_string(counts[i]);
  return out;
}

std::string joinFlags(const std::array<bool, kCollClassCount>& flags) {
  std::string out;
  for (std::size_t i = 0; i < flags.size(); ++i)
    out += (i ? "," : "") + std::string(flags[i] ? "1" : "0");
  return out;
}

/// Splits "a,b,c" into exactly kCollClassCount integers.
template <typename Int>
Expected<std::array<Int, kCollClassCount>> splitList(std::string_view key, std::string_view text) {
  std::array<Int, kCollClassCount> out{};
  std::size_t i = 0;
  for (;;) {
    auto comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    if (i == kCollClassCount)
      return fail("key '" + std::string(key) + "' has more than " +
                  std::to_string(kCollClassCount) + " values");
    auto value = Record::parseInt<Int>(key, item);
    if (!value) return std::unexpected(value.error());
    out[i++] = *value;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (i != kCollClassCount)
    return fail("key '" + std::string(key) + "' has " + std::to_string(i) + " values, expected " +
                std::to_string(kCollClassCount));
  return out;
}

}  // namespace

std::string_view collName(CollClass c) {
  auto index = static_cast<std::size_t>(c);
  return index < kCollNames.size() ? kCollNames[index] : "MPI_unknown_collective";
}

std::string_view stateName(RankState s) {
  auto index = static_cast<std::size_t>(s);
  return index < kStateNames.size() ? kStateNames[index] : "unknown";
}

// ---- RankStatus ----

std::string encode(const RankStatus& s) {
  std::string w;
  putInt(w, "rank", s.rank);
  putInt(w, "size", s.size);
  put(w, "state", stateName(s.state));
  putInt(w, "mpicalls", s.mpiCalls);
  if (!s.stop.empty()) put(w, "stop", s.stop);
  if (s.stopNumber != 0) putInt(w, "stopno", s.stopNumber);
  if (s.call) appendCall(w, *s.call);
  return w;
}

void appendCall(std::string& w, const MpiCall& c) {
  put(w, "call.function", c.function);
  put(w, "call.peerrole", c.peerRole);
  putInt(w, "call.peer", c.peer);
  if (c.hasTag) putInt(w, "call.tag", c.tag);
  putInt(w, "call.comm", c.comm);
  put(w, "call.commname", c.commName);
  putInt(w, "call.collcall", c.collCall);
  putInt(w, "call.elapsedus", c.elapsedUs);
  putInt(w, "call.seq", c.seq);
  if (c.polling) {
    putInt(w, "call.polling", 1);
    putInt(w, "call.sincelastus", c.sinceLastUs);
  }
}

Expected<std::optional<MpiCall>> callFrom(const Record& r) {
  const std::string prefix;
  if (!r.has("call.function")) return std::optional<MpiCall>{};
  MpiCall c;
  MPIDBG_TRY_ASSIGN(c.function, r.text("call.function"));
  MPIDBG_TRY_ASSIGN(c.peerRole, r.text("call.peerrole"));
  MPIDBG_TRY_ASSIGN(c.peer, r.integer<std::int32_t>("call.peer"));
  if (r.has("call.tag")) {
    c.hasTag = true;
    MPIDBG_TRY_ASSIGN(c.tag, r.integer<std::int32_t>("call.tag"));
  }
  MPIDBG_TRY_ASSIGN(c.comm, r.integer<std::uint64_t>("call.comm"));
  MPIDBG_TRY_ASSIGN(c.commName, r.text("call.commname"));
  MPIDBG_TRY_ASSIGN(c.collCall, r.integer<std::uint64_t>("call.collcall"));
  MPIDBG_TRY_ASSIGN(c.elapsedUs, r.integer<std::uint64_t>("call.elapsedus"));
  MPIDBG_TRY_ASSIGN(c.seq, r.integer<std::uint64_t>("call.seq"));
  if (r.has("call.polling")) {
    int polling = 0;
    MPIDBG_TRY_ASSIGN(polling, r.integer<int>("call.polling"));
    c.polling = polling != 0;
    MPIDBG_TRY_ASSIGN(c.sinceLastUs, r.integer<std::uint64_t>("call.sincelastus"));
  }
  return std::optional<MpiCall>(std::move(c));
}

namespace {

Expected<RankStatus> rankStatusFrom(const Record& r) {
  const std::string prefix = "bad rank status: ";
  RankStatus s;
  MPIDBG_TRY_ASSIGN(s.rank, r.integer<std::int32_t>("rank"));
  MPIDBG_TRY_ASSIGN(s.size, r.integer<std::int32_t>("size"));
  std::string state;
  MPIDBG_TRY_ASSIGN(state, r.text("state"));
  std::size_t stateIndex = 0;
  MPIDBG_TRY_ASSIGN(stateIndex, lookupName(kStateNames, "state", state));
  s.state = static_cast<RankState>(stateIndex);
  MPIDBG_TRY_ASSIGN(s.mpiCalls, r.integer<std::uint64_t>("mpicalls"));
  s.stop = r.text("stop", "");
  if (r.has("stopno")) MPIDBG_TRY_ASSIGN(s.stopNumber, r.integer<std::uint32_t>("stopno"));
  MPIDBG_TRY_ASSIGN(s.call, callFrom(r));
  return s;
}

}  // namespace

Expected<RankStatus> decodeRankStatus(std::string_view text) {
  auto record = parseOne(text, "rank status");
  if (!record) return std::unexpected(record.error());
  return rankStatusFrom(*record);
}

Expected<std::vector<RankStatus>> decodeRankStatuses(std::string_view text) {
  auto records = parseRecords(text);
  if (!records) return fail("bad rank status: " + records.error().message);
  std::vector<RankStatus> out;
  out.reserve(records->size());
  for (const Record& r : *records) {
    auto s = rankStatusFrom(r);
    if (!s) return std::unexpected(s.error());
    out.push_back(std::move(*s));
  }
  return out;
}

// ---- CommState ----

void appendCommState(std::string& w, std::string_view keyPrefix, const CommState& c) {
  const std::string p(keyPrefix);
  putInt(w, p + "handle", c.handle);
  putInt(w, p + "root", c.rootWorldRank);
  if (c.worldRank >= 0) putInt(w, p + "world", c.worldRank);
  if (c.uid != 0) putInt(w, p + "uid", c.uid);
  putInt(w, p + "size", c.size);
  putInt(w, p + "rank", c.localRank);
  put(w, p + "name", c.name);
  put(w, p + "counts", joinCounts(c.counts));
  put(w, p + "active", joinFlags(c.active));
}

Expected<CommState> commStateFrom(const Record& r, std::string_view keyPrefix) {
  const std::string prefix;
  const std::string p(keyPrefix);
  CommState c;
  MPIDBG_TRY_ASSIGN(c.handle, r.integer<std::uint64_t>(p + "handle"));
  MPIDBG_TRY_ASSIGN(c.rootWorldRank, r.integer<std::int32_t>(p + "root"));
  if (r.has(p + "world")) MPIDBG_TRY_ASSIGN(c.worldRank, r.integer<std::int32_t>(p + "world"));
  if (r.has(p + "uid")) MPIDBG_TRY_ASSIGN(c.uid, r.integer<std::uint64_t>(p + "uid"));
  MPIDBG_TRY_ASSIGN(c.size, r.integer<std::int32_t>(p + "size"));
  MPIDBG_TRY_ASSIGN(c.localRank, r.integer<std::int32_t>(p + "rank"));
  MPIDBG_TRY_ASSIGN(c.name, r.text(p + "name"));
  std::string counts;
  MPIDBG_TRY_ASSIGN(counts, r.text(p + "counts"));
  MPIDBG_TRY_ASSIGN(c.counts, splitList<std::uint64_t>(p + "counts", counts));
  std::string active;
  MPIDBG_TRY_ASSIGN(active, r.text(p + "active"));
  std::array<std::uint8_t, kCollClassCount> flags{};
  MPIDBG_TRY_ASSIGN(flags, splitList<std::uint8_t>(p + "active", active));
  for (std::size_t k = 0; k < kCollClassCount; ++k) {
    if (flags[k] > 1) return fail("key '" + p + "active' values must be 0 or 1");
    c.active[k] = flags[k] == 1;
  }
  return c;
}

std::string encode(std::span<const CommState> states) {
  std::string out;
  for (std::size_t i = 0; i < states.size(); ++i) {
    if (i > 0) out += "--\n";
    appendCommState(out, "", states[i]);
  }
  return out;
}

Expected<std::vector<CommState>> decodeCommStates(std::string_view text) {
  auto records = parseRecords(text);
  if (!records) return fail("bad communicator state: " + records.error().message);
  std::vector<CommState> states;
  states.reserve(records->size());
  for (std::size_t i = 0; i < records->size(); ++i) {
    const std::string prefix = "bad communicator state record " + std::to_string(i) + ": ";
    CommState c;
    MPIDBG_TRY_ASSIGN(c, commStateFrom((*records)[i], ""));
    states.push_back(std::move(c));
  }
  return states;
}

// ---- Registration ----

std::string encode(const Registration& r, bool withMac) {
  std::string w;
  putInt(w, "version", r.version);
  putInt(w, "rank", r.rank);
  putInt(w, "size", r.size);
  put(w, "host", r.host);
  putInt(w, "pid", r.pid);
  putInt(w, "port", r.port);
  if (!r.address.empty()) put(w, "address", r.address);
  put(w, "mpi", r.mpiLibrary);
  putInt(w, "threadlevel", r.threadLevel);
  if (!r.pmixNamespace.empty()) {
    put(w, "pmix_nspace", r.pmixNamespace);
    putInt(w, "pmix_rank", r.pmixRank);
    put(w, "node", r.node);
    putInt(w, "pmix_published", r.pmixPublished ? 1 : 0);
  }
  if (withMac) put(w, "mac", r.mac);
  return w;
}

Expected<Registration> decodeRegistration(std::string_view text) {
  const std::string prefix = "bad registration: ";
  auto record = parseOne(text, "registration");
  if (!record) return std::unexpected(record.error());
  const Record& r = *record;
  Registration g;
  MPIDBG_TRY_ASSIGN(g.version, r.integer<int>("version"));
  MPIDBG_TRY_ASSIGN(g.rank, r.integer<std::int32_t>("rank"));
  MPIDBG_TRY_ASSIGN(g.size, r.integer<std::int32_t>("size"));
  MPIDBG_TRY_ASSIGN(g.host, r.text("host"));
  MPIDBG_TRY_ASSIGN(g.pid, r.integer<std::int32_t>("pid"));
  MPIDBG_TRY_ASSIGN(g.port, r.integer<std::uint16_t>("port"));
  g.address = r.text("address", "");
  MPIDBG_TRY_ASSIGN(g.mpiLibrary, r.text("mpi"));
  MPIDBG_TRY_ASSIGN(g.threadLevel, r.integer<std::int32_t>("threadlevel"));
  if (r.has("pmix_nspace")) {
    MPIDBG_TRY_ASSIGN(g.pmixNamespace, r.text("pmix_nspace"));
    MPIDBG_TRY_ASSIGN(g.pmixRank, r.integer<std::int64_t>("pmix_rank"));
    g.node = r.text("node", "");
    MPIDBG_TRY_ASSIGN(g.pmixPublished, r.flag("pmix_published"));
  }
  g.mac = r.text("mac", "");  // optional here; the front end rejects a missing MAC
  return g;
}

// ---- Event ----

std::string encode(const Event& e) {
  std::string w;
  auto kind = static_cast<std::size_t>(e.kind);
  put(w, "kind", kind < kEventKinds.size() ? kEventKinds[kind] : "unknown");
  if (e.kind == Event::Kind::Exited || e.kind == Event::Kind::Abort || e.kind == Event::Kind::Violation)
    putInt(w, "code", e.code);
  if (e.kind == Event::Kind::Signal) putInt(w, "signal", e.signal);
  if (e.kind == Event::Kind::Breakpoint) putInt(w, "id", e.id);
  if (e.kind == Event::Kind::Breakpoint || e.kind == Event::Kind::Stopped || e.kind == Event::Kind::Violation)
    put(w, "where", e.where);
  if (e.stop != 0) putInt(w, "stop", e.stop);
  if (!e.text.empty()) put(w, "text", e.text);
  if (!e.stacks.empty()) put(w, "stacks", e.stacks);
  return w;
}

Expected<Event> decodeEvent(std::string_view text) {
  const std::string prefix = "bad event: ";
  auto record = parseOne(text, "event");
  if (!record) return std::unexpected(record.error());
  const Record& r = *record;
  Event e;
  std::string kind;
  MPIDBG_TRY_ASSIGN(kind, r.text("kind"));
  std::size_t kindIndex = 0;
  MPIDBG_TRY_ASSIGN(kindIndex, lookupName(kEventKinds, "kind", kind));
  e.kind = static_cast<Event::Kind>(kindIndex);
  if (e.kind == Event::Kind::Exited || e.kind == Event::Kind::Abort || e.kind == Event::Kind::Violation)
    MPIDBG_TRY_ASSIGN(e.code, r.integer<std::int32_t>("code"));
  if (e.kind == Event::Kind::Signal) MPIDBG_TRY_ASSIGN(e.signal, r.integer<std::int32_t>("signal"));
  if (e.kind == Event::Kind::Breakpoint) MPIDBG_TRY_ASSIGN(e.id, r.integer<std::int32_t>("id"));
  if (e.kind == Event::Kind::Breakpoint || e.kind == Event::Kind::Stopped || e.kind == Event::Kind::Violation)
    MPIDBG_TRY_ASSIGN(e.where, r.text("where"));
  if (r.has("stop")) MPIDBG_TRY_ASSIGN(e.stop, r.integer<std::uint32_t>("stop"));
  e.text = r.text("text", "");
  e.stacks = r.text("stacks", "");
  return e;
}

// ---- ContinueRequest ----

std::string encode(const ContinueRequest& c) {
  std::string list;
  for (const auto& [rank, stop] : c.seen) {
    if (!list.empty()) list += ',';
    list += std::to_string(rank) + ':' + std::to_string(stop);
  }
  std::string w;
  put(w, "seen", list);
  return w;
}

Expected<ContinueRequest> decodeContinueRequest(std::string_view text) {
  const std::string prefix = "bad continue request: ";
  auto record = parseOne(text, "continue request");
  if (!record) return std::unexpected(record.error());
  std::string list;
  MPIDBG_TRY_ASSIGN(list, record->text("seen"));
  ContinueRequest c;
  std::string_view rest = list;
  for (bool more = !rest.empty(); more;) {
    const std::size_t comma = rest.find(',');
    const std::string_view pair = rest.substr(0, comma);
    more = comma != std::string_view::npos;
    if (more) rest.remove_prefix(comma + 1);
    const std::size_t colon = pair.find(':');
    if (colon == std::string_view::npos) return fail("bad continue request: '" + shorten(pair) + "' is not RANK:STOP");
    std::int32_t rank = 0;
    std::uint32_t stop = 0;
    MPIDBG_TRY_ASSIGN(rank, Record::parseInt<std::int32_t>("seen", pair.substr(0, colon)));
    MPIDBG_TRY_ASSIGN(stop, Record::parseInt<std::uint32_t>("seen", pair.substr(colon + 1)));
    c.seen[rank] = stop;
  }
  return c;
}

}  // namespace mpidbg::ccs::proto
