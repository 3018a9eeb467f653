// libFuzzer target: the command line of the prompt and of -ex/-x scripts
// (debugger/cli). An input is a script, one command line per '\n' (as
// runScript reads one). Each line goes through executeLine, the prompt's and
// the scripts' entry point: splitting off the command word, lookup in the
// command table (names, aliases, unique prefixes, suggestions), then the
// command's own argument parsing (rank sets, breakpoint specs and their
// conditions, print targets, set NAME = EXPR, --options, counts, seconds).
// Commands check their arguments before they need the job, so a session
// without a job reaches every parser; the result is rendered as `mpidbg
// --json` renders it. The completer runs on each line at its end and at a
// cursor inside it.
//
// No command line can spawn a process, open a connection or write a file
// here, because the session never has a job: `run`, `gdb ...`, `-mi`,
// `wait`, `kill`, `detach`, `where --dot FILE` (the only file a command
// writes), `queues --memory` and `hang` all fail with "no job" after their
// arguments are checked, before they act. The target checks that the session
// still has no job after every line. No command is filtered out. The
// completer gets fixed lists of paths and object words instead of the file
// system and the ranks.
//
// Properties: no crash, no sanitizer report, no exception out of
// executeLine; a failure carries a message and a success none; only `quit`
// asks to end the session; every --json line parses back (valid UTF-8, one
// object per line, "command" as commandNameOf says, "ok" as the result);
// splitRankToken's token and rest are the trimmed arguments cut in two;
// findCommand returns a command whose name or an alias starts with the
// line's first word; completions start at the word under the cursor, extend it, are
// sorted and unique, and a first word completes to commands.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "FuzzCheck.hpp"
#include "ccs/proto/ControlProtocol.hpp"
#include "debugger/cli/Commands.hpp"
#include "debugger/cli/Completion.hpp"
#include "debugger/cli/Console.hpp"
#include "debugger/cli/JsonOutput.hpp"
#include "debugger/cli/Repl.hpp"
#include "debugger/core/RankSet.hpp"
#include "mpidbg/Text.hpp"

using mpidbg::trim;
using mpidbg::cli::Command;
using mpidbg::cli::CommandResult;
using mpidbg::cli::Completion;
using mpidbg::cli::CompletionContext;
using mpidbg::core::RankSet;

