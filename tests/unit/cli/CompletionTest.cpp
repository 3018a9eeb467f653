#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "ccs/condition/Condition.hpp"
#include "debugger/cli/Completion.hpp"
#include "debugger/cli/Console.hpp"

using namespace mpidbg;
using Words = std::vector<std::string>;

namespace {

/// A session with breakpoints 1 and 3, two equivalence classes, one entry
/// point, one extra rank-set word, and a fake file system.
cli::CompletionContext session() {
  cli::CompletionContext cc;
  cc.breakpoints = {1, 3};
  cc.equivalenceClasses = 2;
  cc.entryNames = {"solver::step"};
  cc.rankSetWords = {"stopped"};
  cc.paths = [](std::string_view prefix) {
    Words all = {"job.dot", "jobs/", "jobs/a.dot", "other.txt"};
    Words out;
    for (auto& p : all)
      if (p.starts_with(prefix)) out.push_back(p);
    return out;
  };
  return cc;
}

Words completeAtEnd(const std::string& line, const cli::CompletionContext& cc) {
  return cli::complete(line, line.size(), cc).candidates;
}

}  // namespace

TEST_CASE("completion: the word at the cursor, by position and command", "[cli][completion]") {
  struct Row {
    std::string line;
    Words expected;
  };
  const std::vector<Row> rows = {
      // Command names (and long aliases) at the start of the line.
      {"sta", {"status"}},
      {"coll", {"coll", "collectives"}},
      {"wh", {"where"}},
      {"cont", {"continue"}},
      {"xyz", {}},
      // Options come from the command's syntax string.
      {"where --t", {"--tree"}},
      {"where --", {"--all-frames", "--all-threads", "--dot", "--full", "--json", "--tree"}},
      {"where --full --", {"--all-frames", "--all-threads", "--dot", "--json", "--tree"}},
      {"bt --tr", {"--tree"}},
      {"w --a", {"--all-frames", "--all-threads"}},
      {"freeze --", {"--now"}},
      {"hang --n", {"--no-frames"}},
      {"queues --m", {"--memory"}},
      {"status --", {}},
      // Paths after an option that takes FILE.
      {"where --dot ", {"job.dot", "jobs/", "jobs/a.dot", "other.txt"}},
      {"where --dot jobs/", {"jobs/", "jobs/a.dot"}},
      {"where --tree --dot o", {"other.txt"}},
      // Rank sets where the syntax has RANKS (after options and their values).
      {"where --dot x.dot ", {"$equiv[", "all", "stopped"}},
      {"status ", {"$equiv[", "all", "stopped"}},
      {"status $e", {"$equiv["}},
      {"st $equiv[", {"$equiv[1]", "$equiv[2]"}},
      {"status al", {"all"}},
      {"status 0-3 ", {}},
      {"next ", {"$equiv[", "all", "stopped"}},  // COUNT is optional: RANKS may come first
      {"next 3 ", {"$equiv[", "all", "stopped"}},
      {"run s", {"stopped"}},
      // Keywords of the syntax.
      {"info ", {"break", "check", "entries", "record", "threadlevel"}},
      {"i e", {"entries"}},
      {"info entries ", {"$equiv[", "all", "stopped"}},
      {"info break ", {}},
      {"gdb ", {"$equiv[", "all", "attach", "detach", "stopped"}},
      {"gdb at", {"attach"}},
      {"gdb detach a", {"all"}},
      {"gdb 2 ", {}},
      // Breakpoint numbers where the syntax has N.
      {"delete ", {"1", "3", "all"}},
      {"d 3", {"3"}},
      {"disable ", {"1", "3"}},
      {"enable 1 ", {}},
      // break: MPI functions, entry, entry names, then "if".
      // Every interposed form: the large-count and the persistent ones too.
      {"break MPI_Bca", {"MPI_Bcast", "MPI_Bcast_c", "MPI_Bcast_init", "MPI_Bcast_init_c"}},
      {"b MPI_Allr", {"MPI_Allreduce", "MPI_Allreduce_c", "MPI_Allreduce_init", "MPI_Allreduce_init_c"}},
      {"break [0-1] MPI_Ba", {"MPI_Barrier", "MPI_Barrier_init"}},
      {"break MPI_File_write_a", {"MPI_File_write_all", "MPI_File_write_all_begin", "MPI_File_write_all_begin_c",
                                  "MPI_File_write_all_c", "MPI_File_write_all_end", "MPI_File_write_at_all",
                                  "MPI_File_write_at_all_begin", "MPI_File_write_at_all_begin_c",
                                  "MPI_File_write_at_all_c", "MPI_File_write_at_all_end"}},
      {"break 2 en", {"entry"}},
      {"break en", {"entry"}},
      {"break entry ", {"solver::step"}},
      {"break MPI_Send ", {"if"}},
      // help: command names.
      {"help wh", {"where"}},
      {"help qu", {"queues", "quit"}},
      {"nonesuch x", {}},
  };
  const auto cc = session();
  for (const auto& row : rows) {
    INFO("line: '" << row.line << "'");
    CHECK(completeAtEnd(row.line, cc) == row.expected);
  }
}

