#include "debugger/cli/HangTriage.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "debugger/cli/ExitCodes.hpp"
#include "debugger/cli/JsonOutput.hpp"
#include "debugger/core/StackQuery.hpp"
#include "debugger/core/stacks/StackRender.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::cli {

namespace {

using Clock = ProgressDetector::Clock;
using Json = nlohmann::json;

/// Idle time after which the terminal progress line appears.
constexpr std::chrono::seconds kProgressAfter{5};

/// "3 s", "2.5 s": seconds for a human, one decimal only when needed.
std::string seconds(double s) {
  char buf[32];
  if (std::fabs(s - std::round(s)) < 0.05) std::snprintf(buf, sizeof buf, "%.0f s", std::round(s));
  else std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

double toSeconds(std::chrono::milliseconds ms) { return static_cast<double>(ms.count()) / 1000.0; }

/// One decimal, for the JSON report.
double rounded(double s) { return std::round(s * 10.0) / 10.0; }

std::string joinArgv(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += a.find_first_of(" \t'\"") == std::string::npos && !a.empty() ? a : "'" + a + "'";
  }
  return out;
}

Json opsToJson(const std::vector<ccs::proto::PendingOp>& ops) {
  Json list = Json::array();
  for (const auto& op : ops) list.push_back(core::describeOp(op));
  return list;
}

/// Writes `text` to `path` (replacing it). Error names the file and errno.
Expected<void> writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << text;
  if (out) out.close();
  if (!out) return fail("cannot write the report '" + path + "': " + std::strerror(errno));
  return {};
}

/// The terminal line on stderr ("\r" rewrites it); only when stderr is a tty.
class StderrProgress {
 public:
  StderrProgress() : tty_(::isatty(STDERR_FILENO) == 1) {}
  ~StderrProgress() { clear(); }
  StderrProgress(const StderrProgress&) = delete;
  StderrProgress& operator=(const StderrProgress&) = delete;

  void show(const std::string& line) {
    if (!tty_) return;
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  void clear() {
    if (!shown_) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  bool tty_;
  bool shown_ = false;
};

}  // namespace

std::string hangTimeoutError(const std::string& text) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value))
    return "expected a number of seconds, got '" + text + "'";
  if (value <= 0 || value > kMaxHangTimeout)
    return "must be more than 0 and at most 1000000 seconds, got '" + text + "'";
  return {};
}

Expected<void> checkHangTriageOptions(const HangTriageOptions& options, bool haveCommands) {
  if (!options.enabled()) {
    if (!options.reportPath.empty())
      return fail("--report needs --hang-timeout SECONDS (the report is written when a hang is found)");
    return {};
  }
  if (haveCommands)
    return fail("--hang-timeout runs the job without commands: drop -ex/-x, or use 'wait' and 'hang' in the commands");
  if (options.reportPath.empty()) return {};
  namespace fs = std::filesystem;
  const fs::path path(options.reportPath);
  std::error_code ec;
  if (fs::is_directory(path, ec)) return fail("--report '" + options.reportPath + "' is a directory; give a file name");
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    return fail("--report '" + options.reportPath + "': directory '" + dir.string() + "' does not exist");
  if (::access(dir.c_str(), W_OK) != 0)
    return fail("--report '" + options.reportPath + "': directory '" + dir.string() +
                "' is not writable: " + std::strerror(errno));
  return {};
}

std::string textReportPath(const std::string& jsonPath) {
  constexpr std::string_view kJson = ".json";
  if (jsonPath.size() > kJson.size() && jsonPath.ends_with(kJson) &&
      jsonPath[jsonPath.size() - kJson.size() - 1] != '/')
    return jsonPath.substr(0, jsonPath.size() - kJson.size()) + ".txt";
  return jsonPath + ".txt";
}

std::vector<ProgressSample> progressSamples(const std::vector<core::RankView>& views) {
  using ccs::proto::RankState;
  std::vector<ProgressSample> samples;
  samples.reserve(views.size());
  for (const auto& v : views) {
    ProgressSample s;
    s.rank = v.info.rank;
    s.ended = v.info.ended();
    s.finalized = v.info.life == core::RankLife::Finalized;
    s.held = v.info.heldByGdb;
    if (v.status && !s.ended) {
      s.known = true;
      s.mpiCalls = v.status->mpiCalls;
      s.inMpi = v.status->state == RankState::InMpi;
      s.finalized = s.finalized || v.status->state == RankState::Finalized;
      s.held = s.held || v.status->state == RankState::Frozen;
      if (v.status->call && v.status->call->polling) {
        // A polling rank repeats one test: neither its call count nor its
        // going in and out of the test is progress. The streak's first call
        // number stays the same while the streak lasts.
        s.mpiCalls = v.status->call->seq;
        s.inMpi = true;
      }
    }
    samples.push_back(s);
  }
  return samples;
}

