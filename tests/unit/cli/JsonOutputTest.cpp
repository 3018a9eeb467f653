#include <catch2/catch.hpp>
#include <cstdio>
#include <memory>

#include "debugger/cli/Commands.hpp"
#include "debugger/cli/JsonOutput.hpp"
#include "debugger/cli/Repl.hpp"
#include "debugger/gdbmi/Value.hpp"

using namespace mpidbg;
using nlohmann::json;

namespace {

core::RankSet ranksOf(std::initializer_list<int> ranks) {
  core::RankSet set;
  for (int r : ranks) set.insert(r);
  return set;
}

/// A temporary file the console writes JSON lines to, read back whole.
struct CapturedOutput {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file{std::tmpfile(), &std::fclose};

  std::string text() const {
    std::fflush(file.get());
    std::rewind(file.get());
    std::string out;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0;)
      out.append(buffer, n);
    return out;
  }
};

}  // namespace

TEST_CASE("rank sets in JSON: the compact string and the list, always together", "[cli][json]") {
  struct Row {
    core::RankSet ranks;
    const char* expected;
  };
  const Row rows[] = {
      {{}, R"J({"rank_list":[],"ranks":"[]"})J"},
      {ranksOf({3}), R"J({"rank_list":[3],"ranks":"[3]"})J"},
      {ranksOf({0, 1, 2, 3, 7}), R"J({"rank_list":[0,1,2,3,7],"ranks":"[0-3,7]"})J"},
  };
  for (const auto& row : rows) {
    CHECK(cli::rankSetJson(row.ranks).dump() == row.expected);
    CHECK(
        cli::withRanks({{"text", "x"}}, row.ranks).dump() ==
        std::string(row.expected).insert(std::string(row.expected).size() - 1, R"J(,"text":"x")J"));
  }
  CHECK(
      cli::groupsJson({{0, "a"}, {1, "b"}, {2, "a"}}, "state").dump() ==
      R"J([{"rank_list":[0,2],"ranks":"[0,2]","state":"a"},{"rank_list":[1],"ranks":"[1]","state":"b"}])J");
}

TEST_CASE("commandNameOf gives the table's name for names, aliases and prefixes", "[cli][json]") {
  struct Row {
    const char* line;
    const char* name;
  };
  const Row rows[] = {
      {"status blocked", "status"},
      {"  sta ", "status"},
      {"bt --full 0-2", "where"},
      {"c 0-1", "run"},
      {"-mi 0 -stack-info-depth", "-mi"},
      {"i b", "info"},
      {"nope 1 2", "nope"},
      {"# a comment", ""},
      {"   ", ""},
  };
  for (const auto& row : rows) {
    INFO(row.line);
    CHECK(cli::commandNameOf(row.line) == row.name);
  }
}

TEST_CASE("the command envelope: schema, command, line, ok, result, error in that order",
          "[cli][json]") {
  cli::CommandResult ok;
  ok.text = "ignored in JSON";
  ok.data = {{"killed", true}};
  CHECK(
      cli::jsonLine(cli::commandJson("  kill  ", ok)) ==
      R"J({"schema":"mpidbg/1","command":"kill","line":"kill","ok":true,"result":{"killed":true}})J");

  const auto failed =
      cli::CommandResult::failure("unknown command 'stauts'; did you mean: status?");
  CHECK(cli::jsonLine(cli::commandJson("stauts", failed)) ==
        R"J({"schema":"mpidbg/1","command":"stauts","line":"stauts","ok":false,"result":null,)J"
        R"J("error":"unknown command 'stauts'; did you mean: status?"})J");

  // A partial failure keeps its result beside the error.
  cli::CommandResult partial = cli::CommandResult::failure("the command failed on 1 of 2 ranks");
  partial.data = {{"failed", json::array()}};
  CHECK(
      cli::jsonLine(cli::commandJson("bt 0", partial)) ==
      R"J({"schema":"mpidbg/1","command":"where","line":"bt 0","ok":false,"result":{"failed":[]},)J"
      R"J("error":"the command failed on 1 of 2 ranks"})J");
}