TEST_CASE("completion: named rank sets and the set/unset/focus syntax", "[cli][completion]") {
  cli::CompletionContext cc;
  cc.namedSets = {"evens", "odds"};
  struct Row {
    std::string line;
    Words expected;
  };
  const std::vector<Row> rows = {
      {"unset ", {"evens", "odds"}},
      {"set ", {"evens", "odds", "pagination"}},  // [NAME = EXPR]: the group starts with NAME
      {"set ev", {"evens"}},
      {"set a ", {"="}},
      {"set a = ", {"all", "evens", "odds"}},
      {"focus o", {"odds"}},
      {"status ", {"all", "evens", "odds"}},
      {"b evens MPI_Ba", {"MPI_Barrier", "MPI_Barrier_init"}},  // a named set is the optional RANKS of break
      {"unfocus ", {}},
  };
  for (const auto& row : rows) {
    INFO("line: '" << row.line << "'");
    CHECK(completeAtEnd(row.line, cc) == row.expected);
  }
}

TEST_CASE("completion: start offset, cursor inside the line, trailing blank", "[cli][completion]") {
  const auto cc = session();
  auto c = cli::complete("where --t", 9, cc);
  CHECK(c.start == 6);
  CHECK(c.appendSpace);
  c = cli::complete("stat --tree", 4, cc);  // cursor after "stat"
  CHECK(c.start == 0);
  CHECK(c.candidates == Words{"status"});
  c = cli::complete("status $e", 9, cc);
  CHECK(c.candidates == Words{"$equiv["});
  CHECK_FALSE(c.appendSpace);  // "$equiv[" needs its number
  c = cli::complete("where --dot jo", 100, cc);  // cursor past the end is clamped
  CHECK(c.start == 12);
  CHECK(c.candidates == Words{"job.dot", "jobs/", "jobs/a.dot"});
  c = cli::complete("where --dot jobs", 16, cc);
  CHECK(c.candidates == Words{"jobs/", "jobs/a.dot"});
  c = cli::complete("where --dot other", 17, cc);
  CHECK(c.candidates == Words{"other.txt"});
  CHECK(c.appendSpace);
}

TEST_CASE("completion: without session knowledge", "[cli][completion]") {
  const cli::CompletionContext empty;
  CHECK(completeAtEnd("status ", empty) == Words{"all"});
  CHECK(completeAtEnd("delete ", empty) == Words{"all"});
  CHECK(completeAtEnd("where --dot ", empty).empty());
  CHECK(completeAtEnd("break entry ", empty).empty());
  const Words all = completeAtEnd("", empty);
  CHECK(std::find(all.begin(), all.end(), "status") != all.end());
  CHECK(std::find(all.begin(), all.end(), "-mi") != all.end());
  CHECK(std::find(all.begin(), all.end(), "c") == all.end());  // short aliases are not listed
  // Every interposed MPI function is offered after break.
  const Words functions = completeAtEnd("break MPI_", empty);
  CHECK(functions.size() == ccs::cond::functions().size());
}