bool ProgressDetector::observe(const std::vector<ProgressSample>& samples, Clock::time_point now) {
  bool progress = !lastProgress_.has_value();
  bool held = false;
  bool allDone = !samples.empty();
  for (const auto& fresh : samples) {
    held = held || (fresh.held && !fresh.ended);
    allDone = allDone && (fresh.ended || fresh.finalized);
    auto it = last_.find(fresh.rank);
    if (it == last_.end()) {
      last_[fresh.rank] = fresh;
      progress = true;
      continue;
    }
    ProgressSample& old = it->second;
    ProgressSample next = fresh;
    if (!fresh.known && !fresh.ended) {
      // Silence is not progress: keep what the rank last answered.
      next.known = old.known;
      next.inMpi = old.inMpi;
      next.mpiCalls = old.mpiCalls;
    }
    if (next.ended != old.ended || next.finalized != old.finalized || (next.known && !old.known) ||
        (next.known && (next.mpiCalls != old.mpiCalls || next.inMpi != old.inMpi)))
      progress = true;
    old = next;
  }
  if (held || allDone) progress = true;
  if (progress) lastProgress_ = now;
  return progress;
}

std::chrono::milliseconds ProgressDetector::idleFor(Clock::time_point now) const {
  if (!lastProgress_ || now <= *lastProgress_) return std::chrono::milliseconds(0);
  return std::chrono::duration_cast<std::chrono::milliseconds>(now - *lastProgress_);
}

bool ProgressDetector::hung(Clock::time_point now) const {
  return lastProgress_.has_value() && idleFor(now) >= timeout_;
}

Json queuesToJson(const core::HangInput& input) {
  Json ranks = Json::array();
  for (const auto& q : input.ranks) {
    Json comms = Json::array();
    for (const auto& c : q.comms) {
      comms.push_back({{"name", c.state.name},
                       {"handle", hexText(c.state.handle)},
                       {"size", c.state.size},
                       {"rank", c.state.localRank},
                       {"sends", opsToJson(c.sends)},
                       {"recvs", opsToJson(c.recvs)},
                       {"unexpected", opsToJson(c.unexpected)},
                       {"not_received", core::notReceivedOn(input.ranks, q, c)},
                       {"collectives", opsToJson(c.collectives)},
                       {"rma", opsToJson(c.rma)}});
    }
    Json locks = Json::array();
    for (const auto& l : q.locks)
      locks.push_back({{"window", hexText(l.win)},
                       {"target", l.target},
                       {"exclusive", l.exclusive},
                       {"call", l.call},
                       {"granted", l.granted}});
    Json epochs = Json::array();
    for (const auto& e : q.epochs)
      epochs.push_back({{"window", hexText(e.win)},
                        {"peer", e.peer},
                        {"started", e.started},
                        {"completed", e.completed},
                        {"posted", e.posted},
                        {"waited", e.waited},
                        {"access", e.access},
                        {"exposure", e.exposure}});
    ranks.push_back({{"rank", q.worldRank},
                     {"source", q.source},
                     {"phase", std::string(ccs::proto::phaseName(q.phase))},
                     {"call", q.call ? Json(core::describeCall(*q.call)) : Json(nullptr)},
                     {"frames", q.frames},
                     {"error", q.error},
                     {"locks", std::move(locks)},
                     {"epochs", std::move(epochs)},
                     {"comms", std::move(comms)}});
  }
  Json ended = Json::array();
  for (const auto& [rank, how] : input.ended) ended.push_back({{"rank", rank}, {"how", how}});
  Json unreadable = Json::array();
  for (const auto& [rank, why] : input.unreadable) unreadable.push_back({{"rank", rank}, {"why", why}});
  return {{"ranks", std::move(ranks)}, {"ended", std::move(ended)}, {"unreadable", std::move(unreadable)}};
}

Json hangReportJson(const core::HangVerdict& verdict, const core::stacks::StackTree& tree,
                    const core::HangInput& input, const TriageJob& job) {
  return {{"version", 1},
          {"hang", core::hangToJson(verdict)},
          {"stacks", core::stacks::stackTreeToJson(tree)},
          {"queues", queuesToJson(input)},
          {"job",
           {{"argv", job.argv},
            {"ranks", job.ranks},
            {"seconds", rounded(job.seconds)},
            {"idle_seconds", rounded(job.idleSeconds)},
            {"hang_timeout", job.timeoutSeconds}}}};
}

