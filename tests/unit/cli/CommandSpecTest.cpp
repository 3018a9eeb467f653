#include <catch2/catch.hpp>
#include <set>

#include "debugger/cli/Commands.hpp"
#include "debugger/cli/CommandSpec.hpp"

using namespace mpidbg;

namespace command_spec_test {

/// A spec with each kind of option: flags, an integer, a number, a file.
inline cli::ArgSpec sample(cli::RankArg ranks = cli::RankArg::Optional, bool own = false) {
  cli::ArgSpec spec;
  spec.options = {{"--json", cli::OptionValue::Flag, "", "print JSON"},
                  {"--memory", cli::OptionValue::Flag, "", "read from memory"},
                  {"--depth", cli::OptionValue::Integer, "N", "frames to show"},
                  {"--timeout", cli::OptionValue::Number, "SECONDS", "how long"},
                  {"--dot", cli::OptionValue::File, "FILE", "write Graphviz"}};
  spec.ranks = ranks;
  spec.own = own;
  return spec;
}

inline std::string errorOf(std::string_view line, const cli::ArgSpec& spec = sample()) {
  auto parsed = cli::parseCommandArgs("where", spec, line);
  return parsed ? std::string("(parsed)") : parsed.error().message;
}

}  // namespace command_spec_test

using command_spec_test::errorOf;
using command_spec_test::sample;

TEST_CASE("command args: flags and values anywhere, the other words are the rank set", "[cli][spec]") {
  auto parsed = cli::parseCommandArgs("where", sample(), "--json blocked & 0-3 --depth 4 --timeout 2.5 --dot t.dot");
  REQUIRE(parsed);
  CHECK(parsed->flag("--json"));
  CHECK_FALSE(parsed->flag("--memory"));
  CHECK(parsed->value<int>("--depth") == 4);
  CHECK(parsed->value<long long>("--depth") == 4LL);
  CHECK(parsed->value<double>("--timeout") == 2.5);
  CHECK(parsed->value<std::string>("--dot") == "t.dot");
  CHECK_FALSE(parsed->value<int>("--dot"));  // not a number: the wrong T
  CHECK_FALSE(parsed->has("--missing"));
  CHECK(parsed->ranks == "blocked & 0-3");
  CHECK(parsed->rest.empty());
}

TEST_CASE("command args: a rank set in brackets or parentheses stays one word", "[cli][spec]") {
  auto parsed = cli::parseCommandArgs("where", sample(), "[0-3, 7] --memory (in MPI_Recv) | 9");
  REQUIRE(parsed);
  CHECK(parsed->ranks == "[0-3, 7] (in MPI_Recv) | 9");
  CHECK(parsed->flag("--memory"));
  auto none = cli::parseCommandArgs("where", sample(), "   ");
  REQUIRE(none);
  CHECK(none->ranks.empty());
  CHECK(none->flags.empty());
  CHECK(none->values.empty());
  // A repeated flag counts once; a repeated value option keeps the last value.
  auto twice = cli::parseCommandArgs("where", sample(), "--json --json --depth 1 --depth -2");
  REQUIRE(twice);
  CHECK(twice->flags == std::vector<std::string>{"--json"});
  CHECK(twice->value<int>("--depth") == -2);
}

TEST_CASE("command args: an own grammar takes leading options and keeps the rest verbatim", "[cli][spec]") {
  auto parsed = cli::parseCommandArgs("gdb", sample(cli::RankArg::Required, true), "--json  2  bt --raw  -full");
  REQUIRE(parsed);
  CHECK(parsed->flag("--json"));
  CHECK(parsed->rest == "2  bt --raw  -full");  // --raw belongs to the gdb command
  CHECK(parsed->ranks.empty());                 // the body reads its own rank set
  auto bare = cli::parseCommandArgs("gdb", sample(cli::RankArg::Required, true), "");
  REQUIRE(bare);
  CHECK(bare->rest.empty());
}

TEST_CASE("command args: errors name the option and what was wrong", "[cli][spec]") {
  CHECK(errorOf("--jsn") ==
        "where does not know option '--jsn'; did you mean --json? (options: --json --memory --depth N "
        "--timeout SECONDS --dot FILE)");
  CHECK(errorOf("--dept 3") ==
        "where does not know option '--dept'; did you mean --depth? (options: --json --memory --depth N "
        "--timeout SECONDS --dot FILE)");
  CHECK(errorOf("--mem") ==
        "where does not know option '--mem'; did you mean --memory? (options: --json --memory --depth N "
        "--timeout SECONDS --dot FILE)");
  CHECK(errorOf("--dotfile x") ==
        "where does not know option '--dotfile'; did you mean --dot? (options: --json --memory --depth N "
        "--timeout SECONDS --dot FILE)");
  // Nothing close: no suggestion, the list alone.
  CHECK(errorOf("--bogus") == "where does not know option '--bogus' (options: --json --memory --depth N "
                              "--timeout SECONDS --dot FILE)");
  CHECK(errorOf("--depth") == "--depth needs a whole number (where --depth N)");
  CHECK(errorOf("--dot --json") == "--dot needs a file name (where --dot FILE)");
  CHECK(errorOf("--timeout") == "--timeout needs a number (where --timeout SECONDS)");
  CHECK(errorOf("--depth three") == "--depth takes a whole number (got 'three')");
  CHECK(errorOf("--depth 2.5") == "--depth takes a whole number (got '2.5')");
  CHECK(errorOf("--timeout soon") == "--timeout takes a number (got 'soon')");
  CHECK(errorOf("--timeout 0.25") == "(parsed)");
}

