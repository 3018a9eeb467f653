#include "debugger/core/Debugger.hpp"
#include "debugger/core/ObjectQuery.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include "ccs/AttachProtocol.hpp"
#include "ccs/Condition.hpp"
#include "ccs/HostAddress.hpp"
#include "debugger/core/RankExpr.hpp"
#include "mpidbg/Text.hpp"


namespace mpidbg::core {

namespace proto = ccs::proto;

Debugger::Debugger(std::function<void(const std::string&)> notify)
    : notify_(std::move(notify)), gdb_(std::make_unique<GdbPool>(job_)) {
  job_.setNotifier(notify_);
  // Remote ranks: gdb asks the rank's runtime to start a gdbserver.
  gdb_->rankCall = [this](const RankInfo& rank, std::string_view handler,
                          const std::vector<std::uint8_t>& data,
                          std::chrono::milliseconds timeout) -> Expected<std::vector<std::uint8_t>> {
    if (!channels_) return fail("no job");
    return channels_->call(rank, handler, data, timeout);
  };
}

Debugger::~Debugger() {
  // An attached job is not ours to end: leaving detaches from it.
  if (attached_) detach();
  kill();
}

Expected<void> Debugger::launch(const LaunchOptions& options, const Progress& progress,
                                const Cancelled& cancelled) {
  if (launcher_) return fail("a job is already running; 'kill' it first");
  struct stat st{};
  if (::stat(options.runtimePath.c_str(), &st) != 0)
    return fail("runtime library not found at " + options.runtimePath +
                " (build it, or pass --runtime PATH)");
  auto where = resolveHubAddress(options.listen);
  if (!where) return std::unexpected(where.error());
  // Ranks on other hosts must read the key file too.
  const bool offHost = !ccs::isLoopbackIpv4(where->advertise);
  auto dir = SessionDir::create(offHost ? SessionDir::Readers::OtherHosts : SessionDir::Readers::ThisHost);
  if (!dir) return std::unexpected(dir.error());
  sessionDir_ = std::move(*dir);
  auto hub = EventHub::start(*where, sessionDir_->key(), job_, notify_);
  if (!hub) return std::unexpected(hub.error());
  hub_ = std::move(*hub);
  if (offHost)
    notify_("Listening for the ranks on " + hub_->endpoint().toString() + "; ranks on other hosts read the session key " +
            "from " + sessionDir_->keyFile() + ", so that directory must be one they share (" +
            (sessionDir_->parent() == SessionDir::Parent::Home     ? "it is under $HOME; set TMPDIR to choose another"
             : sessionDir_->parent() == SessionDir::Parent::TmpDir ? "it is under TMPDIR"
                                                                   : "set TMPDIR to a shared directory") +
            ")");

  std::string preload = options.runtimePath;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing && *existing)
    preload += std::string(":") + existing;
  std::vector<std::pair<std::string, std::string>> env = {
      {"LD_PRELOAD", preload},
      {"MPIDBG_FRONTEND", hub_->endpoint().toString()},
      {"MPIDBG_KEY_FILE", sessionDir_->keyFile()},
      {"MPIDBG_STOP_AT_INIT", options.stopAtInit ? "1" : "0"},
      {"MPIDBG_CCS_SECURITY", options.plainCcs ? "plain" : "tls"},
  };
  if (!options.recordDir.empty()) env.emplace_back("MPIDBG_RECORD", options.recordDir);
  if (!options.replayDir.empty()) env.emplace_back("MPIDBG_REPLAY", options.replayDir);
  channels_ = std::make_unique<RankChannels>(
      options.plainCcs ? ccs::Security{ccs::SecurityMode::Plain, {}, "mpidbg-session"}
                       : ccs::Security{ccs::SecurityMode::Tls, sessionDir_->key(), "mpidbg-session"});
  std::vector<std::string> names;
  for (const auto& [name, value] : env) names.push_back(name);
  launcherFamily_ = launcherFamily(options.argv);
  auto launcher = Launcher::start(withForwardedEnv(options.argv, launcherFamily_, names), env);
  if (!launcher) return std::unexpected(launcher.error());
  launcher_ = std::move(*launcher);
  hub_->setLauncher(launcher_.get());

