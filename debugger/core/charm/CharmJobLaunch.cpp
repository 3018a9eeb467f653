// CharmJob's start and end: charmrun launched with the CCS server and the
// debug mode (its key file, its output read for the server's port, freezes,
// breakpoint hits and aborts), attach to a running program's server, the PE
// processes found on this host and handed to the Debugger for gdb and
// `where`; alive, kill and detach.
#include "debugger/core/charm/CharmJob.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <set>
#include <span>
#include <sstream>
#include <utility>

#include <openssl/rand.h>

#include "ccs/transport/CharmKeyFile.hpp"
#include "debugger/core/ProcessDiscovery.hpp"
#include "debugger/core/mqs/ProcessMemory.hpp"
#include "debugger/core/mqs/SymbolSource.hpp"

namespace mpidbg::core::charm {

using namespace std::chrono_literals;

void CharmJob::readOutput(int fd) {
  std::string pending;
  char buffer[4096];
  // An abort message that goes on over lines: Charm++'s array elements abort
  // with "... aborting:\n<the program's message>", and CpdNotify prints it
  // as one CPD line. The next line completes it.
  std::optional<CharmNotice> abort;
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      const std::string line = pending.substr(start, nl - start);
      auto notice = parseCharmLine(line);
      if (abort) {
        if (!notice) {
          abort->text += " " + line;
          handleNotice(*std::exchange(abort, std::nullopt));
          continue;
        }
        handleNotice(*std::exchange(abort, std::nullopt));
      }
      if (notice) {
        if (notice->kind == CharmNotice::Kind::Abort && notice->text.ends_with(":")) {
          abort = std::move(notice);
          continue;
        }
        handleNotice(*notice);
        if (notice->kind != CharmNotice::Kind::ServerPort) continue;
      }
      {
        std::lock_guard lock(mutex_);
        lastLines_.push_back(line);
        if (lastLines_.size() > 12) lastLines_.erase(lastLines_.begin());
      }
      if (output_) output_(line);
    }
    pending.erase(0, start);
  }
  if (abort) handleNotice(*abort);
  if (!pending.empty() && output_) output_(pending);
  ::close(fd);
  {
    std::lock_guard lock(mutex_);
    outputEnded_ = true;
  }
  changed_.notify_all();
}

void CharmJob::handleNotice(const CharmNotice& notice) {
  std::string tell;
  {
    std::lock_guard lock(mutex_);
    switch (notice.kind) {
      case CharmNotice::Kind::ServerPort:
        serverPort_ = notice.number;
        break;
      case CharmNotice::Kind::Freeze:
        notes_[notice.pe].frozen = true;
        if (notice.pid > 0) notes_[notice.pe].pid = notice.pid;
        break;
      case CharmNotice::Kind::Breakpoint: {
        notes_[notice.pe].breakpoint = notice.text;
        notes_[notice.pe].frozen = true;
        const CharmBreakpoint* bp = breakpointAt(notice.pe, notice.text);
        stopPending_ = true;
        awaiting_.erase(notice.pe);
        tell = "[" + std::to_string(notice.pe) + "] stopped at " +
               (bp != nullptr ? "breakpoint " + std::to_string(bp->id) + ", entry " + bp->entry.qualified()
                              : "entry " + notice.text);
        break;
      }
      case CharmNotice::Kind::Abort:
        notes_[notice.pe].abort = notice.text;
        stopPending_ = true;
        awaiting_.erase(notice.pe);
        tell = "[" + std::to_string(notice.pe) + "] aborted (frozen by Charm++'s debug mode): " + notice.text;
        break;
      case CharmNotice::Kind::Signal:
        stopPending_ = true;
        tell = "[" + std::to_string(notice.pe) + "] caught signal " + std::to_string(notice.number) + " (" +
               strsignal(notice.number) + ")";
        break;
    }
  }
  changed_.notify_all();
  if (!tell.empty() && notify_) notify_(tell);
}

