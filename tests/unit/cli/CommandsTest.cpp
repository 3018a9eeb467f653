#include <catch2/catch.hpp>

#include "debugger/cli/Commands.hpp"

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
  CHECK_THAT(help.text, Catch::StartsWith("Usage: gdb RANKS COMMAND"));
  CHECK(cli::executeLine(ctx, "quit").quit);
}