  int lastShown = -1;
  const bool complete = job_.waitUntil(
      [&] {
        const int size = job_.size();
        const int registered = job_.registered();
        if (progress && registered != lastShown) {
          progress(registered, size);
          lastShown = registered;
        }
        return (size > 0 && registered == size) || job_.launcherStatus().has_value();
      },
      options.registerTimeout, cancelled);

  const int size = job_.size();
  const int registered = job_.registered();
  if (complete && size > 0 && registered == size) {
    // SIGTERM to mpidbg ends these too (endOwnedJob).
    std::vector<pid_t> local;
    for (const auto& info : job_.snapshot())
      if (info.pid > 0 && isThisHost(info.host)) local.push_back(info.pid);
    setOwnedRanks(local);
    return {};
  }
  std::string why;
  if (auto status = job_.launcherStatus()) {
    why = "the job ended before " +
          (registered == 0 ? std::string("any rank registered")
                           : "all ranks registered (" + std::to_string(registered) + " of " +
                                 std::to_string(size) + ")") +
          ": launcher " + status->describe();
    if (registered == 0)
      why += " (is the program an MPI program? does it call MPI_Init?)";
  } else if (cancelled && cancelled()) {
    why = "launch interrupted";
  } else {
    why = "timed out after " + std::to_string(options.registerTimeout.count() / 1000) +
          " s waiting for ranks to register (" + std::to_string(registered) + " of " +
          (size > 0 ? std::to_string(size) : std::string("?")) + " registered)";
    // Ranks that never register: a non-MPI program, or ranks elsewhere
    // that cannot reach a loopback front end.
    if (ccs::isLoopbackIpv4(hub_->endpoint().host))
      why += std::string(registered == 0 ? " (is the program an MPI program? does it call MPI_Init?)" : "") +
             "; ranks on other hosts cannot reach a front end listening on " + hub_->endpoint().host +
             ": run mpidbg --listen host";
  }
  kill();
  return fail(why);
}