Expected<std::pair<std::string, ccs::CharmKey>> writeCharmKeyFile(const std::string& dir) {
  ccs::CharmKey key{};
  std::string digits;
  for (auto& byte : key) {
    unsigned char r = 0;
    do {
      if (RAND_bytes(&r, 1) != 1) return fail("cannot make a Charm++ key: the random generator failed");
    } while (r >= 200);  // 0..199 -> 0..99 without bias
    byte = static_cast<std::uint8_t>(r % 100);
    digits += static_cast<char>('0' + byte / 10);
    digits += static_cast<char>('0' + byte % 10);
  }
  const std::string path = dir + "/charm-key";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return fail("cannot write " + path + ": " + std::strerror(errno));
  const std::string text = "0 " + digits + "\n";
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok) return fail("cannot write " + path);
  // Read back the way the client reads key files: what charmrun reads too.
  auto table = ccs::loadCharmKeyFile(path, ccs::KeyDigits::Decimal);
  if (!table || table->find(0) == nullptr || *table->find(0) != key)
    return fail("the Charm++ key file " + path + " does not read back as written");
  return std::make_pair(path, key);
}

Expected<void> CharmJob::launch(const CharmLaunchOptions& options, const Progress& progress,
                                const Cancelled& cancelled) {
  if (active_) return fail("a Charm++ program is already being debugged");
  std::vector<std::string> argv = options.argv;
  auto has = [&](std::string_view prefix) {
    return std::any_of(argv.begin(), argv.end(), [&](const std::string& a) { return a.starts_with(prefix); });
  };
  for (const char* ours : {"++server-port", "++server-auth", "++server"})
    if (has(ours)) return fail(std::string("leave ") + ours + " to mpidbg: it starts the CCS server itself");
  argv.push_back("++server");
  if (!has("++local") && !has("++nodelist") && !has("++mpiexec") && !has("++remote-shell") && !has("++batch"))
    argv.push_back("++local");
  std::optional<ccs::CharmKey> key;
  if (options.authenticate) {
    auto written = writeCharmKeyFile(options.keyDir.empty() ? "/tmp" : options.keyDir);
    if (!written) return std::unexpected(written.error());
    argv.push_back("++server-auth");
    argv.push_back(written->first);
    key = written->second;
  }
  argv.push_back("+cpd");
  if (options.suspend) argv.push_back("+DebugSuspend");
  argv.push_back("+DebugDisplay");  // silences "x term for gdb needs to be specified": mpidbg runs gdb itself
  argv.push_back("none");

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return fail(std::string("cannot make a pipe: ") + std::strerror(errno));
  auto started = Launcher::start(argv, {}, fds[1], fds[1]);
  ::close(fds[1]);
  if (!started) {
    ::close(fds[0]);
    return std::unexpected(started.error());
  }
  launcher_ = std::move(*started);
  reader_ = std::thread([this, fd = fds[0]] { readOutput(fd); });

  const auto deadline = std::chrono::steady_clock::now() + options.startTimeout;
  auto lastLines = [&] {
    std::lock_guard lock(mutex_);
    std::string text;
    for (const auto& line : lastLines_) text += "\n  " + line;
    return text;
  };
  auto ended = [&]() -> std::optional<Error> {
    if (auto status = launcher_->poll())
      return Error{"charmrun ended (" + status->describe() + ") before the program was up; its last output:" +
                   lastLines()};
    return std::nullopt;
  };
  // The CCS server's port, from charmrun's output.
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      changed_.wait_for(lock, 100ms, [&] { return serverPort_ != 0 || outputEnded_; });
      if (serverPort_ != 0) break;
    }
    if (auto why = ended()) return std::unexpected(*why);
    if (cancelled && cancelled()) return fail("cancelled while waiting for the Charm++ program to start");
    if (std::chrono::steady_clock::now() > deadline)
      return fail("charmrun printed no CCS server port ('ccs: Server IP = ..., Server port = ...') within " +
                  std::to_string(options.startTimeout.count() / 1000) + " s; its last output:" + lastLines());
  }
  int port = 0;
  {
    std::lock_guard lock(mutex_);
    port = serverPort_;
  }
  link_ = std::make_unique<CharmLink>(ccs::Endpoint{"127.0.0.1", static_cast<std::uint16_t>(port)}, key);
  Expected<std::vector<int>> counts = fail("not asked");
  for (;;) {
    counts = link_->peCounts();
    if (counts) break;
    if (auto why = ended()) return std::unexpected(*why);
    if (std::chrono::steady_clock::now() > deadline)
      return fail("the Charm++ program's CCS server at " + link_->server().toString() +
                  " does not answer ccs_getinfo: " + counts.error().message);
    std::this_thread::sleep_for(200ms);
  }
  pes_ = 0;
  for (int n : *counts) pes_ += n;
  std::map<int, pid_t> pids;
  if (options.suspend) {
    // +DebugSuspend: every PE freezes once initialized and says so with its pid.
    for (;;) {
      int frozen = 0;
      {
        std::unique_lock lock(mutex_);
        changed_.wait_for(lock, 100ms);
        for (const auto& [pe, note] : notes_)
          if (note.frozen && pe < pes_) ++frozen;
        if (frozen == pes_)
          for (const auto& [pe, note] : notes_) pids[pe] = note.pid;
      }
      if (progress) progress(frozen, pes_);
      if (frozen == pes_) break;
      if (auto why = ended()) return std::unexpected(*why);
      if (cancelled && cancelled()) return fail("cancelled while waiting for the PEs to freeze");
      if (std::chrono::steady_clock::now() > deadline)
        return fail(std::to_string(frozen) + " of " + std::to_string(pes_) + " PEs froze at startup within " +
                    std::to_string(options.startTimeout.count() / 1000) + " s (is the program built with "
                    "Charm++'s --enable-charmdebug?)");
    }
  } else {
    pids = charmProcessesOnPort(port);
  }
  active_ = true;
  if (auto attached = attachPids(pids); !attached && notify_) notify_("note: " + attached.error().message);
  return {};
}

