#include "debugger/core/charm/CharmJob.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <set>
#include <sstream>
#include <utility>

#include <openssl/rand.h>

#include "ccs/Auth.hpp"
#include "ccs/CharmKeyFile.hpp"
#include "ccs/Frame.hpp"
#include "ccs/ListProtocol.hpp"
#include "ccs/PupFmt.hpp"
#include "debugger/core/mqs/DwarfValues.hpp"
#include "debugger/core/mqs/ProcessMemory.hpp"
#include "debugger/core/ProcessDiscovery.hpp"
#include "debugger/core/mqs/SymbolSource.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::core::charm {

namespace pupfmt = ccs::pupfmt;
namespace proto = ccs::proto;
using namespace std::chrono_literals;

/// How long status waits for one PE: a PE busy in an entry method answers
/// only when it returns, and every PE is asked in turn.
constexpr std::chrono::milliseconds kStatusTimeout{1500};

std::string_view peStateName(PeState state) {
  switch (state) {
    case PeState::Running: return "running";
    case PeState::Frozen: return "frozen";
    case PeState::AtBreakpoint: return "at breakpoint";
    case PeState::Aborted: return "aborted";
    case PeState::HeldByGdb: return "held by gdb";
    case PeState::Ended: return "ended";
    case PeState::Unknown: return "not answering";
  }
  return "?";
}

namespace {

int intOf(const std::string& text, int fallback = -1) {
  int value = fallback;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

/// Items [0, length) of `list` from `pe`, decoded.
Expected<std::vector<pupfmt::Node>> readWholeList(CharmLink& link, int pe, const std::string& list) {
  auto lengthReply = link.call(proto::kListLenHandler, pe, proto::encodeListLenRequest(list));
  if (!lengthReply) return std::unexpected(lengthReply.error());
  auto length = proto::decodeListLength(*lengthReply);
  if (!length) return std::unexpected(length.error());
  proto::ListItemsRequest request;
  request.lo = 0;
  request.hiPlus1 = *length;
  request.path = list;
  auto reply = link.call(proto::kListItemsFmtHandler, pe, proto::encodeListItemsRequest(request));
  if (!reply) return std::unexpected(reply.error());
  auto items = proto::decodeListItems(*reply);
  if (!items) return fail(list + ": " + items.error().message);
  return items;
}

/// The request of debug/charm/bp/set and bp/remove: the entry index as a C
/// string (CpdSetBreakPoint sscanf's it).
std::vector<std::uint8_t> entryIndexRequest(int index) {
  const std::string text = std::to_string(index);
  std::vector<std::uint8_t> data(text.begin(), text.end());
  data.push_back(0);
  return data;
}

}  // namespace

/// The PEs as list servers: one request per PE through the link (Charm++
/// aborts on a broadcast list request); the directory is knownLists() with
/// each list's length.
class CharmJob::PeLists final : public ListServers {
 public:
  explicit PeLists(CharmJob& job) : job_(job) {}
  std::map<int, Expected<std::vector<std::uint8_t>>> ask(const RankSet& ranks, std::string_view handler,
                                                         const std::vector<std::uint8_t>& data) override {
    std::map<int, Expected<std::vector<std::uint8_t>>> out;
    for (int pe : ranks) {
      if (const auto no = job_.unreachable(pe)) out.emplace(pe, fail(no->why));
      else out.emplace(pe, job_.link_->call(handler, pe, data));
    }
    return out;
  }
  std::map<int, Expected<std::map<std::string, ListEntry>>> directory(const RankSet& ranks) override {
    std::map<int, Expected<std::map<std::string, ListEntry>>> out;
    for (int pe : ranks) {
      if (const auto no = job_.unreachable(pe)) {
        out.emplace(pe, fail(no->why));
        continue;
      }
      std::map<std::string, ListEntry> entries;
      std::optional<Error> error;
      for (const auto& name : knownLists()) {
        auto reply = job_.link_->call(proto::kListLenHandler, pe, proto::encodeListLenRequest(name));
        if (!reply) {
          error = reply.error();
          break;
        }
        auto length = proto::decodeListLength(*reply);
        if (length && *length >= 0) entries[name] = ListEntry{"list", *length};
      }
      // An MPI program's runtime names its own lists (the communicators,
      // pending operations, the program's watched objects) in mpidbg/lists.
      if (!error && job_.servesMpiProgram()) {
        auto served = readWholeList(*job_.link_, pe, "mpidbg/lists");
        if (!served) error = served.error();
        else
          for (const auto& item : *served)
            entries[pupfmt::fieldValue(item, "name")] =
                ListEntry{pupfmt::fieldValue(item, "kind"), intOf(pupfmt::fieldValue(item, "length"), 0)};
      }
      if (error) out.emplace(pe, std::unexpected(*error));
      else out.emplace(pe, std::move(entries));
    }
    return out;
  }
  RankSet running(const RankSet& ranks) override {
    RankSet out;
    for (const auto& view : job_.status(ranks))
      if (view.state == PeState::Running) out.insert(view.pe);
    return out;
  }
  std::optional<int> firstReachable() override {
    for (int pe = 0; pe < job_.size(); ++pe)
      if (!job_.unreachable(pe)) return pe;
    return std::nullopt;
  }
  int size() override { return job_.size(); }
  void refine(int rank, const std::string& list, std::vector<pupfmt::Node>& items) override {
    (void)rank;  // every PE runs the same program
    if (list == "charm/arrayElements" || list == "charm/object") job_.decodeObjects(items);
  }