Expected<void> Debugger::attach(const AttachOptions& options, const Progress& progress,
                                const Cancelled& cancelled) {
  if (hasJob()) return fail("a job is already being debugged; 'detach' or 'kill' it first");
  if (job_.size() != 0) return fail("this session has had a job already; attach from a new mpidbg");
  struct stat st{};
  if (::stat(options.file.c_str(), &st) != 0)
    return fail("cannot read attach file " + options.file + ": " + std::strerror(errno) +
                " (a job started with MPIDBG_LISTEN=1 names it on stderr)");
  if (!S_ISREG(st.st_mode)) return fail("attach file " + options.file + " is not a regular file");
  if ((st.st_mode & 077) != 0)
    return fail("attach file " + options.file + " can be read by others, so the job's key may be known: " +
                "refusing it (chmod 600 it if you are sure)");
  std::ifstream in(options.file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in && !in.eof()) return fail("cannot read attach file " + options.file);
  auto file = proto::decodeAttachFile(text);
  if (!file) return fail("bad attach file " + options.file + ": " + file.error().message);
  if (file->ranks.empty())
    return fail("attach file " + options.file + " names no rank: no rank's server started (see the job's stderr)");

  auto where = resolveHubAddress(options.listen);
  if (!where) return std::unexpected(where.error());
  auto hub = EventHub::start(*where, file->key, job_, notify_);
  if (!hub) return std::unexpected(hub.error());
  hub_ = std::move(*hub);
  channels_ = std::make_unique<RankChannels>(
      file->plain ? ccs::Security{ccs::SecurityMode::Plain, {}, "mpidbg-session"}
                  : ccs::Security{ccs::SecurityMode::Tls, file->key, "mpidbg-session"});

  std::vector<RankInfo> targets;
  for (const proto::AttachRank& r : file->ranks) {
    RankInfo info;
    info.rank = r.rank;
    info.host = r.host;
    info.pid = r.pid;
    info.endpoint = ccs::Endpoint{r.address, r.port};
    targets.push_back(std::move(info));
  }
  const std::string endpoint = hub_->endpoint().toString();
  const auto replies =
      channels_->query(targets, proto::kAttachHandler, std::vector<std::uint8_t>(endpoint.begin(), endpoint.end()),
                       requestTimeout);
  // Why each rank could not be attached, grouped by reason.
  std::map<std::string, RankSet> refused;
  RankSet answered;
  for (const auto& [rank, reply] : replies) {
    std::string why;
    if (!reply) why = reply.error().message;
    else if (const std::string answer(reply->begin(), reply->end()); answer != "ok\n")
      why = answer.starts_with("error: ") ? answer.substr(7, answer.find_last_not_of('\n') - 6)
                                          : "unexpected answer '" + answer.substr(0, 40) + "'";
    if (why.empty()) answered.insert(rank);
    else refused[why].insert(rank);
  }
  for (int r = 0; r < file->size; ++r)
    if (!replies.count(r)) refused["not in the attach file (its server did not start)"].insert(r);
  auto describeRefused = [&] {
    std::string out;
    for (const auto& [why, set] : refused) out += (out.empty() ? "" : "; ") + set.toString() + ": " + why;
    return out;
  };
  if (answered.empty()) {
    hub_.reset();
    channels_.reset();
    return fail("no rank could be attached (" + describeRefused() + ")");
  }

  int lastShown = -1;
  const int expected = static_cast<int>(answered.size());
  const bool complete = job_.waitUntil(
      [&] {
        const int registered = job_.registered();
        if (progress && registered != lastShown) {
          progress(registered, expected);
          lastShown = registered;
        }
        return registered >= expected;
      },
      options.registerTimeout, cancelled);
  if (!complete) {
    const int registered = job_.registered();
    detach();
    if (cancelled && cancelled()) return fail("attach interrupted");
    return fail("timed out waiting for ranks to register (" + std::to_string(registered) + " of " +
                std::to_string(expected) + ")");
  }
  attached_ = true;
  if (!refused.empty()) notify_("not attached: " + describeRefused());
  return {};
}

Expected<void> Debugger::attachProcesses(const std::vector<FoundRank>& ranks, int size) {
  if (hasJob()) return fail("a job is already being debugged; 'detach' or 'kill' it first");
  if (job_.size() != 0) return fail("this session has had a job already; attach from a new mpidbg");
  if (ranks.empty()) return fail("no rank to attach to");
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  for (const FoundRank& r : ranks)
    if (auto added = job_.addProcess(r.rank, size, r.pid, host, r.node); !added) return added;
  attached_ = true;
  return {};
}

void Debugger::refreshProcesses() {
  for (const auto& info : job_.snapshot())
    if (info.noRuntime && !info.ended() && info.pid > 0 && ::kill(info.pid, 0) != 0 && errno == ESRCH)
      job_.channelClosed(info.rank);
}

bool Debugger::jobAlive() {
  if (attached_) {
    refreshProcesses();
    for (const auto& info : job_.snapshot())
      if (!info.ended()) return true;
    return false;
  }
  if (launcher_ == nullptr) return false;
  if (job_.launcherStatus()) return false;
  // Whichever thread reaps the launcher first records its end in the job.
  if (auto status = launcher_->poll()) {
    job_.launcherEnded(*status);
    return false;
  }
  return true;
}

namespace {

/// The debugger's answers to a rank-set expression's operands. Live states
/// come from one views() call, made the first time an operand needs them.
class JobResolver final : public RankExprResolver {
 public:
  JobResolver(Debugger& debugger, std::chrono::milliseconds blockedAfter)
      : debugger_(debugger), blockedAfter_(blockedAfter) {}

  int jobSize() const override { return debugger_.job().size(); }