TEST_CASE("command args: commands without options, rank sets or operands say so", "[cli][spec]") {
  cli::ArgSpec bare;
  CHECK(errorOf("now", bare) == "where takes no arguments");
  CHECK(errorOf("--now", bare) == "where takes no options (got '--now')");
  CHECK(errorOf("", bare) == "(parsed)");
  CHECK(errorOf("0-3", sample(cli::RankArg::None)) ==
        "where takes only its options (got '0-3'; options: --json --memory --depth N --timeout SECONDS --dot FILE)");
  CHECK(errorOf("--json", sample(cli::RankArg::Required)) == "where needs a rank set (e.g. where 0-3)");
  CHECK(errorOf("--json 1", sample(cli::RankArg::Required)) == "(parsed)");
  // "--" alone is no option: a rank-set word (the rank-set parser rejects it later).
  auto dashes = cli::parseCommandArgs("where", sample(), "--");
  REQUIRE(dashes);
  CHECK(dashes->ranks == "--");
}

TEST_CASE("command args: syntax lines and option help come from the spec", "[cli][spec]") {
  CHECK(cli::composeSyntax("where", sample(), "[RANKS]") ==
        "where [--json] [--memory] [--depth N] [--timeout SECONDS] [--dot FILE] [RANKS]");
  CHECK(cli::composeSyntax("kill", {}, "") == "kill");
  CHECK(cli::optionsHelp(sample()) ==
        "  --json             print JSON\n"
        "  --memory           read from memory\n"
        "  --depth N          frames to show\n"
        "  --timeout SECONDS  how long\n"
        "  --dot FILE         write Graphviz\n");
  CHECK(cli::optionsHelp({}).empty());
}

TEST_CASE("the command table: syntax composed from the spec, options unique, help lists them", "[cli][spec]") {
  for (const auto& cmd : cli::commandTable()) {
    INFO(cmd.name);
    CHECK(cmd.syntax == cli::composeSyntax(cmd.name, cmd.args, cmd.operands));
    std::set<std::string> names;
    for (const auto& option : cmd.args.options) {
      CHECK(option.name.starts_with("--"));
      CHECK_FALSE(option.help.empty());
      CHECK(option.valueName.empty() == (option.value == cli::OptionValue::Flag));
      CHECK(names.insert(option.name).second);
      CHECK_THAT(cli::commandHelp(cmd).text, Catch::Contains(option.help));
    }
  }
  // The options the commands read, as declared.
  const cli::Command* where = cli::findCommand("where");
  REQUIRE(where != nullptr);
  CHECK(where->syntax == "where [--full] [--tree] [--all-frames] [--all-threads] [--json] [--dot FILE] [RANKS]");
  CHECK(where->args.ranks == cli::RankArg::Optional);
  CHECK(where->args.needsJob);
  CHECK(cli::findCommand("hang")->syntax == "hang [--json] [--memory] [--no-frames]");
  CHECK(cli::findCommand("gdb")->syntax == "gdb [--keep] RANKS COMMAND | gdb attach [RANKS] | gdb detach [RANKS]");
  CHECK(cli::findCommand("set")->syntax == "set [NAME = EXPR] | set pagination [on|off]");
  const auto help = cli::commandHelp(*cli::findCommand("freeze"));
  CHECK_THAT(help.text, Catch::Contains("Options:\n  --now  stop wherever the rank is"));
  CHECK(help.data["options"][0]["name"] == "--now");
  CHECK(help.data["options"][0]["value"] == "flag");
  CHECK(help.data["ranks"] == "optional");
  CHECK(help.data["needs_job"] == true);
  CHECK(cli::commandHelp(*cli::findCommand("where")).data["options"][5]["value"] == "file");
}

