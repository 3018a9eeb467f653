#pragma once

// A Charm++ program under the debugger (issue 26): CharmDebug's job in
// mpidbg's terminal. The program's PEs stand for ranks. Control and
// inspection go through Charm++'s own CCS debug handlers (+cpd builds with
// --enable-charmdebug: debug/converse/*, debug/charm/*, the CpdList lists);
// breakpoint hits and freezes are read from the program's output, as
// CharmDebug reads them (CharmOutput.hpp); gdb and `where` go through the
// session's core::Session, to which the PE processes are attached by pid.

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "ccs/transport/Endpoint.hpp"
#include "debugger/core/Session.hpp"
#include "debugger/core/ObjectQuery.hpp"
#include "debugger/core/RankRouter.hpp"
#include "debugger/core/RankSet.hpp"
#include "debugger/core/charm/CharmLink.hpp"
#include "debugger/core/charm/CharmOutput.hpp"
#include "debugger/core/mqs/SymbolSource.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core::charm {

class CharmPes;

/// What a PE is doing, as far as the debugger can tell.
enum class PeState {
  Running,       ///< answers debug/converse/status as not frozen
  Frozen,        ///< frozen (freeze, startup with +DebugSuspend, or after a step)
  AtBreakpoint,  ///< frozen at an entry-method breakpoint (PeView::entry names it)
  Aborted,       ///< called CkAbort in debug mode and froze (PeView::entry holds the message)
  HeldByGdb,     ///< stopped by a gdb session: its scheduler cannot answer
  Ended,         ///< its process is gone
  Unknown,       ///< did not answer (PeView::error says why)
};

/// "running", "frozen", "at breakpoint", "aborted", "held by gdb", "ended", "not answering".
std::string_view peStateName(PeState state);

/// True for the states of a PE that its scheduler holds (Frozen,
/// AtBreakpoint, Aborted): it runs no entry method until continued.
constexpr bool isStopped(PeState state) {
  return state == PeState::Frozen || state == PeState::AtBreakpoint || state == PeState::Aborted;
}

/// One PE's state.
struct PeView {
  int pe = 0;
  pid_t pid = 0;  ///< 0 when not known
  PeState state = PeState::Unknown;
  std::string entry;  ///< AtBreakpoint: the entry method; Aborted: the message
  std::string error;  ///< Unknown: why it did not answer
};

/// One entry method of the program (Charm++'s charm/entries list, with the
/// chare from charm/chares).
struct CharmEntry {
  int index = 0;        ///< the entry index Charm++'s bp/set takes
  std::string name;     ///< as Charm++ registered it: "pass(int round, double token)"
  std::string chare;    ///< the chare's name ("Cell"); empty when unknown
  /// Charm++'s own: marked inCharm, or of a chare registered before the
  /// program's main module (Charm++ registers its modules first and the
  /// main module, with the last mainchare, last).
  bool system = false;
  /// "Cell::pass(int round, double token)", or the name alone without a chare.
  std::string qualified() const { return chare.empty() ? name : chare + "::" + name; }
  /// Without the parameter list: "Cell::pass", or "pass" without a chare.
  std::string shortName() const {
    const std::string bare = name.substr(0, name.find('('));
    return chare.empty() ? bare : chare + "::" + bare;
  }
};

/// How to start a Charm++ program.
struct CharmLaunchOptions {
  /// charmrun and its arguments, e.g. {"./charmrun", "+p2", "++local", "./app", "4"}.
  std::vector<std::string> argv;
  /// ++server-auth with a fresh key (SHA-1 mode); false: plain CCS (--ccs-plain).
  bool authenticate = true;
  /// +DebugSuspend: every PE freezes once the program is initialized.
  bool suspend = true;
  /// How long to wait for the CCS server and, with `suspend`, every PE's freeze.
  std::chrono::milliseconds startTimeout{60000};
  /// Directory for the key file (the session directory).
  std::string keyDir;
};

/// A breakpoint on an entry method.
struct CharmBreakpoint {
  int id = 0;
  CharmEntry entry;
  RankSet pes;
};

/// The Charm++ back end of a session.
class CharmJob {
 public:
  /// `session`: the debugger's, which gets the PE processes (attachProcesses)
  /// for gdb and `where`. `notify`: asynchronous notices (a breakpoint hit,
  /// an abort), possibly from a background thread. `output`: a line of the
  /// program's own output (launched programs), from a background thread.
  CharmJob(Session& session, std::function<void(const std::string&)> notify,
           std::function<void(const std::string&)> output);
  ~CharmJob();
  CharmJob(const CharmJob&) = delete;
  CharmJob& operator=(const CharmJob&) = delete;

  /// True when `argv` starts a Charm++ program: argv[0]'s name is charmrun.
  static bool isCharmrun(const std::vector<std::string>& argv);