  Expected<RankSet> namedSet(std::string_view name) override {
    if (auto it = debugger_.namedSets.find(std::string(name)); it != debugger_.namedSets.end()) return it->second;
    std::string known;
    for (const auto& [n, set] : debugger_.namedSets) known += (known.empty() ? "" : ", ") + n;
    return fail("unknown rank set name '" + std::string(name) + "' (" +
                (known.empty() ? std::string("no named sets yet") : "named sets: " + known) +
                "; define one with 'set " + std::string(name) + " = EXPR')");
  }

  Expected<RankSet> equivalenceClass(std::size_t n) override {
    const auto& classes = debugger_.equivalenceClasses;
    if (classes.empty()) return fail("no equivalence classes yet: run 'where' or 'equiv' first");
    if (n == 0 || n > classes.size())
      return fail("there is no $equiv[" + std::to_string(n) + "]: the last 'where'/'equiv' found " +
                  std::to_string(classes.size()) + " class" + (classes.size() == 1 ? "" : "es"));
    return classes[n - 1];
  }

  Expected<RankSet> focusSet() override {
    return debugger_.focus ? *debugger_.focus : RankSet::all(jobSize());
  }

  Expected<RankSet> liveState(LiveState state) override {
    return select([&](const RankView& v) {
      const auto& s = v.status;
      switch (state) {
        case LiveState::Exited: return v.info.ended();
        case LiveState::Held: return !v.info.ended() && v.info.heldByGdb;
        case LiveState::Frozen: return s && s->state == proto::RankState::Frozen;
        case LiveState::Blocked: return s && s->state == proto::RankState::InMpi && blocked(*s);
        case LiveState::Running:
          return s && (s->state == proto::RankState::Running ||
                       (s->state == proto::RankState::InMpi && !blocked(*s)));
      }
      return false;
    });
  }

  Expected<RankSet> inCall(std::string_view function) override {
    if (ccs::cond::findFunction(function) == nullptr) return fail(ccs::cond::unknownFunction(function).message);
    return select([&](const RankView& v) {
      return v.status && v.status->state == proto::RankState::InMpi && v.status->call &&
             v.status->call->function == function;
    });
  }

  Expected<RankSet> atEntry(std::string_view entry) override {
    // The runtime's stop text ends in the safe point: "breakpoint 1 at entry
    // NAME", "frozen at entry NAME", "stepped to entry NAME".
    const std::string suffix = " entry " + std::string(entry);
    return select([&](const RankView& v) {
      return v.status && v.status->state == proto::RankState::Frozen && v.status->stop.ends_with(suffix);
    });
  }

  Expected<RankSet> objectQuery(const ObjectCondition& c) override { return ranksWhere(debugger_, c); }

 private:
  bool blocked(const proto::RankStatus& s) const {
    return s.call && waitsLong(*s.call, blockedAfter_);
  }

  /// The ranks whose view satisfies `pred` (live ranks only have a status:
  /// views of ended or held ranks carry none).
  template <typename Pred>
  Expected<RankSet> select(Pred pred) {
    if (!views_) views_ = debugger_.views();
    RankSet out;
    for (const auto& v : *views_)
      if ((v.info.ended() || v.info.heldByGdb || v.status) && pred(v)) out.insert(v.info.rank);
    return out;
  }

  Debugger& debugger_;
  std::chrono::milliseconds blockedAfter_;
  std::optional<std::vector<RankView>> views_;
};

}  // namespace

Expected<RankSet> Debugger::ranks(std::string_view text, std::chrono::milliseconds blockedAfter) {
  if (!hasJob()) return fail("no job (start one with: mpidbg -- mpiexec -n 4 ./app)");
  auto expr = RankExpr::parse(text);
  if (!expr) return std::unexpected(expr.error());
  JobResolver resolver(*this, blockedAfter);
  return expr->evaluate(resolver);
}