 private:
  CharmJob& job_;
};

void CharmJob::decodeObjects(std::vector<pupfmt::Node>& items) {
  // Every PE runs the same program: one symbol table, from the first PE
  // process that can be read.
  std::lock_guard lock(symbolsMutex_);
  if (!symbols_ && !symbolsTried_) {
    symbolsTried_ = true;
    std::vector<pid_t> pids;
    for (const auto& info : debugger_.job().snapshot())
      if (info.pid > 0 && !info.ended()) pids.push_back(info.pid);
    for (pid_t pid : pids) {
      auto source = mqs::SymbolSource::fromProcess(pid);
      if (source) {
        symbols_ = std::make_unique<mqs::SymbolSource>(std::move(*source));
        break;
      }
    }
  }
  for (auto& item : items) {
    pupfmt::Node* value = nullptr;
    std::string type;
    for (auto& child : item.children) {
      if (child.label == "type") type = child.value;
      if (child.label == "value" && child.kind == pupfmt::Node::Kind::Bytes) value = &child;
    }
    if (value == nullptr || type.empty()) continue;
    if (!symbols_) {
      value->label = "value (raw bytes: the PE processes cannot be read for their DWARF)";
      continue;
    }
    const mqs::TypeRef* ref = symbols_->findType(type);
    if (ref == nullptr) {
      value->label = "value (raw bytes: no DWARF type '" + type + "' in the program)";
      continue;
    }
    auto bytes = ccs::fromHex(value->value);
    if (!bytes) continue;
    pupfmt::Node fields;
    fields.label = "fields";
    fields.kind = pupfmt::Node::Kind::Object;
    for (auto& [path, text] : mqs::memberValues(ref->die, *bytes)) {
      pupfmt::Node leaf;
      leaf.label = path;
      leaf.kind = pupfmt::Node::Kind::Scalar;
      leaf.value = std::move(text);
      fields.children.push_back(std::move(leaf));
    }
    *value = std::move(fields);
  }
}

ListServers& CharmJob::lists() { return *lists_; }

const std::vector<std::string>& CharmJob::knownLists() {
  static const std::vector<std::string> lists = {
      "charm/arrayElements", "charm/arrayElementNames", "charm/objectNames", "charm/chares",
      "charm/entries",       "charm/mains",             "charm/messages",   "charm/readonly",
      "charm/readonlyMsg",   "charm/messageStack",      "converse/localqueue"};
  return lists;
}

CharmJob::CharmJob(Debugger& debugger, std::function<void(const std::string&)> notify,
                   std::function<void(const std::string&)> output)
    : debugger_(debugger), notify_(std::move(notify)), output_(std::move(output)),
      lists_(std::make_unique<PeLists>(*this)) {}

CharmJob::~CharmJob() {
  kill();
  if (reader_.joinable()) reader_.join();
}

bool CharmJob::isCharmrun(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  const std::string& first = argv.front();
  const auto slash = first.rfind('/');
  return (slash == std::string::npos ? first : first.substr(slash + 1)) == "charmrun";
}

std::string CharmJob::serverText() const { return link_ ? link_->server().toString() : std::string("?"); }

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
  auto started = Launcher::start(argv, {}, fds[1]);
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
  auto attached = debugger_.attachProcesses(found, pes_);
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
  for (const auto& info : debugger_.job().snapshot())
    if (info.pid > 0 && ::kill(info.pid, 0) == 0) return true;
  return static_cast<bool>(link_->peCounts());
}