  /// Starts charmrun with ++server, +cpd, +DebugSuspend (unless told not),
  /// ++server-auth KEYFILE (unless plain), and ++local when the command names
  /// no other way to start PEs (++nodelist, ++mpiexec, ++remote-shell ...);
  /// reads its output; waits for the CCS server's port and, when suspended,
  /// for every PE's freeze; attaches the PE processes to the Session.
  /// Errors: charmrun not runnable; it ended before the server was up (its
  /// last output lines); timeout; cancelled; ccs_getinfo fails.
  Expected<void> launch(const CharmLaunchOptions& options, const Progress& progress, const Cancelled& cancelled);

  /// Attaches to a running program's CCS server (started with ++server
  /// ++server-port PORT +cpd; `keyFile` its ++server-auth file, "" for
  /// plain). PE processes are looked up on this host (their NETSTART) for gdb
  /// and `where`; without them those commands say so. Breakpoint hits are
  /// not seen as they happen (they go to the program's output): `status`
  /// shows frozen PEs. Errors: the key file; the server does not answer
  /// ccs_getinfo (not a Charm++ program, a wrong key, plain to a keyed one).
  Expected<void> attach(const ccs::Endpoint& server, const std::string& keyFile);

  /// True between a successful launch or attach and kill()/detach().
  bool active() const { return active_; }
  /// True when the program was launched (not attached).
  bool launched() const { return launcher_ != nullptr; }
  /// True while the program runs (launched: charmrun has not ended).
  bool alive();
  /// The number of PEs.
  int size() const { return pes_; }
  /// The server's address, for telling the user.
  std::string serverText() const;

  /// The state of `pes` (all when empty): debug/converse/status to each.
  std::vector<PeView> status(const RankSet& pes = {});

  /// Every entry method (charm/entries and charm/chares, read from PE 0
  /// once and kept). Errors: PE 0 does not answer.
  Expected<std::vector<CharmEntry>> entries();
  /// True when the server is an MPI program under mpidbg's runtime in
  /// Charm-compatible mode (MPIDBG_CHARM; runtime/CharmCompat.hpp): its
  /// charm/entries lists the MPI functions under a chare named "MPI", which
  /// no Charm++ program has. False when the entries cannot be read.
  bool servesMpiProgram();
  /// The entry methods `name` names: an exact match of qualified(), of name,
  /// of the name without its parameter list, or `Chare::method` without it;
  /// a number is an entry index. Empty when none; several when ambiguous.
  Expected<std::vector<CharmEntry>> findEntries(std::string_view name);

  /// Sets a breakpoint on `entry` on `pes` (debug/charm/bp/set). Returns the
  /// breakpoint and, per PE that refused or could not be asked, why.
  std::pair<CharmBreakpoint, std::map<int, std::string>> setBreakpoint(const CharmEntry& entry, const RankSet& pes);
  /// Removes breakpoint `id` (debug/charm/bp/remove on its PEs). Errors: no such breakpoint.
  Expected<std::map<int, std::string>> removeBreakpoint(int id);
  /// The breakpoints set, by number.
  const std::map<int, CharmBreakpoint>& breakpoints() const { return breakpoints_; }
  /// The breakpoint on PE `pe` whose entry method Charm++ calls `entryName`
  /// (as its BP lines and charm/entries name it), or nullptr.
  const CharmBreakpoint* breakpointAt(int pe, std::string_view entryName) const;

  /// Freezes `pes` (debug/converse/freeze) and waits up to `settle` for them
  /// to be frozen. Returns, per PE not frozen, why.
  std::map<int, std::string> freeze(const RankSet& pes, std::chrono::milliseconds settle = std::chrono::seconds(3));
  /// Continues `pes` (debug/charm/continue): a PE at a breakpoint runs the
  /// entry method it stopped in, queued messages are delivered. Returns, per
  /// PE not continued, why.
  std::map<int, std::string> resume(const RankSet& pes);
  /// Delivers one message on each of `pes` (debug/charm/next) without
  /// unfreezing: the entry method a PE stopped at, else the first queued
  /// message. Returns, per PE not stepped, why (a running PE is not stepped).
  std::map<int, std::string> step(const RankSet& pes);

  /// The PEs as list servers for `print` and `lists` (Charm++'s CpdLists).
  ListServers& lists();

  /// Blocks until a stop no wait has returned at yet (a breakpoint hit, an
  /// abort or a signal announced on the output; a PE let go by resume()
  /// found stopped, for attached programs whose output mpidbg does not
  /// see), until every PE is frozen or the program ended, or `timeout` or
  /// cancellation.
  enum class WaitOutcome { Stopped, Settled, Ended, TimedOut, Cancelled };
  WaitOutcome waitForEvent(std::chrono::milliseconds timeout, const Cancelled& cancelled);

