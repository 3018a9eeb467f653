// A session's job from start to end: launch under a launcher, attach through
// an attach file or to processes by pid, whether the job is alive, detach and
// kill (Session.hpp). The queries on top are the Debugger's (Debugger.hpp).
#include "debugger/core/Session.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "ccs/proto/AttachProtocol.hpp"
#include "ccs/proto/ControlProtocol.hpp"
#include "ccs/proto/Message.hpp"
#include "ccs/transport/HostAddress.hpp"
#include "debugger/core/RankRequests.hpp"

namespace mpidbg::core {

namespace proto = ccs::proto;

Session::Session(std::function<void(const std::string&)> notify, RouteSettings routing)
    : notify_(std::move(notify)), routing_(routing), gdb_(std::make_unique<GdbPool>(job_)) {
  job_.setNotifier(notify_);
  // Remote ranks: gdb asks the rank's runtime to start a gdbserver.
  gdb_->rankCall = [this](const RankInfo& rank, std::string_view handler,
                          const std::vector<std::uint8_t>& data,
                          std::chrono::milliseconds timeout) -> Expected<std::vector<std::uint8_t>> {
    if (!channels_) return fail("no job");
    return channels_->call(rank, handler, data, timeout);
  };
  backend_ = std::make_unique<RuntimeRanks>(
      job_, [this] { return channels_.get(); },
      [this] { return routing_; }, notify_);
  router_ = std::make_unique<RankRouter>(*backend_);
}

Session::~Session() {
  // An attached job is not ours to end: leaving detaches from it.
  if (attached_) detach();
  kill();
}

Expected<void> Session::launch(const LaunchOptions& options, const Progress& progress,
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
  auto launcher = Launcher::start(withForwardedEnv(options.argv, launcherFamily_, names), env, options.outputFd,
                                  options.errorFd);
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

Expected<void> Session::attach(const AttachOptions& options, const Progress& progress,
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
  const std::string request = proto::encodeRecord(proto::AttachRequest{hub_->endpoint().toString()});
  const auto replies = channels_->query(targets, proto::kAttachHandler,
                                        std::vector<std::uint8_t>(request.begin(), request.end()), routing_.requestTimeout);
  // Why each rank could not be attached, grouped by reason.
  std::map<std::string, RankSet> refused;
  RankSet answered;
  for (const auto& [rank, reply] : replies) {
    std::string why;
    if (!reply) {
      why = reply.error().message;
    } else {
      auto answer = proto::decodeControlReply(
          std::string_view(reinterpret_cast<const char*>(reply->data()), reply->size()));
      if (!answer) why = answer.error().message;
      else if (!answer->ok) why = answer->message;
    }
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

Expected<void> Session::attachProcesses(const std::vector<FoundRank>& ranks, int size) {
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

void Session::refreshProcesses() {
  for (const auto& info : job_.snapshot())
    if (info.noRuntime && !info.ended() && info.pid > 0 && ::kill(info.pid, 0) != 0 && errno == ESRCH)
      job_.channelClosed(info.rank);
}

bool Session::jobAlive() {
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

void Session::detach() {
  if (!launcher_ && !hub_ && !attached_) return;
  // Every rank drops its breakpoints and resumes; a rank that cannot answer
  // (held by gdb, ended) is let go by what follows.
  if (job_.size() > 0 && hub_)
    (void)router_->ask<proto::ControlReply>(RankSet::all(job_.size()), ControlRequest{proto::kDetachHandler, ""});
  if (gdb_) gdb_->closeAll();
  job_.setKilling();  // channels closing now are not news
  if (hub_) hub_->setLauncher(nullptr);
  hub_.reset();  // closes every event channel: the ranks go quiet and run on
  if (launcher_) launcher_->release();
  launcher_.reset();
  attached_ = false;
  if (channels_) channels_->clear();
}

void Session::kill() {
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