std::optional<CharmJob::Unreachable> CharmJob::unreachable(int pe) {
  if (pe < 0 || pe >= pes_)
    return Unreachable{PeState::Unknown, "no PE " + std::to_string(pe) + " (the program has " + std::to_string(pes_) + ")"};
  if (launcher_ && launcher_->poll()) return Unreachable{PeState::Ended, "ended (charmrun ended)"};
  for (const auto& info : debugger_.job().snapshot())
    if (info.rank == pe) {
      if (info.heldByGdb)
        return Unreachable{PeState::HeldByGdb, "held by gdb: its scheduler cannot answer (release it with: gdb detach " +
                                                   std::to_string(pe) + ")"};
      if (info.ended()) return Unreachable{PeState::Ended, "ended"};
    }
  return std::nullopt;
}

template <typename Ask>
std::map<int, std::string> CharmJob::onEachPe(const RankSet& pes, Ask ask) {
  std::map<int, std::string> failed;
  for (int pe : pes) {
    if (const auto no = unreachable(pe)) failed[pe] = no->why;
    else if (std::string why = ask(pe); !why.empty()) failed[pe] = std::move(why);
  }
  return failed;
}

const CharmBreakpoint* CharmJob::breakpointAt(int pe, std::string_view entryName) const {
  for (const auto& [id, bp] : breakpoints_)
    if (bp.entry.name == entryName && bp.pes.contains(pe)) return &bp;
  return nullptr;
}

std::vector<PeView> CharmJob::status(const RankSet& pes) {
  std::vector<PeView> out;
  std::map<int, pid_t> pids;
  for (const auto& info : debugger_.job().snapshot()) pids[info.rank] = info.pid;
  for (int pe : orAll(pes)) {
    PeView view;
    view.pe = pe;
    view.pid = pids.count(pe) ? pids[pe] : 0;
    if (const auto no = unreachable(pe)) {
      view.state = no->state;
      if (no->state == PeState::Unknown) view.error = no->why;
      out.push_back(view);
      continue;
    }
    auto reply = link_->call("debug/converse/status", pe, {}, kStatusTimeout);
    if (!reply || reply->size() != 8) {
      view.state = PeState::Unknown;
      view.error = reply ? "a debug/converse/status reply of " + std::to_string(reply->size()) + " bytes"
                         : reply.error().message +
                               " (Charm++ answers between entry methods: a PE busy in one answers when it returns)";
      out.push_back(view);
      continue;
    }
    const bool running = ccs::readBigEndian32(std::span<const std::uint8_t>(*reply).subspan(4)) != 0;
    std::lock_guard lock(mutex_);
    PeNotes& note = notes_[pe];
    if (running) {
      // Continued by someone else (another client): what the output said is stale.
      note.frozen = false;
      note.breakpoint.clear();
      view.state = PeState::Running;
    } else {
      view.state = !note.abort.empty() ? PeState::Aborted : !note.breakpoint.empty() ? PeState::AtBreakpoint : PeState::Frozen;
      view.entry = !note.abort.empty() ? note.abort : note.breakpoint;
    }
    out.push_back(view);
  }
  // A frozen PE the output said nothing about (attached, or a stop before
  // the line arrived) may be at a breakpoint: Charm++ then keeps the message
  // it stopped at first in the PE's queue, named "Breakpoint", with its entry
  // (CpdList_localQ in src/ck-core/debug-charm.C).
  for (auto& view : out) {
    if (view.state != PeState::Frozen) continue;
    proto::ListItemsRequest request;
    request.lo = 0;
    request.hiPlus1 = 1;
    request.path = "converse/localqueue";
    auto reply = link_->call(proto::kListItemsFmtHandler, view.pe, proto::encodeListItemsRequest(request));
    if (!reply) continue;
    auto items = proto::decodeListItems(*reply);
    if (!items || items->empty() || pupfmt::fieldValue(items->front(), "name") != "Breakpoint") continue;
    int ep = -1;
    for (const auto& [path, value] : pupfmt::flatten(items->front(), ""))
      if (path == "charmMsg.ep") ep = intOf(value);
    auto all = entries();
    if (!all) continue;
    for (const auto& e : *all)
      if (e.index == ep) {
        view.state = PeState::AtBreakpoint;
        view.entry = e.name;
        std::lock_guard lock(mutex_);
        notes_[view.pe].breakpoint = e.name;
      }
  }
  // A PE let go by resume() and stopped since: a stop the next wait returns
  // at (charmrun hands a PE its requests in order, so a status asked after a
  // continue sees the continued PE).
  std::lock_guard lock(mutex_);
  for (const auto& view : out)
    if (awaiting_.contains(view.pe) && isStopped(view.state)) {
      awaiting_.erase(view.pe);
      stopPending_ = true;
    }
  return out;
}