std::string hangReportText(const core::HangVerdict& verdict, const core::stacks::StackTree& tree,
                           const core::HangInput& input, const TriageJob& job) {
  std::ostringstream out;
  out << "Hang: no MPI progress on any rank for " << seconds(job.idleSeconds) << " (--hang-timeout "
      << seconds(job.timeoutSeconds) << "); the job ran " << seconds(job.seconds) << ".\n";
  out << "Job: " << joinArgv(job.argv) << " (" << job.ranks << (job.ranks == 1 ? " rank" : " ranks") << ")\n";
  out << "\nHang verdict:\n" << core::renderHang(verdict);
  out << "\nMerged stacks (main to the MPI call):\n" << core::stacks::renderLeaves(tree);
  std::map<int, std::string> other = input.unreadable;
  for (const auto& [rank, how] : input.ended) other[rank] = how;
  out << "\nQueues:\n" << core::renderQueues(input.ranks, other);
  return out.str();
}

int runHangTriage(core::Debugger& debugger, Console& console, const HangTriageOptions& options) {
  const auto start = Clock::now();
  ProgressDetector detector(options.timeout());
  StderrProgress line;
  auto interrupted = [] { return g_interrupted.load(); };
  auto launcherEnded = [&debugger] { return debugger.session().job().launcherStatus().has_value(); };
  while (true) {
    if (!debugger.session().jobAlive()) {
      line.clear();
      console.drainNotices();
      const auto status = debugger.session().launcherStatus();
      debugger.session().kill();  // ends ranks the launcher left behind; closes the session
      console.drainNotices();
      if (!status) return kExitOk;
      console.print("The job ended (launcher " + status->describe() + ") after " +
                    seconds(toSeconds(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start))) +
                    "; no hang.");
      return status->signaled ? 128 + status->signal : status->code;
    }
    if (interrupted()) {
      line.clear();
      debugger.session().kill();
      console.drainNotices();
      console.error("interrupted: killed the job; no report written");
      return kExitInterrupted;
    }
    const auto views = debugger.views();
    const auto now = Clock::now();
    detector.observe(progressSamples(views), now);
    if (console.hasNotices()) {
      line.clear();
      console.drainNotices();
    }
    if (detector.hung(now) && debugger.session().jobAlive()) break;
    const auto idle = detector.idleFor(now);
    if (idle >= kProgressAfter)
      line.show("no MPI progress for " + seconds(std::floor(toSeconds(idle))) + " (hang after " +
                seconds(options.timeoutSeconds) + ")");
    else
      line.clear();
    debugger.session().job().waitUntil(launcherEnded, options.pollInterval, interrupted);
  }
  line.clear();

  // The hang: verdict first (queues over CCS, then culprits' top frames),
  // then the merged stacks, then the report, then the job goes.
  const auto idle = detector.idleFor(Clock::now());
  core::HangInput input = debugger.queueStates();
  debugger.addCulpritFrames(input);
  const core::StackInput stackInput = debugger.stacks();
  core::stacks::Symbolizer symbolizer;
  input.callSites = core::mpiCallSites(stackInput, symbolizer);
  input.findings = debugger.session().job().staticFindings();
  const core::HangVerdict verdict = core::analyzeHang(input);
  const core::stacks::StackTree tree =
      core::buildStackTree(stackInput, core::stacks::NodeKey::Function, core::StackDepth::ToMpiCall, symbolizer);
  TriageJob job;
  job.argv = options.argv;
  job.ranks = debugger.session().job().size();
  job.seconds = toSeconds(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start));
  job.idleSeconds = toSeconds(idle);
  job.timeoutSeconds = options.timeoutSeconds;

  // Report first (the launcher's own messages about the kill come after it).
  console.drainNotices();
  const std::string text = hangReportText(verdict, tree, input, job);
  console.print(text);
  std::string written;
  if (!options.reportPath.empty()) {
    const std::string textPath = textReportPath(options.reportPath);
    auto json = writeFile(options.reportPath, jsonLine(hangReportJson(verdict, tree, input, job)) + "\n");
    auto txt = writeFile(textPath, text);
    if (!json) console.error(json.error().message);
    if (!txt) console.error(txt.error().message);
    if (json && txt) written = "; report in " + options.reportPath + " and " + textPath;
  }
  debugger.session().kill();
  console.drainNotices();
  std::fflush(stdout);
  std::fprintf(stderr, "mpidbg: hang: no MPI progress on any rank for %s; killed the job%s (exit %d)\n",
               seconds(job.idleSeconds).c_str(), written.c_str(), static_cast<int>(kExitHang));
  std::fflush(stderr);
  return kExitHang;
}

}  // namespace mpidbg::cli
