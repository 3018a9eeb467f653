// mpidbg's text records between the runtime and the front end
// (format described in ccs/RankProtocol.hpp).
#include "ccs/RankProtocol.hpp"

#include <charconv>
#include <limits>
#include <map>

namespace mpidbg::ccs::proto {
namespace {

constexpr std::string_view kSeparator = "--";
constexpr std::array<std::string_view, kCollClassCount> kCollNames = {
    "MPI_Barrier",  "MPI_Bcast",     "MPI_Allgather",      "MPI_Allgatherv", "MPI_Allreduce",
    "MPI_Alltoall", "MPI_Alltoallv", "MPI_Reduce_scatter", "MPI_Reduce",     "MPI_Gather",
    "MPI_Gatherv",  "MPI_Scan",      "MPI_Scatter",        "MPI_Scatterv"};
constexpr std::array<std::string_view, 4> kStateNames = {"running", "frozen", "in-mpi",
                                                         "finalized"};
constexpr std::array<std::string_view, 6> kEventKinds = {"finalized", "exited",     "signal",
                                                          "abort",     "breakpoint", "stopped"};

std::string escape(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char ch : value) {
    if (ch == '\\') {
      out += "\\\\";
    } else if (ch == '\n') {
      out += "\\n";
    } else {
      out += ch;
    }
  }
  return out;
}

Expected<std::string> unescape(std::string_view key, std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] != '\\') {
      out += value[i];
      continue;
    }
    char next = i + 1 < value.size() ? value[i + 1] : '\0';
    if (next == '\\') {
      out += '\\';
    } else if (next == 'n') {
      out += '\n';
    } else {
      return fail("bad escape in value of key '" + std::string(key) + "'");
    }
    ++i;
  }
  return out;
}

/// Builds one record's text.
class Writer {
 public:
  void put(std::string_view key, std::string_view value) {
    text_ += key;
    text_ += '=';
    text_ += escape(value);
    text_ += '\n';
  }
  template <typename Int>
  void putInt(std::string_view key, Int value) {
    put(key, std::to_string(value));
  }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

/// One decoded record: key -> unescaped value.
class Record {
 public:
  Expected<void> add(std::string_view line) {
    auto equals = line.find('=');
    if (equals == std::string_view::npos)
      return fail("malformed record line '" + shorten(line) + "': no '='");
    std::string key(line.substr(0, equals));
    if (key.empty()) return fail("malformed record line '" + shorten(line) + "': empty key");
    auto value = unescape(key, line.substr(equals + 1));
    if (!value) return std::unexpected(value.error());
    if (!values_.emplace(key, std::move(*value)).second)
      return fail("duplicate key '" + shorten(key) + "' in record");
    return {};
  }
  bool empty() const { return values_.empty(); }
  bool has(std::string_view key) const { return values_.contains(std::string(key)); }

  Expected<std::string> text(std::string_view key) const {
    auto found = values_.find(std::string(key));
    if (found == values_.end()) return fail("record is missing key '" + std::string(key) + "'");
    return found->second;
  }
  /// Optional text: `fallback` when the key is absent.
  std::string text(std::string_view key, std::string_view fallback) const {
    auto found = values_.find(std::string(key));
    return found == values_.end() ? std::string(fallback) : found->second;
  }
  template <typename Int>
  Expected<Int> integer(std::string_view key) const {
    auto value = text(key);
    if (!value) return std::unexpected(value.error());
    return parseInt<Int>(key, *value);
  }

  template <typename Int>
  static Expected<Int> parseInt(std::string_view key, std::string_view value) {
    Int result{};
    int base = 10;
    std::string_view digits = value;
    if (digits.starts_with("0x") || digits.starts_with("0X")) {
      digits.remove_prefix(2);
      base = 16;
    }
    if (digits.empty() || digits.front() == '+' || (base == 16 && digits.front() == '-'))
      return badInt(key, value);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), result, base);
    if (ec != std::errc{} || end != digits.data() + digits.size()) return badInt(key, value);
    return result;
  }

 private:
  static std::unexpected<Error> badInt(std::string_view key, std::string_view value) {
    return fail("key '" + std::string(key) + "' has a bad integer value '" + shorten(value) + "'");
  }
  static std::string shorten(std::string_view text) {
    constexpr std::size_t kMax = 60;
    std::string out(text.substr(0, kMax));
    for (char& ch : out)
      if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) ch = '?';
    return text.size() > kMax ? out + "..." : out;
  }
  std::map<std::string, std::string> values_;
};

Expected<std::vector<Record>> parseRecords(std::string_view text) {
  std::vector<Record> records(1);
  while (!text.empty()) {
    auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line == kSeparator) {
      if (!records.back().empty()) records.emplace_back();
      continue;
    }
    if (auto added = records.back().add(line); !added) return std::unexpected(added.error());
  }
  if (records.back().empty()) records.pop_back();
  return records;
}

Expected<Record> parseOne(std::string_view text, std::string_view what) {
  auto records = parseRecords(text);
  if (!records) return fail("bad " + std::string(what) + ": " + records.error().message);
  if (records->size() != 1)
    return fail("bad " + std::string(what) + ": expected one record, got " +
                std::to_string(records->size()));
  return std::move(records->front());
}

template <std::size_t N>
Expected<std::size_t> lookupName(const std::array<std::string_view, N>& names, std::string_view key,
                                 std::string_view value) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == value) return i;
  return fail("key '" + std::string(key) + "' has an unknown value '" +
              std::string(value.substr(0, 60)) + "'");
}