Expected<std::vector<CharmEntry>> CharmJob::entries() {
  if (entries_) return *entries_;
  auto items = readWholeList(*link_, 0, "charm/entries");
  if (!items) return std::unexpected(items.error());
  auto chares = readWholeList(*link_, 0, "charm/chares");
  // Charm++ registers its own modules first and the program's main module
  // last: the chares from the last mainchare on are the program's (those of
  // a library module without a mainchare, registered before, count as
  // Charm++'s). debug_Chare is the debugger's own.
  int firstProgramChare = 0;
  if (auto mains = readWholeList(*link_, 0, "charm/mains"); mains && !mains->empty())
    firstProgramChare = intOf(pupfmt::fieldValue(mains->back(), "chareIdx"), 0);
  std::vector<CharmEntry> out;
  for (const auto& item : *items) {
    CharmEntry e;
    e.index = intOf(pupfmt::fieldValue(item, "index"));
    e.name = pupfmt::fieldValue(item, "name");
    const int chare = intOf(pupfmt::fieldValue(item, "chareIdx"));
    if (chares && chare >= 0 && static_cast<std::size_t>(chare) < chares->size())
      e.chare = pupfmt::fieldValue((*chares)[static_cast<std::size_t>(chare)], "name");
    e.system = intOf(pupfmt::fieldValue(item, "inCharm"), 0) != 0 || chare < firstProgramChare || e.chare == "debug_Chare";
    out.push_back(std::move(e));
  }
  entries_ = out;
  return out;
}

bool CharmJob::servesMpiProgram() {
  auto all = entries();
  return all && std::any_of(all->begin(), all->end(), [](const CharmEntry& e) { return e.chare == "MPI"; });
}

Expected<std::vector<CharmEntry>> CharmJob::findEntries(std::string_view name) {
  auto all = entries();
  if (!all) return all;
  std::vector<CharmEntry> exact, loose;
  int index = -1;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), index);
  const bool number = ec == std::errc() && end == name.data() + name.size();
  for (const auto& e : *all) {
    if (number) {
      if (e.index == index) exact.push_back(e);
      continue;
    }
    if (e.qualified() == name || e.name == name) exact.push_back(e);
    else if (e.shortName() == name || e.name.substr(0, e.name.find('(')) == name) loose.push_back(e);
  }
  return exact.empty() ? loose : exact;
}

std::pair<CharmBreakpoint, std::map<int, std::string>> CharmJob::setBreakpoint(const CharmEntry& entry,
                                                                               const RankSet& pes) {
  CharmBreakpoint bp;
  bp.entry = entry;
  const std::vector<std::uint8_t> request = entryIndexRequest(entry.index);
  auto failed = onEachPe(orAll(pes), [&](int pe) -> std::string {
    auto reply = link_->call("debug/charm/bp/set", pe, request);
    // The reply is a native int: ~0 when set, 0 when refused.
    if (!reply) return reply.error().message;
    if (reply->size() != 4 || (*reply)[0] == 0) return "Charm++ refused the breakpoint (already set there?)";
    bp.pes.insert(pe);
    return {};
  });
  if (!bp.pes.empty()) {
    std::lock_guard lock(mutex_);
    bp.id = nextBreakpoint_++;
    breakpoints_[bp.id] = bp;
  }
  return {bp, failed};
}

Expected<std::map<int, std::string>> CharmJob::removeBreakpoint(int id) {
  CharmBreakpoint bp;
  {
    std::lock_guard lock(mutex_);
    auto it = breakpoints_.find(id);
    if (it == breakpoints_.end()) return fail("no breakpoint " + std::to_string(id));
    bp = it->second;
    breakpoints_.erase(it);
  }
  const std::vector<std::uint8_t> request = entryIndexRequest(bp.entry.index);
  return onEachPe(bp.pes, [&](int pe) -> std::string {
    auto reply = link_->call("debug/charm/bp/remove", pe, request);
    return reply ? std::string() : reply.error().message;
  });
}