Expected<void> CharmJob::attach(const ccs::Endpoint& server, const std::string& keyFile) {
  if (active_) return fail("a Charm++ program is already being debugged");
  std::optional<ccs::CharmKey> key;
  if (!keyFile.empty()) {
    auto table = ccs::loadCharmKeyFile(keyFile, ccs::KeyDigits::Decimal);
    if (!table) return std::unexpected(table.error());
    for (const auto& note : table->notes)
      if (notify_) notify_("note: " + keyFile + ": " + note);
    const ccs::CharmKey* level0 = table->find(0);
    if (level0 == nullptr) return fail(keyFile + " has no key for level 0 (a line '0 KEY')");
    key = *level0;
  }
  link_ = std::make_unique<CharmLink>(server, key);
  auto counts = link_->peCounts();
  if (!counts) {
    std::string hint;
    if (!key) hint = " (a server started with ++server-auth needs --charm-key-file)";
    return fail("the Charm++ program's CCS server at " + server.toString() + " does not answer ccs_getinfo: " +
                counts.error().message + hint);
  }
  pes_ = 0;
  for (int n : *counts) pes_ += n;
  const std::map<int, pid_t> pids = charmProcessesOnPort(server.port);
  active_ = true;
  if (servesMpiProgram()) {
    if (notify_)
      notify_("note: an MPI program under mpidbg's runtime in Charm-compatible mode (MPIDBG_CHARM): its PEs are "
              "its ranks, its entries the MPI functions and MPIDBG_ENTRY points; for the MPI view (hang, where, "
              "gdb) attach with the attach file rank 0 named on its stderr: mpidbg attach FILE");
  } else if (auto attached = attachPids(pids); !attached && notify_) {
    notify_("note: " + attached.error().message);
  }
  return {};
}

Expected<void> CharmJob::attachPids(const std::map<int, pid_t>& pids) {
  std::vector<FoundRank> found;
  std::set<pid_t> seen;
  for (const auto& [pe, pid] : pids) {
    if (pid <= 0 || !seen.insert(pid).second) continue;  // one process per PE (non-SMP) for gdb
    FoundRank rank;
    rank.rank = pe;
    rank.size = pes_;
    rank.pid = pid;
    char exe[4096] = {};
    const ssize_t n = ::readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), exe, sizeof exe - 1);
    if (n > 0) rank.executable.assign(exe, static_cast<std::size_t>(n));
    found.push_back(rank);
  }
  if (found.empty())
    return fail("no PE process was found on this host: gdb and where cannot reach the PEs");
  auto attached = session_.attachProcesses(found, pes_);
  if (!attached) return attached;
  if (static_cast<int>(found.size()) < pes_)
    return fail("the processes of " + std::to_string(pes_ - static_cast<int>(found.size())) + " of " +
                std::to_string(pes_) + " PEs were not found on this host: gdb and where cannot reach those");
  return {};
}

