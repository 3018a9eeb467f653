#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ccs/proto/QueueProtocol.hpp"
#include "debugger/core/RankSet.hpp"
#include "debugger/core/StaticFindings.hpp"

namespace mpidbg::core {

/// What the hang verdict is computed from: the queue state of every rank that
/// could be read (from its runtime over CCS, or through a message-queue DLL
/// from memory or a core file), and why the others could not.
struct HangInput {
  int worldSize = 0;
  std::vector<ccs::proto::RankQueues> ranks;
  /// Ranks whose process has ended: "exited with code 1", "killed by signal 9".
  std::map<int, std::string> ended;
  /// Ranks that are alive but could not be read, with the reason.
  std::map<int, std::string> unreadable;
  /// Where each rank made the MPI call it is in, as mpiCallSites gives it
  /// ("deadlock.c:19 in main"); ranks without one are left out.
  std::map<int, std::string> callSites;
  /// How long a rank must wait before it counts as blocked: a rank in an
  /// MPI_Test* that has not polled that long (waitsLong) is running.
  std::chrono::milliseconds blockedAfter{1000};
  /// `mpidbg check`'s findings the run is joined to (mpidbg --check FILE),
  /// or null: a rank-dependent collective flagged where ranks wait is named
  /// (HangVerdict::predicted).
  std::shared_ptr<const StaticFindings> findings;
};

/// A collective `mpidbg check` flagged as not called by every rank
/// (mpidbg-rank-dependent-collective), at the site where ranks wait.
struct PredictedHang {
  std::string site;       ///< "coll_deadlock.c:19"
  std::string function;   ///< "MPI_Barrier"
  std::string condition;  ///< the condition's site, "coll_deadlock.c:18" ("" unknown)
  std::string message;    ///< the check's sentence
  RankSet waiting;        ///< the ranks blocked in it there
  RankSet elsewhere;      ///< the other ranks the verdict read
};

/// One edge of the wait-for graph: `from` cannot return from its MPI call
/// until `to` does something.
struct WaitEdge {
  int from = 0;
  int to = 0;
  /// What `from` waits in: "MPI_Recv(source=0, tag=99, comm=MPI_COMM_WORLD)",
  /// "MPI_Allreduce (call 1 on MPI_COMM_WORLD)", "MPI_Waitall: MPI_Irecv(source=3, tag=1)".
  std::string why;
  bool anySource = false;  ///< one of several possible senders (MPI_ANY_SOURCE)
};

/// The verdict (issue 5, "What the verdict must get right"): each rank's
/// state, the collective sequences compared per communicator, the wait-for
/// graph, its cycles, the ranks others wait for that are not in MPI, and the
/// ranks to look at first.
struct HangVerdict {
  /// Per rank, one phrase: "in call 1 to MPI_Allreduce on MPI_COMM_WORLD",
  /// "blocked in MPI_Recv(source=0, tag=99, comm=MPI_COMM_WORLD)", "in
  /// MPI_Finalize (a bystander)", "computing (not in MPI) in solve () at
  /// solver.c:88", "exited with code 1", "unreadable (why)".
  std::map<int, std::string> states;
  /// One line per communicator whose members' collective sequences differ:
  /// "MPI_COMM_WORLD: collective #2 differs: ranks [0-2] called
  /// MPI_Bcast(root=0), rank 3 called MPI_Reduce(root=0)".
  std::vector<std::string> mismatches;
  std::vector<WaitEdge> edges;
  /// Each cycle as a rank list, closed implicitly (0 -> 2 -> 0 is {0, 2}),
  /// starting at its lowest rank.
  std::vector<std::vector<int>> cycles;
  /// Ranks that others wait for but that are not waiting in MPI themselves
  /// (computing, ended, frozen, unreadable), with what they do instead.
  std::map<int, std::string> culprits;
  /// Waits that can never be satisfied because the rank waited for has
  /// finished with MPI or ended: "rank 0 waits in MPI_Recv(source=2, ...) for
  /// rank 2, which is in MPI_Finalize: no matching operation will come".
  std::vector<std::string> deadEnds;
  /// Messages sent and not received, next to the receive that waits for
  /// something else (issue 23 item 6), from the ranks' message counts
  /// (RankQueues::messages): "rank 0's MPI_Send(dest=1, tag=0,
  /// comm=MPI_COMM_WORLD) sent 1 message that rank 1 has not received; rank
  /// 1 waits in MPI_Recv(source=0, tag=1, comm=MPI_COMM_WORLD): a tag
  /// mismatch?". Said only when both ranks' counts are complete, the
  /// receiver has no pending receive that could take the message, and no
  /// receive of the receiver with an unknown sender could have taken it.
  std::vector<std::string> unreceived;
  /// Blocked ranks in a call whose wait the verdict cannot follow, by world
  /// rank: the call ("MPI_Win_unlock(win 0xa0000000)"). Today one-sided
  /// synchronisation whose other side it did not see (a lock with no
  /// conflicting holder seen, an epoch whose peers all did their part, a
  /// rank read from memory), calls on communicators the runtime did not see
  /// made, and the dynamic-process calls. They get no edge, and the text
  /// says whom they wait for is unknown instead of "No cycle found".
  std::map<int, std::string> unfollowed;
  /// The findings of `mpidbg check` that explain the hang (HangInput::findings).
  std::vector<PredictedHang> predicted;
  /// A rank the debugger's runtime holds (frozen, stopped at a breakpoint or
  /// after a step, held at the end of MPI_Init): never the program's hang,
  /// and never "computing" or "blocked". A rank held by gdb is not one: it
  /// is judged by the state it was in when gdb stopped it (read from
  /// memory), since attaching gdb is how a hang is inspected.
  struct Held {
    /// How it is held: RankQueues::held ("frozen (--now) in application
    /// code", "breakpoint 1 at MPI_Send(...)").
    std::string how;
    /// The blocked ranks that wait for it, directly or through other
    /// blocked ranks (paths of the wait-for graph).
    RankSet waiters;
  };
  /// By world rank.
  std::map<int, Held> held;
  /// True when some rank is blocked and every blocked rank waits for a held
  /// rank, with no cycle, dead end, mismatch or culprit of its own: the
  /// program is not hung, the debugger holds it ("No hang of the program").
  bool onlyHeld = false;
  /// Ranks to look at in gdb first.
  RankSet suggested;
  /// Where each rank that waits in MPI made that call (HangInput::callSites,
  /// for the ranks the verdict sees in an MPI call): "deadlock.c:19 in main".
  /// Also appended to those ranks' states and cycle lines (" at ...").
  std::map<int, std::string> callSites;
  /// Where each read rank's state came from: "ccs", "mqs:libmpidbg-mqs.so",
  /// "core:core.1234" (RankQueues::source).
  std::map<int, std::string> sources;
  /// True when nothing waits for anything: no rank is blocked in MPI.
  bool noHang = false;
  /// True when every rank read was read from stack frames only (attached
  /// by pid without a DLL's collective state): calls without arguments, so
  /// point-to-point waits have no peer and the graph has no edges for them.
  bool framesOnly = false;
};

/// Computes the verdict. Pure: no I/O, deterministic for a given input.
HangVerdict analyzeHang(const HangInput& input);

/// The verdict as text for a terminal (lines end with '\n').
std::string renderHang(const HangVerdict& verdict);

/// The verdict as JSON: {"version":1, "states":[{"ranks":"[0-1]","state":..}],
/// "mismatches":[..], "edges":[{"from":0,"to":2,"why":..,"any_source":false}],
/// "cycles":[[0,2]], "culprits":[{"rank":7,"doing":..}], "suggested":[0,2],
/// "no_hang":false, "held":[{"rank":1,"how":"frozen (--now) in application code",
/// "waiters":[0,2,3]}], "unreceived":["rank 0's MPI_Send(dest=1, ...) sent 1 message ..."], "only_held":false, "sources":[{"ranks":"[0-3]","rank_list":[0,1,2,3],"source":"ccs"}],
/// "call_sites":[{"ranks":"[0-1,3]","rank_list":[0,1,3],"site":"deadlock.c:25 in main"}]};
/// states carry "rank_list" beside "ranks" too. Documented in docs/commands.md
/// ("hang") and docs/json-schema.md ("hang").
nlohmann::json hangToJson(const HangVerdict& verdict);

/// Pending operations of every rank, grouped by identical text across ranks:
/// per communicator the pending sends, receives, nonblocking collectives,
/// unexpected messages and messages not received (notReceivedOn) (the
/// `queues` command).
std::string renderQueues(const std::vector<ccs::proto::RankQueues>& ranks,
                         const std::map<int, std::string>& unreadable);

/// The messages the other ranks of `ranks` sent rank `q` on its
/// communicator `c` and `q` has not received, by their message counts
/// (RankQueues::messages; arrived as unexpected messages or still on their
/// way), one text per sender and tag: "1 message from source=0 with tag=0
/// (MPI_Send)", the sender as a rank of `c`. Empty when a side's counts are
/// partial, and for tags `q` may have received unseen (HangVerdict::unreceived).
std::vector<std::string> notReceivedOn(const std::vector<ccs::proto::RankQueues>& ranks,
                                       const ccs::proto::RankQueues& q, const ccs::proto::CommQueues& c);

/// "MPI_Irecv(source=3, tag=1, count=10) request 0x2c000001 [waited]" and the
/// like: one pending operation, with peers as ranks of its communicator.
std::string describeOp(const ccs::proto::PendingOp& op);

}  // namespace mpidbg::core