// Shorthand for "assign or return the error" inside the decoders.
#define MPIDBG_TRY_ASSIGN(target, expr)                                    \
  do {                                                                     \
    auto mpidbg_value = (expr);                                            \
    if (!mpidbg_value) return fail(prefix + mpidbg_value.error().message); \
    target = std::move(*mpidbg_value);                                     \
  } while (0)

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
  Writer w;
  w.putInt("rank", s.rank);
  w.putInt("size", s.size);
  w.put("state", stateName(s.state));
  w.putInt("mpicalls", s.mpiCalls);
  if (!s.stop.empty()) w.put("stop", s.stop);
  if (s.call) {
    const MpiCall& c = *s.call;
    w.put("call.function", c.function);
    w.put("call.peerrole", c.peerRole);
    w.putInt("call.peer", c.peer);
    if (c.hasTag) w.putInt("call.tag", c.tag);
    w.putInt("call.comm", c.comm);
    w.put("call.commname", c.commName);
    w.putInt("call.collcall", c.collCall);
    w.putInt("call.elapsedus", c.elapsedUs);
    w.putInt("call.seq", c.seq);
  }
  return w.take();
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
  if (r.has("call.function")) {
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
    s.call = std::move(c);
  }
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

std::string encode(std::span<const CommState> states) {
  std::string out;
  for (std::size_t i = 0; i < states.size(); ++i) {
    const CommState& c = states[i];
    if (i > 0) out += "--\n";
    Writer w;
    w.putInt("handle", c.handle);
    w.putInt("root", c.rootWorldRank);
    if (c.worldRank >= 0) w.putInt("world", c.worldRank);
    w.putInt("size", c.size);
    w.putInt("rank", c.localRank);
    w.put("name", c.name);
    w.put("counts", joinCounts(c.counts));
    w.put("active", joinFlags(c.active));
    out += w.take();
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
    const Record& r = (*records)[i];
    CommState c;
    MPIDBG_TRY_ASSIGN(c.handle, r.integer<std::uint64_t>("handle"));
    MPIDBG_TRY_ASSIGN(c.rootWorldRank, r.integer<std::int32_t>("root"));
    if (r.has("world")) MPIDBG_TRY_ASSIGN(c.worldRank, r.integer<std::int32_t>("world"));
    MPIDBG_TRY_ASSIGN(c.size, r.integer<std::int32_t>("size"));
    MPIDBG_TRY_ASSIGN(c.localRank, r.integer<std::int32_t>("rank"));
    MPIDBG_TRY_ASSIGN(c.name, r.text("name"));
    std::string counts;
    MPIDBG_TRY_ASSIGN(counts, r.text("counts"));
    MPIDBG_TRY_ASSIGN(c.counts, splitList<std::uint64_t>("counts", counts));
    std::string active;
    MPIDBG_TRY_ASSIGN(active, r.text("active"));
    std::array<std::uint8_t, kCollClassCount> flags{};
    MPIDBG_TRY_ASSIGN(flags, splitList<std::uint8_t>("active", active));
    for (std::size_t k = 0; k < kCollClassCount; ++k) {
      if (flags[k] > 1) return fail(prefix + "key 'active' values must be 0 or 1");
      c.active[k] = flags[k] == 1;
    }
    states.push_back(std::move(c));
  }
  return states;
}

// ---- Registration ----

std::string encode(const Registration& r, bool withMac) {
  Writer w;
  w.putInt("version", r.version);
  w.putInt("rank", r.rank);
  w.putInt("size", r.size);
  w.put("host", r.host);
  w.putInt("pid", r.pid);
  w.putInt("port", r.port);
  w.put("mpi", r.mpiLibrary);
  w.putInt("threadlevel", r.threadLevel);
  if (withMac) w.put("mac", r.mac);
  return w.take();
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
  MPIDBG_TRY_ASSIGN(g.mpiLibrary, r.text("mpi"));
  MPIDBG_TRY_ASSIGN(g.threadLevel, r.integer<std::int32_t>("threadlevel"));
  g.mac = r.text("mac", "");  // optional here; the front end rejects a missing MAC
  return g;
}

// ---- Event ----

std::string encode(const Event& e) {
  Writer w;
  auto kind = static_cast<std::size_t>(e.kind);
  w.put("kind", kind < kEventKinds.size() ? kEventKinds[kind] : "unknown");
  if (e.kind == Event::Kind::Exited || e.kind == Event::Kind::Abort) w.putInt("code", e.code);
  if (e.kind == Event::Kind::Signal) w.putInt("signal", e.signal);
  if (e.kind == Event::Kind::Breakpoint) w.putInt("id", e.id);
  if (e.kind == Event::Kind::Breakpoint || e.kind == Event::Kind::Stopped) w.put("where", e.where);
  if (!e.text.empty()) w.put("text", e.text);
  return w.take();
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
  if (e.kind == Event::Kind::Exited || e.kind == Event::Kind::Abort)
    MPIDBG_TRY_ASSIGN(e.code, r.integer<std::int32_t>("code"));
  if (e.kind == Event::Kind::Signal) MPIDBG_TRY_ASSIGN(e.signal, r.integer<std::int32_t>("signal"));
  if (e.kind == Event::Kind::Breakpoint) MPIDBG_TRY_ASSIGN(e.id, r.integer<std::int32_t>("id"));
  if (e.kind == Event::Kind::Breakpoint || e.kind == Event::Kind::Stopped)
    MPIDBG_TRY_ASSIGN(e.where, r.text("where"));
  e.text = r.text("text", "");
  return e;
}

#undef MPIDBG_TRY_ASSIGN

}  // namespace mpidbg::ccs::proto