  /// Ends the program: gdb sessions detach, charmrun's process group and the
  /// PE processes end. Idempotent.
  void kill();
  /// Leaves the program running: breakpoints removed, every PE continued,
  /// gdb sessions detached.
  void detach();

  /// The lists Charm++'s debug mode serves that need no object id and are
  /// safe to ask for (never `hostinfo`, which aborts programs built without
  /// rpc/rpc.h).
  static const std::vector<std::string>& knownLists();

 private:
  class PeLists;
  struct PeNotes {
    pid_t pid = 0;
    bool frozen = false;     ///< from the output: a Freeze since the last continue
    std::string breakpoint;  ///< from the output: the entry of the last BP line
    std::string abort;
  };
  /// Replaces the raw `value` bytes of charm/arrayElements and charm/object
  /// items by their members, decoded by the DWARF type the item names
  /// (Charm++ sends element memory, not PUP'd fields).
  void decodeObjects(std::vector<ccs::pupfmt::Node>& items);
  void readOutput(int fd);
  void handleNotice(const CharmNotice& notice);
  Expected<void> attachPids(const std::map<int, pid_t>& pids);
  /// The PEs of `pes` sorted by the router (which can be asked now, why
  /// not the others: held by gdb, ended), a PE the program does not have
  /// refused as "no PE N (the program has M)".
  RankSort sortPes(const RankSet& pes);
  /// `handler` with `data` to each PE `sorted` found reachable (one request
  /// per PE, through CharmPes): each reply, and per PE refused (sorted.why)
  /// or without a reply, why.
  std::pair<std::map<int, std::vector<std::uint8_t>>, std::map<int, std::string>> askPes(
      const RankSort& sorted, std::string_view handler, const std::vector<std::uint8_t>& data = {});
  /// `handler` to each PE `sorted` found reachable, without waiting for a
  /// reply (RankBackend::post); per PE refused or not sent, why.
  std::map<int, std::string> postPes(const RankSort& sorted, std::string_view handler);
  /// `pes`, or every PE when `pes` is empty.
  RankSet orAll(const RankSet& pes) const { return pes.empty() ? RankSet::all(pes_) : pes; }

  Session& session_;
  std::function<void(const std::string&)> notify_;
  std::function<void(const std::string&)> output_;
  std::unique_ptr<CharmLink> link_;
  /// The PEs as the router's back end, and the router that decides which can be asked.
  std::unique_ptr<CharmPes> backend_;
  std::unique_ptr<RankRouter> router_;
  std::unique_ptr<Launcher> launcher_;
  std::unique_ptr<PeLists> lists_;
  std::thread reader_;
  std::atomic<bool> active_{false};
  int pes_ = 0;
  mutable std::mutex mutex_;  ///< guards notes_, serverPort_, lastLines_, outputEnded_, awaiting_, stopPending_
  std::condition_variable changed_;
  std::map<int, PeNotes> notes_;
  int serverPort_ = 0;
  std::vector<std::string> lastLines_;  ///< the last output lines, for a failed start
  bool outputEnded_ = false;
  /// PEs let go by resume() whose next stop has not been seen yet.
  std::set<int> awaiting_;
  /// A stop (a breakpoint hit, an abort, a signal, or a PE of awaiting_ found
  /// stopped) that no wait has returned at yet.
  bool stopPending_ = false;
  std::optional<std::vector<CharmEntry>> entries_;
  std::mutex symbolsMutex_;  ///< guards symbols_ (SymbolSource is not thread-safe)
  std::unique_ptr<mqs::SymbolSource> symbols_;
  bool symbolsTried_ = false;
  std::map<int, CharmBreakpoint> breakpoints_;
  int nextBreakpoint_ = 1;
};

/// The processes of a Charm++ program on this host whose CCS server (in
/// charmrun) listens on `port`: PE -> pid. The processes are those whose
/// NETSTART variable (charmrun's netlrts start: "NODE HOST PORT PID ...")
/// names a charmrun that holds a socket listening on `port`; each one's PE
/// is read from its memory (_Cmi_mype, non-SMP builds). Empty when none is
/// found (another host, no permission).
std::map<int, pid_t> charmProcessesOnPort(int port);

/// A fresh key file for ++server-auth in `dir`: "0 " and 32 decimal digits
/// (16 key bytes of 0..99, as Charm++ reads them; CharmKeyFile.hpp), mode
/// 0600. Returns the path and the key. Errors: the file cannot be written,
/// the random generator fails.
Expected<std::pair<std::string, ccs::CharmKey>> writeCharmKeyFile(const std::string& dir);

}  // namespace mpidbg::core::charm
