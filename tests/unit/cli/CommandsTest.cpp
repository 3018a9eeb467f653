#include <catch2/catch.hpp>

#include "debugger/cli/Commands.hpp"
#include "mpidbg/Text.hpp"

using namespace mpidbg;

TEST_CASE("every command has a name, syntax, summary and help, and names are unique", "[cli]") {
  std::set<std::string> names;
  for (const auto& cmd : cli::commandTable()) {
    INFO(cmd.name);
    CHECK_FALSE(cmd.syntax.empty());
    CHECK(cmd.syntax.rfind(cmd.name, 0) == 0);
    CHECK_FALSE(cmd.summary.empty());
    CHECK_FALSE(cmd.help.empty());
    CHECK(names.insert(cmd.name).second);
    for (const auto& alias : cmd.aliases) CHECK(names.insert(alias).second);
    CHECK(cli::findCommand(cmd.name) == &cmd);
  }
  CHECK(cli::findCommand("c")->name == "run");
  CHECK(cli::findCommand("continue")->name == "run");
  CHECK(cli::findCommand("nonesuch") == nullptr);
}

TEST_CASE("splitRankToken separates the rank set from the rest", "[cli]") {
  using P = std::pair<std::string, std::string>;
  CHECK(cli::splitRankToken("2 bt") == P{"2", "bt"});
  CHECK(cli::splitRankToken("[0-3, 7] info threads") == P{"[0-3, 7]", "info threads"});
  CHECK(cli::splitRankToken("  all   bt full ") == P{"all", "bt full"});
  CHECK(cli::splitRankToken("3") == P{"3", ""});
  CHECK(cli::splitRankToken("[0-1") == P{"[0-1", ""});
}

TEST_CASE("commands without a job fail cleanly; unknown commands suggest others", "[cli]") {
  cli::Console console;
  core::Debugger debugger([](const std::string&) {});
  cli::Context ctx{debugger, console, {}};
  for (const char* line : {"status", "collectives", "wait 1", "gdb 0 bt", "run", "kill"}) {
    INFO(line);
    auto r = cli::executeLine(ctx, line);
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.error, Catch::Contains("no job"));
  }
  auto unknown = cli::executeLine(ctx, "colectives");
  CHECK_FALSE(unknown.ok);
  CHECK(unknown.error == "unknown command 'colectives'; did you mean: collectives?");
  CHECK(cli::executeLine(ctx, "# a comment").ok);
  CHECK(cli::executeLine(ctx, "   ").ok);
  auto help = cli::executeLine(ctx, "help gdb");
  CHECK(help.ok);
  CHECK_THAT(help.text, Catch::StartsWith("Usage: gdb [--keep] RANKS COMMAND"));
  CHECK(cli::executeLine(ctx, "quit").quit);
}

TEST_CASE("wait SECONDS: a number from 0 to kMaxWaitSeconds, else an error", "[cli]") {
  using std::chrono::milliseconds;
  const milliseconds fallback{60000};
  struct Row {
    const char* args;
    long long ms;  // -1: an error
  };
  const Row rows[] = {
      {"", 60000},           {"  ", 60000},        {"30", 30000},      {"0.5", 500},      {"0", 0},
      {"1e3", 1000000},      {"100000000", 100000000000}, {"100000000.5", -1}, {"1e300", -1},
      {"1e400", -1},         {"inf", -1},          {"nan", -1},        {"-1", -1},        {"3s", -1},
      {"abc", -1},           {"30 40", -1},
  };
  for (const auto& row : rows) {
    INFO(row.args);
    auto timeout = cli::parseWaitTimeout(row.args, fallback);
    if (row.ms < 0) {
      REQUIRE_FALSE(timeout.has_value());
      CHECK(timeout.error().message == "wait takes a number of seconds from 0 to 100000000, e.g. 'wait 30' (got '" +
                                           std::string(trim(row.args)) + "')");
    } else {
      REQUIRE(timeout.has_value());
      CHECK(timeout->count() == row.ms);
    }
  }
}