TEST_CASE("commands: option errors come from the one parser, before the job check", "[cli][spec]") {
  cli::Console console;
  core::Debugger debugger([](const std::string&) {});
  cli::Context ctx{debugger, console, {}};
  auto bogus = cli::executeLine(ctx, "where --bogus");
  CHECK_FALSE(bogus.ok);
  CHECK_THAT(bogus.error, Catch::StartsWith("where does not know option '--bogus' (options: --full --tree"));
  CHECK(cli::executeLine(ctx, "hang --jsn").error ==
        "hang does not know option '--jsn'; did you mean --json? (options: --json --memory --no-frames)");
  CHECK(cli::executeLine(ctx, "hang 3").error ==
        "hang takes only its options (got '3'; options: --json --memory --no-frames)");
  CHECK(cli::executeLine(ctx, "where --dot").error == "--dot needs a file name (where --dot FILE)");
  CHECK(cli::executeLine(ctx, "collectives now").error == "collectives takes no arguments");
  CHECK(cli::executeLine(ctx, "queues --now").error ==
        "queues does not know option '--now' (options: --memory)");
  // Well-formed: the job is missing.
  for (const char* line : {"hang --json --no-frames", "where --tree 0-3", "queues --memory 1", "freeze --now all"}) {
    INFO(line);
    CHECK(cli::executeLine(ctx, line).error == cli::kNoJob);
  }
  // A malformed rank set is reported as such, job or not.
  CHECK_THAT(cli::executeLine(ctx, "status [0-").error, !Catch::Contains("no job"));
}

TEST_CASE("a command's subcommands are declared and parsed once", "[cli]") {
  using namespace mpidbg::cli;
  const ArgSpec spec{.subcommands = {
                         {"break", {"b"}, "breakpoints", {.needsJob = true}},
                         {"entries", {}, "entry points", {.options = {{"--all", OptionValue::Flag, "", "every one"}},
                                                         .ranks = RankArg::Optional}},
                     }};
  CHECK(composeSyntax("info", spec, "") == "info break | info entries [--all] [RANKS]");

  auto alias = parseCommandArgs("info", spec, "b");
  REQUIRE(alias.has_value());
  CHECK(alias->subcommand == "break");
  CHECK(parsedSpec(spec, *alias).needsJob);

  auto entries = parseCommandArgs("info", spec, "entries --all [0-3, 7]");
  REQUIRE(entries.has_value());
  CHECK(entries->subcommand == "entries");
  CHECK(entries->flag("--all"));
  CHECK(entries->ranks == "[0-3, 7]");
  CHECK_FALSE(parsedSpec(spec, *entries).needsJob);

  CHECK(parseCommandArgs("info", spec, "").error().message ==
        "info needs a subcommand (usage: info break | info entries [--all] [RANKS])");
  CHECK(parseCommandArgs("info", spec, "entires").error().message ==
        "info does not know 'entires'; did you mean entries? (usage: info break | info entries [--all] [RANKS])");
  CHECK(parseCommandArgs("info", spec, "entries --al").error().message ==
        "info entries does not know option '--al'; did you mean --all? (options: --all)");
  CHECK(parseCommandArgs("info", spec, "break 3").error().message == "info break takes no arguments");
}

TEST_CASE("optional subcommands: a first word that names none is the command's own form", "[cli]") {
  using namespace mpidbg::cli;
  const ArgSpec gdb{.options = {{"--keep", OptionValue::Flag, "", "hold"}},
                    .ranks = RankArg::Required,
                    .own = true,
                    .needsJob = true,
                    .subcommands = {{"attach", {}, "attach", {.ranks = RankArg::Optional}},
                                    {"detach", {}, "detach", {.ranks = RankArg::Optional, .needsJob = true}}},
                    .subcommandOptional = true};
  CHECK(composeSyntax("gdb", gdb, "RANKS COMMAND") == "gdb [--keep] RANKS COMMAND | gdb attach [RANKS] | gdb detach [RANKS]");

  auto attach = parseCommandArgs("gdb", gdb, "attach [0-3, 7]");
  REQUIRE(attach.has_value());
  CHECK(attach->subcommand == "attach");
  CHECK(attach->ranks == "[0-3, 7]");
  CHECK_FALSE(parsedSpec(gdb, *attach).needsJob);
  auto own = parseCommandArgs("gdb", gdb, "--keep 2 bt");
  REQUIRE(own.has_value());
  CHECK(own->subcommand.empty());
  CHECK(own->flag("--keep"));
  CHECK(own->rest == "2 bt");
  CHECK(parsedSpec(gdb, *own).needsJob);
  // A near miss of a subcommand is the own form too (a rank set, a named set): its own errors follow.
  CHECK(parseCommandArgs("gdb", gdb, "atach 0").value().rest == "atach 0");
  CHECK(parseCommandArgs("gdb", gdb, "").value().rest.empty());
  CHECK(parseCommandArgs("gdb", gdb, "--keep attach 0").error().message ==
        "gdb attach takes no options before its name (usage: gdb attach [RANKS])");
  CHECK(parseCommandArgs("gdb", gdb, "detach --keep 0").error().message == "gdb detach takes no options (got '--keep')");

  const ArgSpec set{.own = true, .subcommands = {{"pagination", {}, "paging", {.own = true}, "[on|off]"}}, .subcommandOptional = true};
  CHECK(composeSyntax("set", set, "[NAME = EXPR]") == "set [NAME = EXPR] | set pagination [on|off]");
  auto pagination = parseCommandArgs("set", set, "pagination off");
  REQUIRE(pagination.has_value());
  CHECK(pagination->subcommand == "pagination");
  CHECK(pagination->rest == "off");
  CHECK(parseCommandArgs("set", set, "S = 0-3").value().rest == "S = 0-3");
}