bool CharmJob::alive() {
  if (!active_) return false;
  if (launcher_) return !launcher_->poll().has_value();
  // Attached: alive while the server answers, or any PE process lives.
  for (const auto& info : session_.job().snapshot())
    if (info.pid > 0 && ::kill(info.pid, 0) == 0) return true;
  return static_cast<bool>(link_->peCounts());
}

void CharmJob::kill() {
  if (!active_ && !launcher_) return;
  active_ = false;
  session_.kill();
  if (launcher_) launcher_->terminate(std::chrono::milliseconds(2000));
  if (reader_.joinable()) reader_.join();
}

void CharmJob::detach() {
  if (!active_) return;
  std::vector<int> ids;
  for (const auto& [id, bp] : breakpoints_) ids.push_back(id);
  for (int id : ids) (void)removeBreakpoint(id);
  session_.detach();
  (void)resume(RankSet::all(pes_));
  active_ = false;
}

std::map<int, pid_t> charmProcessesOnPort(int port) {
  // Sockets listening on `port` (IPv4 and IPv6), by inode.
  std::set<std::string> inodes;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::istringstream in(readWholeFile(table));
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode;
      const auto colon = local.rfind(':');
      if (colon == std::string::npos || state != "0A") continue;
      if (std::stoi(local.substr(colon + 1), nullptr, 16) == port) inodes.insert(inode);
    }
  }
  auto holdsListener = [&](pid_t pid) {
    const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return false;
    bool found = false;
    while (dirent* e = ::readdir(d)) {
      char target[256] = {};
      const ssize_t n = ::readlink((dir + "/" + e->d_name).c_str(), target, sizeof target - 1);
      if (n <= 0) continue;
      const std::string_view link(target, static_cast<std::size_t>(n));
      if (link.starts_with("socket:[") && inodes.contains(std::string(link.substr(8, link.size() - 9)))) {
        found = true;
        break;
      }
    }
    ::closedir(d);
    return found;
  };
  // Processes started by a charmrun (NETSTART: node, charmrun host, port, charmrun pid, ...).
  std::map<pid_t, std::vector<pid_t>> byCharmrun;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return {};
  while (dirent* e = ::readdir(proc)) {
    pid_t pid = 0;
    auto [end, ec] = std::from_chars(e->d_name, e->d_name + std::strlen(e->d_name), pid);
    if (ec != std::errc() || *end != '\0') continue;
    const std::string environ = readWholeFile("/proc/" + std::to_string(pid) + "/environ");
    const auto value = environmentVariable(environ, "NETSTART");
    if (!value) continue;
    std::istringstream netstart{std::string(*value)};
    int node = -1;
    std::string host;
    int charmPort = 0;
    pid_t charmrun = 0;
    if (!(netstart >> node >> host >> charmPort >> charmrun) || node < 0) continue;
    byCharmrun[charmrun].push_back(pid);
  }
  ::closedir(proc);
  for (const auto& [charmrun, processes] : byCharmrun) {
    if (!holdsListener(charmrun)) continue;
    // NETSTART's node is the same in every process charmrun's scalable start
    // forks (the node number comes later over its socket): each process's PE
    // is read from its memory instead, _Cmi_mype (a plain global in non-SMP
    // builds; src/arch/util/machine-common-core.C).
    std::map<int, pid_t> byPe;
    for (pid_t pid : processes) {
      auto symbols = mqs::SymbolSource::fromProcess(pid);
      if (!symbols) continue;
      auto address = symbols->findSymbol("_Cmi_mype");
      if (!address) continue;
      std::int32_t pe = -1;
      mqs::ProcessMemory memory(pid);
      if (!memory.read(*address, std::as_writable_bytes(std::span(&pe, 1)))) continue;
      if (pe >= 0) byPe[pe] = pid;
    }
    return byPe;
  }
  return {};
}

}  // namespace mpidbg::core::charm