Debugger::Gathered Debugger::gather(const std::vector<RankInfo>& targets, std::string_view handler,
                                    const std::vector<std::uint8_t>& data) {
  Gathered out;
  if (!channels_ || targets.empty()) return out;
  std::string treeFailure;
  if (useTree && targets.size() > 1) {
    ccs::ForwardRequest request;
    request.deadline = requestTimeout;
    request.fanOut = treeFanOut;
    request.inner.pe = ccs::kBroadcastPe;
    request.inner.handler = std::string(handler);
    request.inner.data = data;
    for (const auto& info : targets)  // sorted by rank: the lowest is the gateway
      request.table.push_back(ccs::PeerEntry{info.rank, info.endpoint.host, info.endpoint.port});
    auto reply = channels_->forward(targets.front(), request);
    if (reply && !reply->error) {
      out.payload = std::move(reply->payload);
      for (const auto& m : reply->missing) out.missing[m.pe] = m.reason;
      return out;
    }
    treeFailure = reply ? *reply->error : reply.error().message;
  }
  for (auto& [rank, reply] : channels_->query(targets, handler, data, requestTimeout)) {
    if (reply) out.byRank[rank] = std::move(*reply);
    else out.missing[rank] = reply.error().message;
  }
  // A gateway that does not answer directly either has ended or is ending
  // (the job finishing): its own entry in `missing` says so, and the tree's
  // failure is no news. Otherwise the tree failed on its own: said.
  if (!treeFailure.empty() && !out.missing.count(targets.front().rank))
    notify_("forwarding tree failed (" + treeFailure + "); asked each rank directly");
  return out;
}