TEST_CASE("notices become events whose kind comes from the text", "[cli][json]") {
  struct Row {
    const char* text;
    core::RankSet ranks;
    const char* expected;
  };
  const Row rows[] = {
      {"hit breakpoint 12: MPI_Bcast(root=0) call #3", ranksOf({2, 5}),
       R"J({"schema":"mpidbg/1","event":"breakpoint","ranks":"[2,5]","rank_list":[2,5],)J"
       R"J("text":"hit breakpoint 12: MPI_Bcast(root=0) call #3","breakpoint":12})J"},
      {"stopped at entry solver::setup (step)", ranksOf({0}),
       R"J({"schema":"mpidbg/1","event":"stopped","ranks":"[0]","rank_list":[0],)J"
       R"J("text":"stopped at entry solver::setup (step)"})J"},
      {"exited with signal 11 (Segmentation fault)", ranksOf({1}),
       R"J({"schema":"mpidbg/1","event":"ended","ranks":"[1]","rank_list":[1],)J"
       R"J("text":"exited with signal 11 (Segmentation fault)"})J"},
      {"called MPI_Abort(errorcode=3)", ranksOf({4}),
       R"J({"schema":"mpidbg/1","event":"ended","ranks":"[4]","rank_list":[4],"text":"called MPI_Abort(errorcode=3)"})J"},
      {"lost (its process ended without reporting an exit status)", ranksOf({0, 1}),
       R"J({"schema":"mpidbg/1","event":"ended","ranks":"[0-1]","rank_list":[0,1],)J"
       R"J("text":"lost (its process ended without reporting an exit status)"})J"},
      {"something new", ranksOf({3}),
       R"J({"schema":"mpidbg/1","event":"notice","ranks":"[3]","rank_list":[3],"text":"something new"})J"},
  };
  for (const auto& row : rows) {
    INFO(row.text);
    CHECK(cli::jsonLine(cli::noticeJson(row.text, &row.ranks)) == row.expected);
  }
  CHECK(cli::jsonLine(cli::noticeJson("forwarding tree failed", nullptr)) ==
        R"J({"schema":"mpidbg/1","event":"notice","text":"forwarding tree failed"})J");
  CHECK(
      cli::jsonLine(
          cli::sessionEventJson("started", "Job started: 2 ranks, running.", {{"size", 2}})) ==
      R"J({"schema":"mpidbg/1","event":"started","text":"Job started: 2 ranks, running.","size":2})J");
}

TEST_CASE("jsonLine replaces bytes that are not UTF-8 instead of throwing", "[cli][json]") {
  cli::CommandResult r;
  r.data = {{"text", std::string("a\xff") + "b"}};
  std::string line;
  REQUIRE_NOTHROW(line = cli::jsonLine(cli::commandJson("gdb 0 p x", r)));
  CHECK_THAT(line, Catch::Contains("\"text\":\"a\xEF\xBF\xBD"
                                   "b\""));
}

TEST_CASE("gdb/MI values as JSON", "[cli][json]") {
  using gdbmi::Value;
  gdbmi::Tuple frame{{{"level", Value{std::string("0")}},
                      {"func", Value{std::string("main")}},
                      {"level", Value{std::string("repeated")}}}};
  gdbmi::List stack{{{"frame", Value{frame}}, {"frame", Value{frame}}}};
  gdbmi::Tuple results{{{"stack", Value{stack}}, {"depth", Value{std::string("2")}}}};
  CHECK(cli::miValueJson(Value{results}).dump() ==
        R"J({"depth":"2","stack":[{"func":"main","level":"0"},{"func":"main","level":"0"}]})J");
  CHECK(cli::miValueJson(Value{gdbmi::Tuple{}}).dump() == "{}");
  CHECK(cli::miValueJson(Value{gdbmi::List{}}).dump() == "[]");
}

TEST_CASE("a JSON console prints envelopes and grouped events, one object per line",
          "[cli][json]") {
  CapturedOutput captured;
  cli::Console console;
  console.setJson(captured.file.get());
  REQUIRE(console.json());
  core::Debugger debugger([](const std::string&) {});
  cli::Context ctx{debugger, console, {}};

  console.notice("[2] hit breakpoint 1: MPI_Send(dest=3)");
  console.notice("[5] hit breakpoint 1: MPI_Send(dest=3)");
  console.notice("mpidbg: a plain notice");
  for (const char* line : {"help kill", "", "# comment", "quit", "nope"})
    cli::render(console, line, cli::executeLine(ctx, line));

  const std::string expected =
      R"J({"schema":"mpidbg/1","command":"help","line":"help kill","ok":true,"result":{"aliases":[],)J"
      R"J("help":"Detaches gdb sessions and ends every process of the job.","name":"kill","needs_job":false,)J"
      R"J("options":[],"ranks":"none","summary":"Kill the job",)J"
      R"J("syntax":"kill"}})J"
      "\n"
      R"J({"schema":"mpidbg/1","event":"breakpoint","ranks":"[2,5]","rank_list":[2,5],)J"
      R"J("text":"hit breakpoint 1: MPI_Send(dest=3)","breakpoint":1})J"
      "\n"
      R"J({"schema":"mpidbg/1","event":"notice","text":"mpidbg: a plain notice"})J"
      "\n"
      R"J({"schema":"mpidbg/1","command":"quit","line":"quit","ok":true,"result":{"quit":true}})J"
      "\n"
      R"J({"schema":"mpidbg/1","command":"nope","line":"nope","ok":false,"result":null,)J"
      R"J("error":"unknown command 'nope'; try 'help'"})J"
      "\n";
  CHECK(captured.text() == expected);
}

TEST_CASE("every command fills its result, also without a job", "[cli][json]") {
  cli::Console console;
  core::Debugger debugger([](const std::string&) {});
  cli::Context ctx{debugger, console, {}};
  struct Row {
    const char* line;
    const char* result;
  };
  const Row rows[] = {
      {"set", R"J({"sets":[]})J"},
      {"focus", R"J({"focus":null})J"},
      {"unfocus", R"J({"focus":null})J"},
      {"quit", R"J({"quit":true})J"},
      {"info break", "null"},  // no job: a failure without a result
  };
  for (const auto& row : rows) {
    INFO(row.line);
    CHECK(cli::executeLine(ctx, row.line).data.dump() == row.result);
  }
  const auto help = cli::executeLine(ctx, "help").data;
  REQUIRE(help["commands"].size() == cli::commandTable().size());
  CHECK(help["commands"][0] ==
        json({{"name", "run"},
              {"aliases", {"continue", "c", "r", "unfreeze"}},
              {"syntax", "run [RANKS]"},
              {"summary", "Let frozen or stopped ranks go (all by default)"}}));
}