TEST_CASE("completion: options are exactly the --words of each command's syntax", "[cli][completion]") {
  CHECK(cli::syntaxOptions("where [--full] [--tree] [--all-frames] [--json] [--dot FILE] [RANKS]") ==
        Words{"--full", "--tree", "--all-frames", "--json", "--dot"});
  CHECK(cli::syntaxOptions("freeze [--now] [RANKS]") == Words{"--now"});
  CHECK(cli::syntaxOptions("status [RANKS]").empty());
  for (const auto& cmd : cli::commandTable()) {
    INFO(cmd.name);
    Words expected = cli::syntaxOptions(cmd.syntax);
    std::sort(expected.begin(), expected.end());
    CHECK(completeAtEnd(cmd.name + " --", {}) == expected);
  }
}

TEST_CASE("commands: gdb-like unique prefixes and abbreviations", "[cli][completion]") {
  CHECK(cli::findCommand("sta")->name == "status");
  CHECK(cli::findCommand("stat")->name == "status");
  CHECK(cli::findCommand("cont")->name == "run");
  CHECK(cli::findCommand("wh")->name == "where");
  CHECK(cli::findCommand("bt")->name == "where");
  CHECK(cli::findCommand("b")->name == "break");
  CHECK(cli::findCommand("c")->name == "run");
  CHECK(cli::findCommand("r")->name == "run");
  CHECK(cli::findCommand("i")->name == "info");
  CHECK(cli::findCommand("s")->name == "step");  // an exact alias beats the prefix
  CHECK(cli::findCommand("co") == nullptr);      // collectives, continue: ambiguous
  CHECK(cli::findCommand("") == nullptr);
  cli::Console console;
  core::Debugger debugger([](const std::string&) {});
  cli::Context ctx{debugger, console, {}};
  auto r = cli::executeLine(ctx, "co");
  CHECK_FALSE(r.ok);
  CHECK(r.error == "ambiguous command 'co': continue, collectives, coll");
  r = cli::executeLine(ctx, "stauts");
  CHECK(r.error == "unknown command 'stauts'; did you mean: status?");
  r = cli::executeLine(ctx, "help sta");
  CHECK(r.ok);
  CHECK_THAT(r.text, Catch::StartsWith("Usage: status [RANKS]"));
  r = cli::executeLine(ctx, "help where");
  CHECK_THAT(r.text, Catch::Contains("Aliases: w bt"));
}

TEST_CASE("filesystemPaths lists a directory's entries with '/' on directories", "[cli][completion]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("mpidbg-completion-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "adir");
  std::ofstream(dir / "a.dot") << "x";
  std::ofstream(dir / "b.txt") << "x";
  std::ofstream(dir / ".hidden") << "x";
  const std::string d = dir.string();
  CHECK(cli::filesystemPaths(d + "/a") == Words{d + "/a.dot", d + "/adir/"});
  CHECK(cli::filesystemPaths(d + "/") == Words{d + "/a.dot", d + "/adir/", d + "/b.txt"});
  CHECK(cli::filesystemPaths(d + "/.h") == Words{d + "/.hidden"});
  CHECK(cli::filesystemPaths(d + "/zz").empty());
  CHECK(cli::filesystemPaths(d + "/nonesuch/").empty());
  fs::remove_all(dir);
}

TEST_CASE("console: colours only on a terminal without NO_COLOR", "[cli][console]") {
  CHECK(cli::Console::colorWanted(true, nullptr));
  CHECK(cli::Console::colorWanted(true, ""));
  CHECK_FALSE(cli::Console::colorWanted(true, "1"));
  CHECK_FALSE(cli::Console::colorWanted(false, nullptr));
  CHECK(cli::Console::paint(cli::Style::Error, "error:") == "\033[1;31merror:\033[0m");
  CHECK(cli::Console::paint(cli::Style::Prompt, "(mpidbg)", true) == "\001\033[1m\002(mpidbg)\001\033[0m\002");
  struct Row {
    std::string in, out;
  };
  const std::vector<Row> rows = {
      {"[0-3] frozen\n", "\033[36m[0-3]\033[0m frozen\n"},
      {"  [4,6] x\nno [5]\n", "  \033[36m[4,6]\033[0m x\nno [5]\n"},
      {"[a] b", "[a] b"},
      {"[0] x", "\033[36m[0]\033[0m x"},
      {"[1,2]\n", "[1,2]\n"},  // a JSON array, not a rank prefix
      {"", ""},
  };
  for (const auto& row : rows) {
    INFO(row.in);
    CHECK(cli::Console::paintRankPrefixes(row.in) == row.out);
  }
}