namespace {

std::string_view textOf(const std::vector<std::uint8_t>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

std::vector<RankView> Debugger::views(const RankSet& ranks) {
  refreshProcesses();
  std::vector<RankView> views;
  std::vector<RankInfo> reachable;
  for (auto& info : job_.snapshot()) {
    if (!ranks.empty() && !ranks.contains(info.rank)) continue;
    if (info.reachable()) reachable.push_back(info);
    views.push_back(RankView{std::move(info), std::nullopt, {}, std::nullopt});
  }
  Gathered gathered = gather(reachable, proto::kStatusHandler, {});
  std::map<int, proto::RankStatus> statuses;
  std::map<int, std::string> bad;
  auto take = [&](std::string_view text, int from) {
    auto decoded = proto::decodeRankStatuses(text);
    if (!decoded) {
      bad[from] = "bad status reply: " + decoded.error().message;
      return;
    }
    for (auto& s : *decoded) {
      if (s.stopNumber != 0) job_.sawStop(s.rank, s.stopNumber);
      statuses[s.rank] = std::move(s);
    }
  };
  if (!gathered.payload.empty()) take(textOf(gathered.payload), -1);
  for (const auto& [rank, bytes] : gathered.byRank) take(textOf(bytes), rank);
  for (auto& view : views) {
    const int r = view.info.rank;
    if (auto it = statuses.find(r); it != statuses.end()) {
      view.status = std::move(it->second);
      if (view.status->call) {
        std::lock_guard lock(resumedMutex_);
        if (auto resumed = resumedAt_.find(r); resumed != resumedAt_.end()) {
          const auto since = std::chrono::duration_cast<std::chrono::microseconds>(
              std::chrono::steady_clock::now() - resumed->second);
          view.status->call->elapsedUs =
              std::min<std::uint64_t>(view.status->call->elapsedUs, static_cast<std::uint64_t>(since.count()));
        }
      }
      continue;
    }
    if (!view.info.reachable()) continue;
    // The rank may have exited while we asked: prefer the job's record.
    if (auto fresh = job_.rank(r)) view.info = *fresh;
    if (auto m = gathered.missing.find(r); m != gathered.missing.end()) view.queryError = m->second;
    else if (auto b = bad.find(r); b != bad.end()) view.queryError = b->second;
    else if (auto all = bad.find(-1); all != bad.end()) view.queryError = all->second;
    else view.queryError = "no status in the reply";
  }
  return views;
}

std::map<int, std::vector<proto::CommState>> Debugger::collectiveStates() {
  std::vector<RankInfo> reachable;
  for (auto& info : job_.snapshot())
    if (info.reachable()) reachable.push_back(info);
  Gathered gathered = gather(reachable, proto::kCollectivesHandler, {});
  std::map<int, std::vector<proto::CommState>> out;
  auto take = [&](std::string_view text, int from) {
    auto states = proto::decodeCommStates(text);
    if (!states) {
      notify_((from >= 0 ? "rank " + std::to_string(from) : std::string("the tree")) +
              " sent a bad collectives reply: " + states.error().message);
      return;
    }
    for (auto& state : *states) {
      const int rank = state.worldRank >= 0 ? state.worldRank : from;
      if (rank >= 0) out[rank].push_back(std::move(state));
    }
  };
  if (!gathered.payload.empty()) take(textOf(gathered.payload), -1);
  for (const auto& [rank, bytes] : gathered.byRank) take(textOf(bytes), rank);
  return out;
}

std::map<int, std::string> Debugger::continueRanks(const RankSet& ranks) {
  std::map<int, std::string> problems;
  std::vector<RankInfo> targets;
  for (auto& info : job_.snapshot()) {
    if (!ranks.contains(info.rank)) continue;
    if (info.heldByGdb)
      problems[info.rank] = "is held by gdb (release it with: gdb detach " + std::to_string(info.rank) + ")";
    else if (info.ended())
      problems[info.rank] = info.endedPhrase();
    else if (info.noRuntime)
      problems[info.rank] = std::string(kNoRuntime);
    else
      targets.push_back(info);
  }
  // Quote the stops seen so far: a breakpoint hit that crosses this
  // continue on the wire stays stopped (and its event is shown).
  proto::ContinueRequest request;
  for (const auto& info : targets) request.seen[info.rank] = info.lastStop;
  const std::string data = proto::encode(request);
  const auto missing =
      gather(targets, proto::kContinueHandler, std::vector<std::uint8_t>(data.begin(), data.end())).missing;
  for (const auto& info : targets)
    if (!missing.count(info.rank)) job_.continued(info.rank, info.lastStop);
  noteResumed(targets, missing);
  // A rank that ended during the exchange is no longer stopped: nothing is
  // left to continue, and its end is reported as an event of its own.
  const auto ended = endedMeanwhile(missing);
  for (const auto& [rank, why] : missing)
    if (!ended.count(rank)) problems[rank] = "did not answer: " + why;
  return problems;
}

void Debugger::noteResumed(const std::vector<RankInfo>& ranks, const std::map<int, std::string>& missing) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(resumedMutex_);
  for (const auto& info : ranks)
    if (!missing.count(info.rank)) resumedAt_[info.rank] = now;
}

std::map<int, std::string> Debugger::endedMeanwhile(const std::map<int, std::string>& missing) {
  std::map<int, std::string> ended;
  if (missing.empty()) return ended;
  auto look = [&] {
    ended.clear();
    for (const auto& [rank, why] : missing)
      if (auto info = job_.rank(rank); info && info->ended()) ended[rank] = info->endedPhrase();
    return ended.size() == missing.size();
  };
  // waitUntil asks `look` last after its last wait, so `ended` is current.
  job_.waitUntil(look, std::chrono::milliseconds(1000), {});
  return ended;
}

std::map<int, Debugger::ControlOutcome> Debugger::control(const RankSet& ranks,
                                                          std::string_view handler,
                                                          const std::string& data) {
  std::map<int, ControlOutcome> outcomes;
  std::vector<RankInfo> targets;
  for (auto& info : job_.snapshot()) {
    if (!ranks.contains(info.rank)) continue;
    if (info.heldByGdb)
      outcomes[info.rank] = {false, "held by gdb", true};
    else if (info.ended())
      outcomes[info.rank] = {false, info.endedPhrase()};
    else if (info.noRuntime)
      outcomes[info.rank] = {false, std::string(kNoRuntime)};
    else
      targets.push_back(info);
  }
  Gathered gathered = gather(targets, handler, std::vector<std::uint8_t>(data.begin(), data.end()));
  if (handler == proto::kStepHandler) noteResumed(targets, gathered.missing);
  auto take = [&](std::string_view text) {
    auto replies = proto::decodeControlReplies(text);
    if (!replies) return;
    for (const auto& r : *replies)
      if (r.rank >= 0) outcomes[r.rank] = {r.ok, r.message};
  };
  take(textOf(gathered.payload));
  for (const auto& [rank, bytes] : gathered.byRank) take(textOf(bytes));
  const auto ended = endedMeanwhile(gathered.missing);
  for (const auto& [rank, why] : gathered.missing)
    outcomes[rank] = {false, ended.count(rank) ? ended.at(rank) : "did not answer: " + why};
  for (const auto& info : targets)
    if (!outcomes.count(info.rank)) outcomes[info.rank] = {false, "sent no reply"};
  return outcomes;
}

std::map<int, Expected<std::vector<std::uint8_t>>> Debugger::queryEach(const RankSet& ranks,
                                                                      std::string_view handler,
                                                                      const std::vector<std::uint8_t>& data) {
  std::map<int, Expected<std::vector<std::uint8_t>>> out;
  std::vector<RankInfo> targets;
  std::map<int, RankInfo> known;
  for (auto& info : job_.snapshot()) known[info.rank] = info;
  for (int rank : ranks) {
    auto it = known.find(rank);
    if (it == known.end()) out.emplace(rank, fail("rank " + std::to_string(rank) + " has not registered"));
    else if (it->second.heldByGdb)
      out.emplace(rank, fail("rank " + std::to_string(rank) + " is held by gdb (its runtime cannot answer; "
                             "'gdb detach' first)"));
    else if (it->second.noRuntime && !it->second.ended())
      out.emplace(rank, fail("rank " + std::to_string(rank) + " " + std::string(kNoRuntime)));
    else if (!it->second.reachable())
      out.emplace(rank, fail("rank " + std::to_string(rank) + " " + it->second.endedPhrase()));
    else targets.push_back(it->second);
  }
  if (!channels_) {
    for (const auto& info : targets) out.emplace(info.rank, fail("no job"));
    return out;
  }
  for (auto& [rank, reply] : channels_->query(targets, handler, data, requestTimeout)) out.emplace(rank, std::move(reply));
  return out;
}

std::pair<std::string, std::map<int, std::string>> Debugger::collect(const RankSet& ranks,
                                                                     std::string_view handler) {
  std::vector<RankInfo> targets;
  for (auto& info : job_.snapshot())
    if (ranks.contains(info.rank) && info.reachable()) targets.push_back(info);
  Gathered gathered = gather(targets, handler, {});
  std::string text(textOf(gathered.payload));
  for (const auto& [rank, bytes] : gathered.byRank) text += std::string(textOf(bytes));
  return {std::move(text), std::move(gathered.missing)};
}

void Debugger::detach() {
  if (!launcher_ && !hub_ && !attached_) return;
  if (job_.size() > 0 && hub_) control(RankSet::all(job_.size()), proto::kDetachHandler, "");
  if (gdb_) gdb_->closeAll();
  job_.setKilling();  // channels closing now are not news
  if (hub_) hub_->setLauncher(nullptr);
  hub_.reset();  // closes every event channel: the ranks go quiet and run on
  if (launcher_) launcher_->release();
  launcher_.reset();
  attached_ = false;
  if (channels_) channels_->clear();
  breakpoints_.clear();
}

bool Debugger::waitForEvent(std::chrono::milliseconds timeout, std::chrono::milliseconds blockedAfter,
                            const Cancelled& cancelled) {
  const std::uint64_t before = job_.eventCount();
  return waitSettled(timeout, blockedAfter, [&] {
    return job_.eventCount() != before || (cancelled && cancelled());
  }) || job_.eventCount() != before;
}

namespace {

/// The bounds of waitSettled's pause between two looks at the ranks: not a
/// busy loop while a rank is about to count as blocked, and no longer than a
/// second, so a change no event reports (a launcher that ends on its own) is
/// still seen within one.
constexpr std::chrono::milliseconds kSettleLookMin{50};
constexpr std::chrono::milliseconds kSettleLookMax{1000};
/// How long waitSettled waits for the events of stops a status showed first.
constexpr std::chrono::milliseconds kStopEventGrace{2000};

}  // namespace

bool Debugger::waitSettled(std::chrono::milliseconds timeout, std::chrono::milliseconds blockedAfter,
                           const Cancelled& cancelled) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (!jobAlive()) return true;
    const auto all = views();
    const std::uint64_t seen = job_.changeCount();
    bool settled = !all.empty();
    for (const auto& v : all) settled = settled && isSettled(v, blockedAfter);
    if (settled) {
      // Every rank ended: the launcher follows (srun takes up to a second
      // after its last task); wait a little for it, so its exit code is known.
      bool allEnded = true;
      for (const auto& info : job_.snapshot()) allEnded = allEnded && info.ended();
      if (!allEnded) {
        // A status can show a stop before its event (sent right after the
        // stop) has come through the event channel: give those events a
        // moment, so that the stop's notice comes before wait returns.
        std::map<int, std::uint32_t> stops;
        for (const auto& v : all)
          if (v.status && v.status->stopNumber != 0) stops[v.info.rank] = v.status->stopNumber;
        if (!stops.empty()) {
          const auto until = std::min(deadline, std::chrono::steady_clock::now() + kStopEventGrace);
          while (!job_.stopEventsArrived(stops) && std::chrono::steady_clock::now() < until &&
                 !(cancelled && cancelled()))
            job_.waitUntil([&] { return job_.stopEventsArrived(stops); },
                           std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()),
                           cancelled);
        }
        return true;
      }
      const auto grace = std::min(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(5));
      while (jobAlive() && std::chrono::steady_clock::now() < grace && !(cancelled && cancelled()))
        job_.waitUntil([] { return false; }, std::chrono::milliseconds(50), cancelled);
      return true;
    }
    if (cancelled && cancelled()) return false;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    // Look again when the job could first be settled, or at once on a
    // change (a stop, an exit), within [kSettleLookMin, kSettleLookMax].
    const auto pause = std::clamp(untilSettled(all, blockedAfter), kSettleLookMin, kSettleLookMax);
    job_.waitUntil([&] { return job_.changeCount() != seen; }, pause, cancelled);
  }
}