namespace {

/// At most this many lines of an input are run (a script longer than that
/// only repeats what shorter ones cover).
constexpr std::size_t kMaxLines = 32;

/// What the completer knows in a session that had a job once: two
/// breakpoints, the named sets, three equivalence classes, an entry point,
/// and paths and object words from fixed lists.
CompletionContext completionContext() {
  CompletionContext c;
  c.breakpoints = {1, 2};
  c.equivalenceClasses = 3;
  c.rankSetWords = {"focus", "blocked", "frozen", "running", "exited", "held"};
  c.namedSets = {"S", "late"};
  c.entryNames = {"solver::step", "io"};
  c.paths = [](std::string_view prefix) {
    std::vector<std::string> out;
    for (const char* p : {"job.dot", "tree.dot", "out/", "out/a.dot", "~/x.dot"})
      if (std::string_view(p).starts_with(prefix)) out.emplace_back(p);
    return out;
  };
  c.objectWords = [](std::string_view, std::string_view word) {
    std::vector<std::string> out;
    for (const char* w :
         {"grid", "grid.nx", "grid.ny", "particles[", "mpi/pending", "mpi/communicators"})
      if (std::string_view(w).starts_with(word)) out.emplace_back(w);
    return out;
  };
  return c;
}


/// Checks complete(line, cursor): the word it completes, and its candidates.
void checkCompletion(std::string_view line, std::size_t cursor, const CompletionContext& context) {
  const Completion c = mpidbg::cli::complete(line, cursor, context);
  const std::size_t end = std::min(cursor, line.size());
  FUZZ_CHECK(c.start <= end);
  const std::string_view word = line.substr(c.start, end - c.start);
  FUZZ_CHECK(word.find_first_of(" \t") == std::string_view::npos);
  FUZZ_CHECK(c.start == 0 || line[c.start - 1] == ' ' || line[c.start - 1] == '\t');
  FUZZ_CHECK(std::is_sorted(c.candidates.begin(), c.candidates.end()));
  FUZZ_CHECK(std::adjacent_find(c.candidates.begin(), c.candidates.end()) == c.candidates.end());
  for (const auto& candidate : c.candidates) {
    FUZZ_CHECK(candidate.starts_with(word));
    if (line.substr(0, c.start).find_first_not_of(" \t") == std::string_view::npos)
      FUZZ_CHECK(mpidbg::cli::findCommand(candidate) != nullptr);
  }
  if (!c.appendSpace)
    FUZZ_CHECK(c.candidates.size() == 1 &&
               (c.candidates.front().ends_with('/') || c.candidates.front().ends_with('[')));
}

/// Checks what the line's first word names in the command table.
void checkLookup(std::string_view line) {
  line = trim(line);
  const std::string_view word = line.substr(0, line.find_first_of(" \t"));
  const Command* cmd = mpidbg::cli::findCommand(word);
  if (cmd == nullptr) return;
  bool named = cmd->name.starts_with(word);
  for (const auto& alias : cmd->aliases) named = named || alias.starts_with(word);
  FUZZ_CHECK(named);
  FUZZ_CHECK(mpidbg::cli::commandNameOf(line) == cmd->name);

  // The arguments as the commands split a leading rank set off them.
  const std::string_view args =
      word.size() < line.size() ? line.substr(word.size() + 1) : std::string_view{};
  const auto [token, rest] = mpidbg::cli::splitRankToken(args);
  const std::string_view trimmed = trim(args);
  FUZZ_CHECK(trimmed.starts_with(token));
  FUZZ_CHECK(rest == trim(trimmed.substr(token.size())));
}

/// Checks one line's result.
void checkResult(std::string_view line, const CommandResult& result) {
  FUZZ_CHECK(result.ok == result.error.empty());
  if (result.quit) FUZZ_CHECK(mpidbg::cli::commandNameOf(line) == "quit");
}

/// Every line `render` wrote in --json mode: one object with the envelope's
/// fields, parsing back as strict JSON (so the bytes are UTF-8).
void checkJsonOutput(std::string_view output, const std::vector<std::string>& lines,
                     const std::vector<bool>& oks) {
  std::size_t n = 0;
  for (std::size_t begin = 0; begin < output.size();) {
    std::size_t end = output.find('\n', begin);
    FUZZ_CHECK(end != std::string_view::npos);
    const auto j = nlohmann::json::parse(output.substr(begin, end - begin), nullptr, false);
    FUZZ_CHECK(!j.is_discarded() && j.is_object());
    FUZZ_CHECK(n < lines.size());
    FUZZ_CHECK(j.value("schema", "") == mpidbg::cli::kJsonSchema);
    FUZZ_CHECK(j.contains("command") && j["command"].is_string());
    FUZZ_CHECK(j.contains("ok") && j["ok"].is_boolean() && j["ok"].get<bool>() == oks[n]);
    FUZZ_CHECK(j.contains("error") == !oks[n]);
    ++n;
    begin = end + 1;
  }
  FUZZ_CHECK(n == lines.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> lines;
  for (std::size_t begin = 0; begin <= input.size() && lines.size() < kMaxLines;) {
    const std::size_t end = std::min(input.find('\n', begin), input.size());
    lines.emplace_back(input.substr(begin, end - begin));
    begin = end + 1;
  }

  // A session whose job is gone (killed) but which kept what the user set
  // up: named sets, a focus, equivalence classes, breakpoints.
  mpidbg::core::Debugger debugger([](const std::string&) {});
  for (int id : {1, 2}) {
    mpidbg::ccs::proto::Breakpoint spec;
    spec.id = id;
    spec.target = id == 1 ? "MPI_Bcast" : "MPI_Send";
    debugger.controls().restore({id, RankSet::range(0, 3), spec});
  }

  // --json output into memory (open_memstream: no file, no terminal).
  char* buffer = nullptr;
  std::size_t bufferSize = 0;
  std::FILE* out = ::open_memstream(&buffer, &bufferSize);
  FUZZ_CHECK(out != nullptr);
  mpidbg::cli::Console console;
  console.setJson(out);
  mpidbg::cli::Context context{debugger, console, {}};
  context.session.namedSets["S"] = RankSet::range(0, 3);
  context.session.namedSets["late"] = RankSet::range(5, 5);
  context.session.focus = RankSet::range(2, 3);
  context.session.equivalenceClasses = {RankSet::range(0, 1), RankSet::range(2, 6), RankSet::range(7, 7)};
  const CompletionContext completion = completionContext();

  std::vector<std::string> rendered;  // lines that printed an envelope
  std::vector<bool> oks;
  for (const auto& line : lines) {
    checkLookup(line);
    checkCompletion(line, line.size(), completion);
    checkCompletion(line, line.size() / 2, completion);

    const CommandResult result = mpidbg::cli::executeLine(context, line);
    checkResult(line, result);
    FUZZ_CHECK(!debugger.session().hasJob());
    mpidbg::cli::render(console, line, result);
    if (!mpidbg::cli::commandNameOf(line).empty()) {
      rendered.push_back(line);
      oks.push_back(result.ok);
    }
    if (result.quit) break;
  }
  std::fclose(out);
  const std::string output(buffer, bufferSize);
  std::free(buffer);
  checkJsonOutput(output, rendered, oks);
  return 0;
}
