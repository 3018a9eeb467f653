// mpidbg-check: PARCOACH-style static checks of MPI thread levels and
// collectives (docs/check.md). Also run as `mpidbg check ARGS`.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "check/clang/Extractor.hpp"
#include "check/core/Analysis.hpp"
#include "check/core/Render.hpp"

namespace {
// mpidbg's own numbers (debugger/cli/ExitCodes.hpp, docs/commands.md).
constexpr int kExitUsage = 64;
constexpr int kExitNotChecked = 65;
}  // namespace

int main(int argc, char** argv) {
  using namespace mpidbg::check;
  // Like clang-tidy: everything after the first "--" is compile flags for every file.
  ExtractOptions options;
  std::vector<std::string> ours;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (options.haveFixedFlags)
      options.fixedFlags.push_back(arg);
    else if (arg == "--")
      options.haveFixedFlags = true;
    else
      ours.push_back(arg);
  }
  CLI::App app{
      "mpidbg check: MPI thread levels and collectives from the source, before the run.\n\n"
      "Usage: mpidbg check [OPTIONS] -p BUILD_DIR [FILES...]\n"
      "       mpidbg check [OPTIONS] FILES... -- COMPILE_FLAGS\n"
      "  e.g. mpidbg check -p build src/solver.c\n"
      "       mpidbg check x.c -- -fopenmp -I/usr/include/x86_64-linux-gnu/mpich\n"
      "Exit status: 0 checked (findings are printed), 1 findings with --werror,\n"
      "64 bad arguments or nothing to check, 65 a file that could not be checked.",
      "mpidbg check"};
  std::string format = "text", output;
  bool werror = false;
  app.add_option("-p", options.buildDir,
                 "Build directory with compile_commands.json (all its files when none is named)");
  app.add_option("--format", format, "Output: text (compiler-style), json, sarif (SARIF 2.1.0)")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  app.add_option("-o,--output", output, "Write the output to this file instead of stdout");
  app.add_flag("--werror", werror, "Exit with status 1 when anything was found");
  app.add_option("files", options.files, "Source files to check");
  std::vector<const char*> args{argv[0]};
  for (const std::string& s : ours) args.push_back(s.c_str());
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  auto program = extractProgram(options);
  if (!program) {
    std::cerr << "mpidbg check: " << program.error().message << "\n";
    return kExitUsage;
  }
  const CheckReport report = analyze(*program);
  const std::string text = format == "json" ? renderJson(report, program->files, program->problems)
                           : format == "sarif"
                               ? renderSarif(report, program->files, program->problems)
                               : renderText(report, program->files, program->problems);
  if (output.empty()) {
    std::cout << text << std::flush;
  } else {
    std::ofstream file(output);
    file << text;
    if (!file) {
      std::cerr << "mpidbg check: cannot write " << output << "\n";
      return kExitUsage;
    }
  }
  if (!program->problems.empty()) return kExitNotChecked;
  return werror && !report.findings.empty() ? 1 : 0;
}