void Debugger::kill() {
  if (gdb_) gdb_->closeAll();
  if (attached_) {
    // Not our launcher: end the ranks we can reach; their launcher ends the job.
    job_.setKilling();
    RankSet remote;
    for (const auto& info : job_.snapshot()) {
      if (info.ended() || info.pid <= 0) continue;
      if (isThisHost(info.host)) ::kill(info.pid, SIGKILL);
      else remote.insert(info.rank);
    }
    if (!remote.empty()) notify_("ranks " + remote.toString() + " run on other hosts: not killed");
    attached_ = false;
  }
  if (launcher_) {
    job_.setKilling();
    hub_->setLauncher(nullptr);
    // Hydra answers a SIGTERM by forwarding it and printing its 12-line
    // "BAD TERMINATION ... EXIT CODE: 15" banner about a kill the user asked
    // for: with every rank on this host, SIGKILL it and its proxies at once
    // and end the ranks below (each in a process group of its own) directly.
    bool allLocal = true;
    for (const auto& info : job_.snapshot())
      if (!info.ended() && !isThisHost(info.host)) allLocal = false;
    const bool quiet = launcherFamily_ == LauncherFamily::Hydra && allLocal;
    launcher_->terminate(std::chrono::milliseconds(2000), quiet ? SIGKILL : SIGTERM);
    if (auto status = launcher_->poll()) job_.launcherEnded(*status);
    // Ranks live in process groups of their own (Hydra gives each one): end
    // any the launcher left behind on this host.
    for (const auto& info : job_.snapshot())
      if (!info.ended() && info.pid > 0 && isThisHost(info.host)) ::kill(info.pid, SIGKILL);
    launcher_.reset();
  }
  if (channels_) channels_->clear();
  hub_.reset();
  sessionDir_.reset();
}

}  // namespace mpidbg::core