TEST_CASE("console: width only on a terminal; long lines cut in the middle", "[cli][console]") {
  CHECK(cli::Console::widthFrom(false, 120, "100") == 0);
  CHECK(cli::Console::widthFrom(true, 120, "100") == 120);
  CHECK(cli::Console::widthFrom(true, 0, "100") == 100);
  CHECK(cli::Console::widthFrom(true, 0, "wide") == 80);
  CHECK(cli::Console::widthFrom(true, 0, nullptr) == 80);
  const std::string line = "main > solve > exchange > halo > MPI_Waitall  [0-62]";  // 52 columns
  CHECK(cli::Console::fitLines(line + "\n", 0) == line + "\n");
  CHECK(cli::Console::fitLines(line + "\n", 60) == line + "\n");
  const std::string cut = cli::Console::fitLines(line + "\nshort\n", 30);
  CHECK(cut == "main > so...PI_Waitall  [0-62]\nshort\n");
  // Code points, not bytes: the tree's box-drawing characters are one column each.
  const std::string tree = "\u2502 \u2514\u2500 main > solve > MPI_Allreduce [0-3]";
  const std::string fitted = cli::Console::fitLines(tree, 20);
  CHECK(fitted == "\u2502 \u2514\u2500 ...reduce [0-3]");
}

TEST_CASE("completion: print targets come from the session's lists and fields", "[cli][completion]") {
  cli::CompletionContext cc = session();
  std::vector<std::string> asked;
  cc.objectWords = [&](std::string_view command, std::string_view word) {
    asked.push_back(std::string(command) + ":" + std::string(word));
    if (word.find('.') == std::string_view::npos) return std::vector<std::string>{"grid", "probes", "mpi/pending"};
    return std::vector<std::string>{"grid.nx", "grid.ny", "grid.cells["};
  };
  CHECK(completeAtEnd("print gr", cc) == Words{"grid"});
  CHECK(completeAtEnd("print [0-3] mpi", cc) == Words{"mpi/pending"});
  CHECK(completeAtEnd("p grid.n", cc) == Words{"grid.nx", "grid.ny"});
  const auto cells = cli::complete("print grid.c", 12, cc);
  CHECK(cells.candidates == Words{"grid.cells["});
  CHECK_FALSE(cells.appendSpace);  // the index comes next
  CHECK(asked.front() == "print:gr");
  // Other commands never ask the ranks.
  asked.clear();
  (void)completeAtEnd("status gr", cc);
  CHECK(asked.empty());
}

TEST_CASE("completion: break on a Charm++ program offers its entry methods, no MPI function, no 'if'",
          "[cli][completion][charm]") {
  cli::CompletionContext cc = session();
  cc.charm = true;
  cc.entryNames = {"Cell::pass", "Cell::ping", "Main::done"};
  CHECK(completeAtEnd("break Cell::pa", cc) == Words{"Cell::pass"});
  CHECK(completeAtEnd("break MPI_Se", cc).empty());
  CHECK(completeAtEnd("break 0 Ma", cc) == Words{"Main::done"});
  CHECK(completeAtEnd("break entry Cell::pi", cc) == Words{"Cell::ping"});
  CHECK(completeAtEnd("break Cell::pass ", cc).empty());
  // The same context for an MPI job still offers MPI functions and 'if'.
  cc.charm = false;
  CHECK_FALSE(completeAtEnd("break MPI_Se", cc).empty());
  CHECK(completeAtEnd("break MPI_Send ", cc) == Words{"if"});
}
