#include <catch2/catch.hpp>

#include "debugger/cli/Commands.hpp"
#include "debugger/cli/SetCommands.hpp"

using namespace mpidbg;

TEST_CASE("splitRankToken ends an expression at the first blank outside (), [] and quotes", "[cli][rankexpr]") {
  using P = std::pair<std::string, std::string>;
  struct Row {
    const char* args;
    P expected;
  };
  const Row rows[] = {
      {"2 bt", {"2", "bt"}},
      {"[0-3, 7] info threads", {"[0-3, 7]", "info threads"}},
      {"$equiv[2] bt", {"$equiv[2]", "bt"}},
      {"(blocked - frozen) bt full", {"(blocked - frozen)", "bt full"}},
      {"(in MPI_Recv) bt", {"(in MPI_Recv)", "bt"}},
      {"~(S | [0, 3]) p x", {"~(S | [0, 3])", "p x"}},
      {"S|T&blocked bt", {"S|T&blocked", "bt"}},
      {"((S) | (T)) bt", {"((S) | (T))", "bt"}},
      {"(at entry \"a ) b\") bt", {"(at entry \"a ) b\")", "bt"}},
      {"blocked", {"blocked", ""}},
      {"S | T bt", {"S", "| T bt"}},
      {"(S | 3 bt", {"(S | 3 bt", ""}},
      {"[0-1", {"[0-1", ""}},
  };
  for (const auto& row : rows) {
    INFO(row.args);
    CHECK(cli::splitRankToken(row.args) == row.expected);
  }
}

TEST_CASE("set, unset, focus and unfocus without a job", "[cli][rankexpr]") {
  cli::Console console;
  core::Debugger debugger([](const std::string&) {});
  cli::Context ctx{debugger, console, {}};

  auto list = cli::executeLine(ctx, "set");
  CHECK(list.ok);
  CHECK(list.text == "No named rank sets (define one with: set NAME = EXPR).\n");
  struct Row {
    const char* line;
    const char* error;
  };
  const Row errors[] = {
      {"set all = 3", "'all' is a reserved word in rank sets (all, focus, blocked, frozen, running, exited, held, in, "
                      "at, where, entry); pick another name"},
      {"set where = 3", "'where' is a reserved word in rank sets (all, focus, blocked, frozen, running, exited, held, "
                        "in, at, where, entry); pick another name"},
      {"set MPI_Send = 3", "'MPI_Send' looks like an MPI function; pick another name"},
      {"set 2x = 3", "'2x' is not a name: use letters, digits and '_', not starting with a digit"},
      {"set S 3", "usage: set NAME = EXPR (e.g. set S = [0-3] | blocked), or set pagination on|off; 'set' lists the named sets"},
      {"set S =", "usage: set NAME = EXPR: no rank set after '='"},
      {"set S = [0]", "no job: it was killed or never started"},
      {"unset", "usage: unset NAME ('set' lists the named rank sets)"},
      {"unset S", "no rank set named 'S' ('set' lists them)"},
      {"focus 1", "no job: it was killed or never started"},
      {"unfocus 1", "unfocus takes no arguments"},
  };
  for (const auto& row : errors) {
    INFO(row.line);
    auto r = cli::executeLine(ctx, row.line);
    CHECK_FALSE(r.ok);
    CHECK(r.error == row.error);
  }

  CHECK(cli::promptFor(ctx.session) == "(mpidbg)");
  CHECK(cli::executeLine(ctx, "focus").text == "No focus: commands without RANKS act on every rank.\n");
  core::RankSet focus;
  focus.insert(2);
  focus.insert(3);
  ctx.session.focus = focus;
  CHECK(cli::promptFor(ctx.session) == "(mpidbg [2-3])");
  CHECK(cli::executeLine(ctx, "focus").text ==
        "Focus: [2-3] (commands without RANKS act on these; 'unfocus' clears it)\n");
  CHECK(cli::executeLine(ctx, "unfocus").ok);
  CHECK_FALSE(ctx.session.focus.has_value());
  CHECK(cli::promptFor(ctx.session) == "(mpidbg)");

  ctx.session.namedSets["S"] = focus;
  CHECK(cli::executeLine(ctx, "set").text == "S = [2-3]\n");
  auto unset = cli::executeLine(ctx, "unset S");
  CHECK(unset.ok);
  CHECK(unset.text == "Forgot S.\n");
  CHECK(ctx.session.namedSets.empty());
}

TEST_CASE("looksLikeRanks tells an optional leading rank set from the next argument", "[cli][rankexpr]") {
  cli::Console console;
  core::Debugger debugger([](const std::string&) {});
  cli::Context ctx{debugger, console, {}};
  ctx.session.namedSets["S"] = core::RankSet::range(0, 1);
  for (const char* yes : {"3", "0-3", "[0-1]", "(in MPI_Recv)", "~S", "$equiv[1]", "all", "blocked", "focus", "S",
                          "S|3", "held&S"}) {
    INFO(yes);
    CHECK(cli::looksLikeRanks(ctx, yes));
  }
  for (const char* no : {"", "MPI_Send", "entry", "T", "bt"}) {
    INFO(no);
    CHECK_FALSE(cli::looksLikeRanks(ctx, no));
  }
}
