// The command table: every command of the prompt, -ex and -x, declared once
// (name, aliases, operands, summary, help, options, rank set, whether it needs
// the job), in the order `help` lists them. help, completion, docgen
// (docs/command-reference.md) and the syntax lines all read it. The bodies
// are in the *Commands.cpp files it names.
#include "debugger/cli/Commands.hpp"
#include "debugger/cli/ControlCommands.hpp"
#include "debugger/cli/GdbCommands.hpp"
#include "debugger/cli/JobCommands.hpp"
#include "debugger/cli/ListCommands.hpp"
#include "debugger/cli/QueueCommands.hpp"
#include "debugger/cli/SetCommands.hpp"
#include "debugger/cli/StackCommands.hpp"

namespace mpidbg::cli {

const std::vector<Command>& commandTable() {
  // The options, each declared once; where two commands share one, one constant.
  const OptionSpec now{"--now", OptionValue::Flag, "",
                       "stop wherever the rank is, even computing (a real-time signal)"};
  const OptionSpec queuesMemory{"--memory", OptionValue::Flag, "",
                                "read every rank from memory (mqs DLL), stopping it (SIGSTOP) for the read"};
  const OptionSpec hangJson{"--json", OptionValue::Flag, "", "print the verdict as one JSON object"};
  const OptionSpec hangMemory{"--memory", OptionValue::Flag, "",
                              "read every rank from memory (mqs DLL), stopped for the read: one snapshot"};
  const OptionSpec noFrames{"--no-frames", OptionValue::Flag, "",
                            "skip the one-shot gdb for the top frames of ranks others wait for"};
  const OptionSpec full{"--full", OptionValue::Flag, "", "file:line for each frame; unknown frames one by one"};
  const OptionSpec tree{"--tree", OptionValue::Flag, "", "draw the call-prefix tree"};
  const OptionSpec allFrames{"--all-frames", OptionValue::Flag, "", "keep the MPI library's frames below the MPI call"};
  const OptionSpec allThreads{"--all-threads", OptionValue::Flag, "",
                              "also threads that run only in the MPI library or mpidbg's runtime"};
  const OptionSpec whereJson{"--json", OptionValue::Flag, "", "print the tree as one JSON object"};
  const OptionSpec dot{"--dot", OptionValue::File, "FILE", "write the tree to FILE for Graphviz"};
  const OptionSpec keep{"--keep", OptionValue::Flag, "", "keep the ranks held after a command that only looks"};
  static const std::vector<Command> table = withSyntax({
      {"run", {"continue", "c", "r", "unfreeze"}, "[RANKS]", "Let frozen or stopped ranks go (all by default)",
       "Sends 'continue' to the runtime of each rank: ranks frozen at the end of MPI_Init,\n"
       "stopped at a breakpoint, by freeze or by step resume (and a pending freeze or step\n"
       "is cancelled). Ranks held by gdb are not touched; release them with 'gdb detach'.",
       doContinue, false,
       {.ranks = RankArg::Optional, .needsJob = true}},
      {"break", {"b"}, "[RANKS] TARGET [if COND] [#N]", "Stop ranks at an MPI call or entry point",
       "TARGET is an interposed MPI function (MPI_Bcast, MPI_Send, MPI_Isend, MPI_Test,\n"
       "MPI_Comm_split_type, ...; Tab completes them), 'entry NAME' for an\n"
       "application entry point (MPIDBG_ENTRY(\"NAME\")), or 'violation': the thread that breaks\n"
       "the MPI thread level (or calls MPI after MPI_Finalize) stops where it does, and status\n"
       "says 'stopped at thread-level violation ...' (no condition). COND is evaluated in the rank:\n"
       "clauses NAME OP VALUE joined by && and ||, NAME one of dest, source, tag, root, count,\n"
       "comm, rank, size (as the function has them), OP one of == != < <= > >= (or =), comm\n"
       "values WORLD, SELF or a name set with MPI_Comm_set_name. #N stops only at the Nth\n"
       "matching call. A rank already inside a call of TARGET when the breakpoint is set stops\n"
       "only at its next one; 'break' names such ranks under its summary ('already inside\n"
       "MPI_Allreduce(...) call #99'), and peers stopped at that collective's entry leave them\n"
       "waiting inside it. Examples:\n"
       "  break MPI_Bcast\n  break MPI_Send if dest == 3\n  break MPI_Allreduce comm=WORLD #42\n"
       "  break [0-3] entry solver::step\n  break violation",
       doBreak, false,
       {.ranks = RankArg::Optional, .own = true, .needsJob = true}},
      {"delete", {"d"}, "[N|all]", "Delete breakpoint N (on every rank it is on)",
       "Removes breakpoint N, or every breakpoint with 'all' or, as in gdb, with no argument.", doDelete, false,
       {.own = true, .needsJob = true}},
      {"disable", {}, "N", "Disable breakpoint N", "Breakpoint N stays set but does not stop ranks.",
       doDisable, false,
       {.own = true, .needsJob = true}},
      {"enable", {}, "N", "Enable breakpoint N", "Breakpoint N stops ranks again.", doEnable, false,
       {.own = true, .needsJob = true}},
      {"info", {"i"}, "",
       "List breakpoints with hits, entry points reached, MPI thread levels, record/replay, or static findings",
       "info break: each breakpoint, where it is set and how often each rank matched it.\n"
       "info entries: the entry points each rank has reached, with hit counts.\n"
       "info threadlevel: each rank's thread level as requested from MPI_Init_thread (MPI_Init:\n"
       "MPI_THREAD_SINGLE), as provided, and the lowest level its MPI calls so far need, with\n"
       "the number of violations seen.\n"
       "info record: per rank, the matching decisions recorded so far (mpidbg --record DIR) by MPI\n"
       "function and the log's size, and how far replay has come (mpidbg --replay DIR), with the\n"
       "divergence report when the program asked for a decision the record does not hold.\n"
       "info check: the findings of mpidbg check the run is joined to (mpidbg --check FILE), each\n"
       "with what this run showed at its site: violated (on which ranks) or not seen.",
       doInfo, false,
       {.subcommands = {
            {"break", {"breakpoints", "b"}, "each breakpoint and its hits per rank", {.needsJob = true}},
            {"entries", {}, "the entry points each rank reached", {.ranks = RankArg::Optional, .needsJob = true}},
            {"threadlevel", {}, "MPI thread levels: requested, provided, needed",
             {.ranks = RankArg::Optional, .needsJob = true}},
            {"record", {}, "record/replay progress", {.ranks = RankArg::Optional, .needsJob = true}},
            {"check", {}, "the findings of mpidbg check joined to this run"},
        }}},
      {"freeze", {}, "[RANKS]", "Stop ranks at their next safe point, or at once",
       "Without --now a rank stops at its next MPI call or entry point. With --now it stops\n"
       "wherever it is, even computing (a real-time signal), while its runtime keeps answering.",
       doFreeze, false,
       {.options = {now}, .ranks = RankArg::Optional, .needsJob = true}},
      {"step", {"s"}, "[COUNT] [RANKS]", "Run ranks over COUNT (default 1) MPI calls or entry points",
       "Resumes stopped ranks and stops each again at its COUNT-th next safe point (MPI call\n"
       "or entry point). A first word of digits is COUNT, as in gdb: 'step 2' steps twice;\n"
       "one rank once is 'step 1 2' or 'step [2]' ('step 0' is rank 0). An empty line at the\n"
       "prompt repeats it.",
       doStep, true,
       {.ranks = RankArg::Optional, .own = true, .needsJob = true}},
      {"next", {"n"}, "[COUNT] [RANKS]", "Run ranks over COUNT (default 1) MPI calls or entry points",
       "The same as step (mpidbg's steps are MPI calls and entry points, so there is no\n"
       "call to step into or over): 'next' is 'step', 'next 3 [0-3]' is 'step 3 [0-3]'.",
       doNext, true,
       {.ranks = RankArg::Optional, .own = true, .needsJob = true}},
      {"detach", {}, "", "Leave the job running without the debugger",
       "Every rank drops its breakpoints and resumes, gdb sessions detach, and the job runs\n"
       "to its end by itself; mpidbg no longer kills it when it exits.",
       doDetach, false,
       {}},
      {"status", {"st"}, "[RANKS]", "Show what each rank is doing, grouped by state",
       "Asks each rank's runtime what it is doing and prints ranks with identical state\n"
       "together, e.g.\n"
       "  [0-1,3] blocked in MPI_Allreduce (call 1 on MPI_COMM_WORLD) at solver.c:88 in step\n"
       "  [2] blocked in MPI_Recv(source=0, tag=99, comm=MPI_COMM_WORLD) at halo.c:40 in exchange\n"
       "A rank that waits (blocked or polling) is followed by where it made the call, from\n"
       "its stack as 'where' reads it.\n"
       "A rank is 'blocked' once it has been inside one MPI call for --blocked-after\n"
       "milliseconds (default 1000); before that it is 'in' the call. A rank that repeats\n"
       "one MPI_Test* (or MPI_Iprobe) with nothing completing that long 'polls' it:\n"
       "  [0] polls MPI_Test for 4.0 s",
       doStatus, false,
       {.ranks = RankArg::Optional, .needsJob = true}},
      {"collectives", {"coll"}, "", "Report stuck collectives per communicator",
       "For every communicator with a collective in progress, groups the ranks by the\n"
       "call number they are in, and says what every other member is doing instead:\n"
       "  Ranks [0-1,3] are in call 1 to MPI_Allreduce.\n"
       "  Rank 2 has made 0 calls to MPI_Allreduce and is blocked in MPI_Recv(...).\n"
       "Nonblocking collectives not completed are named apart, with their position in the\n"
       "communicator's collective sequence:\n"
       "  Rank 0 has not completed MPI_Iallreduce (collective #2 on the communicator).",
       doCollectives, false,
       {.needsJob = true}},
      {"lists", {}, "[RANKS]", "List the objects and lists the ranks serve",
       "The application's watched objects and lists (mpidbg::watch, mpidbg::watch_list,\n"
       "mpidbg_watch_struct in mpidbg/watch.hpp and mpidbg.h) and the runtime's own lists\n"
       "(mpi/communicators, mpi/pending, mpidbg/entries, mpidbg/breakpoints), read through\n"
       "Charm++'s list protocol: name, object or list, the ranks serving it, lengths.\n"
       "  grid                object  [0-3]\n"
       "  particles           list    [0-3]  100 items on [0-2]; 99 items on [3]",
       doLists, false,
       {.ranks = RankArg::Optional, .needsJob = true}},
      {"print", {"p"}, "[RANKS] LIST[.FIELD|[I]|[A:B]]...", "Print an object's fields, merged across ranks",
       "Reads a watched object or list from each rank (its PUP routine gives field names)\n"
       "and prints one line per field: the value when all ranks agree, else the majority\n"
       "first, then the exceptions. NAME[I] is item I of a list, NAME[A:B] items A..B-1;\n"
       "a .FIELD or [K] after it narrows to that field. Frozen ranks, ranks at a breakpoint\n"
       "and ranks inside MPI are read consistently; ranks running application code are read\n"
       "while they run (best effort, marked). 'ranks where grid.nx != 128' selects ranks by\n"
       "a field.\n"
       "  grid.nx = 128 on [0-62]; 127 on [63]\n"
       "  print [0-3] particles[0:10].x     print mpi/pending",
       doPrint, false,
       {.ranks = RankArg::Optional, .own = true, .needsJob = true}},
      {"queues", {"mq"}, "[RANKS]", "Show pending sends, receives and nonblocking collectives",
       "Per rank and communicator, the operations issued and not completed: nonblocking\n"
       "requests (MPI_Isend, MPI_Irecv, persistent ones, MPI_Ibarrier, ...) and the blocking\n"
       "call the rank is inside, with peers as ranks of the communicator. Ranks with the\n"
       "same queues are grouped. Ranks held by gdb are read from memory (mqs DLL);\n"
       "--memory reads every rank from memory, stopping it (SIGSTOP) for the moment of the read.\n"
       "  [0] MPI_COMM_WORLD (size 4, rank 0):\n"
       "        receive MPI_Irecv(source=3, tag=1, count=1) request 0x2c000001 [waited]",
       doQueues, false,
       {.options = {queuesMemory}, .ranks = RankArg::Optional, .needsJob = true}},
      {"hang", {}, "", "Explain why the job is stuck (the hang verdict)",
       "Combines collective states, pending operations and top stack frames into one report:\n"
       "what each rank waits in; where collective sequences differ between ranks (the first\n"
       "call number, and how: name, root); the wait-for graph between ranks and every cycle\n"
       "in it; ranks others wait for that are not in MPI (computing, exited), with their top\n"
       "frame from a one-shot gdb (--no-frames skips it); waits on ranks already in\n"
       "MPI_Finalize; and the ranks to look at first. Ranks the debugger holds (frozen, at a\n"
       "breakpoint, stepped) are 'held:', never blocked or computing, and ranks that only\n"
       "wait for them are no hang of the program. A rank polling MPI_Test* or MPI_Iprobe\n"
       "waits like one in MPI_Wait*. --json prints one JSON object\n"
       "(docs/commands.md describes its fields). --memory reads every rank from memory\n"
       "through the mqs DLL, stopping the ranks (SIGSTOP) for the read: one consistent\n"
       "snapshot, and fast when blocked ranks busy-poll on oversubscribed cores.",
       doHang, false,
       {.options = {hangJson, hangMemory, noFrames}, .needsJob = true}},
      {"where", {"w", "bt"}, "[RANKS]",
       "Merged stack tree of every rank's threads (no gdb)",
       "Each rank's runtime captures the stacks of its application threads (a signal to each\n"
       "thread, libunwind in the handler; sleeping calls such as nanosleep or poll in the\n"
       "application return early with EINTR, as under freeze --now), the front end names\n"
       "each distinct address once (DWARF, else the symbol table) and merges all ranks\n"
       "into one call-prefix tree whose edges carry rank sets, as STAT does. Default: one\n"
       "line per leaf, 'main > solve > MPI_Allreduce  [0-62]', cut at the MPI call\n"
       "(--all-frames keeps the MPI library's frames below it). --full adds file:line to\n"
       "each frame, --tree draws the tree, --json prints it as JSON, --dot FILE writes it\n"
       "for Graphviz. Ranks held by gdb, or whose runtime does not answer, are read with\n"
       "gdb (said so at the end). Also numbers the equivalence classes for $equiv[N].\n"
       "Threads that run only inside the MPI library, its transports or mpidbg's runtime\n"
       "(UCX's progress thread, Open MPI's libevent and PMIx threads) are left out and\n"
       "counted in a note; --all-threads shows them. A binary without symbols still shows\n"
       "'main' (the callee of __libc_start_call_main), and runs of unknown frames of one\n"
       "object are one frame: '?? x17 (nwchem.mpich)' (--full keeps each frame).\n"
       "Examples: where     where --tree 0-15     where --full --dot job.dot",
       doWhere, true,
       {.options = {full, tree, allFrames, allThreads, whereJson, dot}, .ranks = RankArg::Optional, .needsJob = true}},
      {"equiv", {}, "[RANKS]", "Ranks grouped by identical stacks",
       "The equivalence classes of the merged stack tree (STAT): ranks whose threads have\n"
       "exactly the same call paths, largest class first, numbered. A class is a rank set\n"
       "in later commands as $equiv[N]: gdb $equiv[2] bt, status $equiv[1].",
       doEquiv, false,
       {.options = {full, allFrames, allThreads}, .ranks = RankArg::Optional, .needsJob = true}},
      {"wait", {}, "[SECONDS]", "Wait for the next stop, or until every rank is blocked",
       "Returns when a rank stops (breakpoint, freeze, step), when every rank is blocked in\n"
       "MPI, frozen, held by gdb or has exited, when the job ends, after SECONDS (default 60),\n"
       "or on Ctrl-C. Ranks attached without the runtime (attach --pid, --slurm) are seen\n"
       "ending, not blocking: with them, wait runs until the job ends or SECONDS pass.",
       doWait, true,
       {.own = true, .needsJob = true}},
      {"gdb", {}, "RANKS COMMAND", "Run a gdb command on ranks (attaching on first use)",
       "Attaches one gdb (MI) to each rank of RANKS on first use and runs COMMAND, a gdb\n"
       "console command, on all of them. Identical outputs are grouped by rank set, and\n"
       "outputs that differ only in decimal numbers are merged into one line with the\n"
       "values as a range or a set: '[0-63] $1 = [0..63]', '[1-3] $1 = {1,4,9}'.\n"
       "While attached, a rank is stopped. A command that only looks (bt, print, x, list,\n"
       "info, ptype, thread apply ... bt) lets the ranks it attached for it run again\n"
       "afterwards; their gdb stays, detached, so the next command attaches faster and\n"
       "value history goes on. Other commands (next, continue, break, frame, up ...) keep\n"
       "the ranks held, as do 'gdb --keep RANKS COMMAND' and 'gdb attach RANKS' (progress\n"
       "on a terminal). 'gdb detach RANKS' lets held ranks run again and ends their gdb\n"
       "(RANKS defaults to all). Execution commands (continue, next, step, finish, until)\n"
       "return when the ranks stop again, with the stop in their output; a rank still\n"
       "running after --gdb-timeout is interrupted (said so). next and step start in the\n"
       "frame gdb selected: when that is above the innermost, its callee is finished first.\n"
       "A rank whose gdb dies or does not answer within --gdb-timeout\n"
       "is reported under 'errors:'; the other ranks' output is printed as usual.\n"
       "gdb lands in the application: after attaching and after every stop, each gdb\n"
       "selects the innermost frame outside mpidbg's runtime, the MPI library and its\n"
       "transports, and libc, so 'print rank', 'info locals', 'list' and 'up' work at\n"
       "once. Backtraces fold the runtime's frames into one line ('[mpidbg runtime: 6\n"
       "frames]'); 'gdb RANKS bt --raw' shows every frame (gdb's bt -no-filters).\n"
       "Examples: gdb 2 bt     gdb [0-3] info threads     gdb attach 0-7     gdb detach all",
       doGdb, false,
       {.options = {keep},
        .ranks = RankArg::Required,
        .own = true,
        .needsJob = true,
        .subcommands = {{"attach", {}, "attach gdb to the ranks (all by default) and hold them",
                         {.ranks = RankArg::Optional, .needsJob = true}},
                        {"detach", {}, "let the ranks gdb holds (all by default) run again and end their gdb",
                         {.ranks = RankArg::Optional, .needsJob = true}}},
        .subcommandOptional = true}},
      {"-mi", {}, "RANKS MI-COMMAND", "Run a raw gdb/MI command on ranks, print each result record",
       "Like 'gdb', but MI-COMMAND is sent to gdb as an MI command (no token: mpidbg adds\n"
       "its own) and each rank's result record is printed as gdb wrote it, without the\n"
       "token, grouped like 'gdb' output (numbers merged into ranges):\n"
       "  -mi all -data-evaluate-expression rank   ->  [0-3] ^done,value=\"[0..3]\"\n"
       "Stream output and async records are not shown; an ^error is printed as a record.\n"
       "Queries (-data-*, -stack-* but -stack-select-frame, -symbol-*, -thread-info ...)\n"
       "release the ranks they attached for, as 'gdb' does for its looks (--keep holds).",
       doMi, false,
       {.options = {keep}, .ranks = RankArg::Required, .own = true, .needsJob = true}},
      {"ranks", {}, "[RANKS]", "List ranks: host, pid, CCS endpoint, life",
       "One line per rank as registered: its host, process id, the endpoint of its runtime's\n"
       "CCS server ('-' for a rank attached without the runtime), and whether it is live,\n"
       "held by gdb, or how it ended. Where the launcher names the nodes (a PMIx server,\n"
       "srun's MPIR process table) a node column follows the endpoint; under PMIx also the\n"
       "rank's NAMESPACE:RANK, with * when it published its endpoint there.",
       doRanks, false,
       {.ranks = RankArg::Optional, .needsJob = true}},
      {"set", {}, "[NAME = EXPR]", "Name a rank set, or list the named sets",
       "Evaluates the rank-set expression EXPR now and names the result: the name keeps\n"
       "those ranks (like a gdb convenience variable; 'set S = blocked' is the ranks blocked\n"
       "at that moment, not re-evaluated later). NAME is letters, digits and '_', not a\n"
       "reserved word (all focus blocked frozen running exited held in at where entry) and\n"
       "not MPI_*. 'set' alone lists the names. Use a name wherever RANKS goes.\n"
       "'set pagination off' prints long output at once; on (the default at the prompt\n"
       "on a terminal) a result taller than the terminal goes through $PAGER (less -FRX).\n"
       "Expressions: S | T (union), S & T (intersection), S - T (difference), ~S (every\n"
       "other rank), parentheses; operands [0-3,7], 0-3, 5, all, NAME, $equiv[N], focus,\n"
       "blocked, frozen, running, exited, held, in MPI_FUNCTION, at entry NAME.\n"
       "Examples: set S = [0-1]     set late = blocked & in MPI_Allreduce     set",
       doSet, false,
       {.own = true,
        .subcommands = {{"pagination", {}, "long output through $PAGER at the prompt (on, the default) or at once (off)",
                         {.own = true}, "[on|off]"}},
        .subcommandOptional = true}},
      {"unset", {}, "NAME", "Forget a named rank set", "Removes NAME (see 'set').", doUnset, false,
       {.own = true}},
      {"focus", {}, "[EXPR]", "Set the ranks commands act on by default",
       "Commands that take an optional RANKS act on the focus when given none: run,\n"
       "break, info entries, freeze, step, next, status, queues, where, equiv, ranks,\n"
       "gdb attach, gdb detach. 'gdb RANKS CMD' and '-mi' still need RANKS; write 'focus'\n"
       "there (gdb focus bt). EXPR is evaluated now (a fixed set); the prompt shows it:\n"
       "(mpidbg [2-3]). 'focus' alone shows it; 'focus all' or 'unfocus' clears it.\n"
       "Examples: focus [2-3]     focus blocked & in MPI_Recv     focus all",
       doFocus, false,
       {.own = true}},
      {"unfocus", {}, "", "Clear the focus (commands act on every rank)",
       "Same as 'focus all'.", doUnfocus, false,
       {}},
      {"kill", {}, "", "Kill the job", "Detaches gdb sessions and ends every process of the job.",
       doKill, false,
       {}},
      {"quit", {"q", "exit"}, "", "Leave the debugger (killing the job if it runs)",
       "Ends the session. A job that is still running is killed.", doQuit, false,
       {.own = true}},
      {"help", {"h", "?"}, "[COMMAND]", "List commands, or describe one",
       "Without an argument lists every command; with one, shows its usage and details.", doHelp, false,
       {.own = true}},
  });
  return table;
}

}  // namespace mpidbg::cli