TEST_CASE("commands check their arguments before they need the job", "[cli]") {
  cli::Console console;
  core::Debugger debugger([](const std::string&) {});
  cli::Context ctx{debugger, console, {}};
  // As after `kill`: the focus and the breakpoints outlive the job.
  ctx.session.focus = core::RankSet::range(2, 3);
  debugger.controls().restore({1, core::RankSet::range(0, 3), {}});
  const std::string noJob(cli::kNoJob);
  struct Row {
    const char* line;
    std::string error;  // exact, or a prefix ending in "..."
  };
  const Row rows[] = {
      {"status", noJob},
      {"run", noJob},
      {"where --full", noJob},
      {"where --dot job.dot 0-3", noJob},
      {"status (S | 3", "bad rank set '(S | 3'..."},
      {"run [0-", "bad rank set '[0-'..."},
      {"focus [", "bad rank set '['..."},
      {"set S = (1", "bad rank set '(1'..."},
      {"set S = [0-1]", noJob},
      {"wait 1e300", "wait takes a number of seconds from 0 to 100000000, e.g. 'wait 30' (got '1e300')"},
      {"wait 30", noJob},
      {"gdb 0", "usage: gdb RANKS COMMAND: no gdb command given after '0'"},
      {"gdb 0 bt", noJob},
      {"gdb attach 0-", "bad rank set '0-'..."},
      {"-mi 0", "usage: -mi RANKS COMMAND: no MI command given after '0'"},
      {"-mi 0 12-stack-info-depth", "give the MI command without a token ('12-stack-info-depth'): mpidbg adds its own"},
      {"break MPI_Sendd", "unknown MPI function 'MPI_Sendd' (did you mean MPI_Send?)"},
      {"break violation if tag == 1", "break violation takes no condition (usage: break [RANKS] violation [#N])"},
      {"break MPI_Send #0", "bad hit count '#0' (expected e.g. #42)"},
      {"break MPI_Send if root == 0", "MPI_Send has no argument 'root'..."},
      {"break [0-1] MPI_Send if dest == 3 #2", noJob},
      {"break (0 MPI_Send", "bad rank set '(0 MPI_Send'..."},
      {"break", "usage: break [RANKS] MPI_FUNCTION ..."},
      {"hang --bogus", "hang does not know option '--bogus' (options: --json --memory --no-frames)"},
      {"hang --json\t--memory", noJob},
      {"collectives now", "collectives takes no arguments"},
      {"info nothing", "info does not know 'nothing' (usage: info break | info entries [RANKS] | info threadlevel "
                       "[RANKS] | info record [RANKS] | info check)"},
      {"info", "info needs a subcommand (usage: info break | ..."},
      {"info entrys 0", "info does not know 'entrys'; did you mean entries? (usage: ..."},
      {"info check 3", "info check takes no arguments"},
      {"info break 0", "info break takes no arguments"},
      {"info threadlevel --all", "info threadlevel takes no options (got '--all')"},
      {"info break", noJob},
      {"info b", noJob},
      {"i breakpoints", noJob},
      {"info record [0-1]", noJob},
      {"info entries (", "bad rank set '('..."},
      {"delete x", "expected a breakpoint number (see 'info break'), got 'x'"},
      {"delete 1", noJob},
      {"delete all", noJob},
      {"next 0", noJob},  // rank 0, once: a count of 0 means nothing
      {"step 0 1", "bad rank set '0 1'..."},
      {"next 1000000001", "usage: next [COUNT] [RANKS] (COUNT from 1 to ..."},
      {"step 99999999999999999999", "usage: step [COUNT] [RANKS] (COUNT from 1 to ..."},
      {"next 2 [1", "bad rank set '[1'..."},
      {"step [1", "bad rank set '[1'..."},
      {"next", noJob},
      {"step 2", noJob},
      {"next [0-1]", noJob},
      {"freeze --now", noJob},
      {"freeze --nowhere", "freeze does not know option '--nowhere'; did you mean --now? (options: --now)"},
      {"queues --memory\t1", noJob},
      {"where --bogus", "where does not know option '--bogus'..."},
      {"where --dot", "--dot needs a file name (where --dot FILE)"},
      {"print 3x", "bad object '3x': a name starts with a letter or '_'"},
      {"print [0] grid[", "bad object 'grid[': an item index is a number >= 0"},
      {"print [0] grid.nx", noJob},
      {"lists )", "bad rank set ')'..."},
  };
  for (const auto& row : rows) {
    INFO(row.line);
    const auto r = cli::executeLine(ctx, row.line);
    CHECK_FALSE(r.ok);
    if (row.error.ends_with("..."))
      CHECK_THAT(r.error, Catch::StartsWith(row.error.substr(0, row.error.size() - 3)));
    else
      CHECK(r.error == row.error);
    CHECK_FALSE(debugger.session().hasJob());
  }
}

TEST_CASE("a gdb look releases its ranks; execution, breakpoints and selection keep them", "[cli]") {
  for (const char* look : {"bt", "bt --raw", "backtrace full", "where", "print rank", "p/x mask", "x/4xw &a",
                           "info locals", "list 19,19", "ptype grid", "whatis rank", "thread apply all bt",
                           "thread apply 1 2 -q print rank", "  print 1"})
    CHECK(cli::isLookCommand(look));
  for (const char* hold : {"next", "step 2", "continue", "finish", "until 30", "break foo", "tbreak foo.c:3",
                           "frame 8", "frame function main", "up", "down", "thread 2", "thread apply all next",
                           "set var x = 1", "watch x", "signal SIGINT", "", "printer"})
    CHECK_FALSE(cli::isLookCommand(hold));
  for (const char* look : {"-data-evaluate-expression rank", "-stack-list-frames", "-stack-info-depth",
                           "-symbol-info-functions", "-thread-info"})
    CHECK(cli::isLookMiCommand(look));
  for (const char* hold : {"-exec-next", "-break-insert main", "-stack-select-frame 2", "-thread-select 2",
                           "-var-create - * rank", "-gdb-set pagination off"})
    CHECK_FALSE(cli::isLookMiCommand(hold));
}

TEST_CASE("a result is paged when it does not fit above the prompt", "[cli]") {
  CHECK(cli::Console::needsPager(24, 24));
  CHECK(cli::Console::needsPager(100, 24));
  CHECK_FALSE(cli::Console::needsPager(23, 24));
  CHECK_FALSE(cli::Console::needsPager(1000, 0));  // unknown height: never
  CHECK_FALSE(cli::Console::needsPager(0, 1));
}