std::map<int, std::string> CharmJob::freeze(const RankSet& pes, std::chrono::milliseconds settle) {
  RankSet sent;
  {
    // A freeze asked for is not a stop for the next wait to report.
    std::lock_guard lock(mutex_);
    for (int pe : orAll(pes)) awaiting_.erase(pe);
  }
  auto failed = onEachPe(orAll(pes), [&](int pe) -> std::string {
    if (auto ok = link_->send("debug/converse/freeze", pe); !ok) return ok.error().message;
    sent.insert(pe);
    return {};
  });
  // Frozen once debug/converse/status says so (a PE inside an entry method
  // freezes when it returns to its scheduler).
  const auto deadline = std::chrono::steady_clock::now() + settle;
  RankSet waiting = sent;
  while (!waiting.empty()) {
    for (const auto& view : status(waiting))
      if (isStopped(view.state)) waiting.erase(view.pe);
    if (waiting.empty() || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(50ms);
  }
  for (int pe : waiting)
    failed[pe] = "asked to freeze, not frozen yet (busy in an entry method: it freezes when the method returns)";
  return failed;
}

std::map<int, std::string> CharmJob::resume(const RankSet& pes) {
  {
    // Stops seen before this continue are no news for the next wait.
    std::lock_guard lock(mutex_);
    stopPending_ = false;
  }
  return onEachPe(orAll(pes), [&](int pe) -> std::string {
    {
      std::lock_guard lock(mutex_);
      PeNotes& note = notes_[pe];
      note.frozen = false;
      note.breakpoint.clear();
      note.abort.clear();
      awaiting_.insert(pe);
    }
    if (auto ok = link_->send("debug/charm/continue", pe); !ok) {
      std::lock_guard lock(mutex_);
      awaiting_.erase(pe);
      return ok.error().message;
    }
    return {};
  });
}

std::map<int, std::string> CharmJob::step(const RankSet& pes) {
  std::map<int, std::string> failed;
  for (const auto& view : status(orAll(pes))) {
    if (view.state == PeState::Running) {
      failed[view.pe] = "running: freeze it first (step delivers one message to a frozen PE)";
      continue;
    }
    if (view.state != PeState::Frozen && view.state != PeState::AtBreakpoint) {
      failed[view.pe] = view.error.empty() ? std::string(peStateName(view.state)) : view.error;
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      notes_[view.pe].breakpoint.clear();  // the stopped-at message is delivered; the PE stays frozen
    }
    if (auto ok = link_->send("debug/charm/next", view.pe); !ok) failed[view.pe] = ok.error().message;
  }
  return failed;
}

CharmJob::WaitOutcome CharmJob::waitForEvent(std::chrono::milliseconds timeout, const Cancelled& cancelled) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto lastPoll = std::chrono::steady_clock::now() - 1s;
  auto takeStop = [&] {
    std::lock_guard lock(mutex_);
    return std::exchange(stopPending_, false);
  };
  for (;;) {
    if (takeStop()) return WaitOutcome::Stopped;
    if (!alive()) return WaitOutcome::Ended;
    const auto now = std::chrono::steady_clock::now();
    if (now - lastPoll >= 300ms) {
      lastPoll = now;
      bool allStopped = true;
      for (const auto& view : status())  // notes stops of PEs let go (stopPending_)
        if (view.state == PeState::Running || view.state == PeState::Unknown) allStopped = false;
      if (takeStop()) return WaitOutcome::Stopped;
      if (allStopped) return WaitOutcome::Settled;
    }
    if (cancelled && cancelled()) return WaitOutcome::Cancelled;
    if (now > deadline) return WaitOutcome::TimedOut;
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, 100ms);
  }
}

void CharmJob::kill() {
  if (!active_ && !launcher_) return;
  active_ = false;
  debugger_.kill();
  if (launcher_) launcher_->terminate(std::chrono::milliseconds(2000));
  if (reader_.joinable()) reader_.join();
}

void CharmJob::detach() {
  if (!active_) return;
  std::vector<int> ids;
  for (const auto& [id, bp] : breakpoints_) ids.push_back(id);
  for (int id : ids) (void)removeBreakpoint(id);
  debugger_.detach();
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
