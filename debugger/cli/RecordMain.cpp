// `mpidbg record show|compare` and the checks of --record/--replay
// (RecordMain.hpp).
#include "debugger/cli/RecordMain.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <set>

#include "debugger/cli/ExitCodes.hpp"
#include "debugger/core/RecordFiles.hpp"

namespace mpidbg::cli {

namespace {

namespace fs = std::filesystem;

nlohmann::json logJson(int rank, const record::Log& log, bool decisions) {
  nlohmann::json j = {{"rank", rank},           {"size", log.size},         {"decisions", log.decisions},
                      {"bytes", log.bytes},     {"complete", log.complete}, {"by_function", core::countByFunction(log)}};
  if (decisions) {
    j["sequence"] = nlohmann::json::array();
    for (const record::Run& r : log.runs) j["sequence"].push_back({{"decision", record::describe(r.decision)}, {"count", r.count}});
  }
  return j;
}

/// The logs named on the command line: directories expand to their
/// rank-R.rec files, a file stands for itself (its rank from its header).
struct Named {
  std::string name;  ///< the file, for messages
  int rank = -1;
  Expected<record::Log> log = fail("");
};

std::vector<Named> readNamed(const std::vector<std::string>& paths, std::vector<std::string>& errors) {
  std::vector<Named> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      auto run = core::readRecordDir(p);
      if (!run) {
        errors.push_back(run.error().message);
        continue;
      }
      for (auto& [rank, log] : run->logs) out.push_back({core::recordFileOf(p, rank), rank, std::move(log)});
      for (auto& [rank, why] : run->errors) out.push_back({core::recordFileOf(p, rank), rank, fail(why)});
    } else {
      auto log = core::readRecordFile(p);
      const int rank = log ? log->rank : -1;
      out.push_back({p, rank, std::move(log)});
    }
  }
  return out;
}

int show(const std::vector<std::string>& paths, bool decisions, bool json) {
  std::vector<std::string> errors;
  std::vector<Named> logs = readNamed(paths, errors);
  nlohmann::json out = {{"logs", nlohmann::json::array()}, {"errors", nlohmann::json::array()}};
  for (const Named& n : logs) {
    if (!n.log) {
      errors.push_back(n.log.error().message);
      continue;
    }
    if (json) {
      out["logs"].push_back(logJson(n.rank, *n.log, decisions));
      out["logs"].back()["file"] = n.name;
      continue;
    }
    std::cout << "[" << n.rank << "] " << core::summarize(*n.log) << "  (" << n.name << ")\n";
    if (!decisions) continue;
    std::uint64_t at = 1;
    for (const record::Run& r : n.log->runs) {
      std::cout << "  #" << at;
      if (r.count > 1) std::cout << "-#" << at + r.count - 1;
      std::cout << "  " << record::describe(r.decision) << "\n";
      at += r.count;
    }
  }
  for (const std::string& e : errors) {
    if (json) out["errors"].push_back(e);
    else std::cerr << "error: " << e << "\n";
  }
  if (json) std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return errors.empty() ? kExitOk : kExitCommandFailed;
}

int compare(const std::string& a, const std::string& b, bool json) {
  auto runA = core::readRecordDir(a);
  auto runB = core::readRecordDir(b);
  if (!runA || !runB) {
    std::cerr << "error: " << (runA ? runB.error().message : runA.error().message) << "\n";
    return kExitCommandFailed;
  }
  std::set<int> ranks;
  for (const auto* run : {&*runA, &*runB}) {
    for (const auto& [rank, log] : run->logs) ranks.insert(rank);
    for (const auto& [rank, why] : run->errors) ranks.insert(rank);
  }
  nlohmann::json out = {{"same", true}, {"ranks", nlohmann::json::array()}};
  bool same = true;
  for (int rank : ranks) {
    std::string difference;
    auto la = runA->logs.find(rank);
    auto lb = runB->logs.find(rank);
    if (la == runA->logs.end() || lb == runB->logs.end()) {
      const auto& [missingRun, otherRun] = la == runA->logs.end() ? std::pair{&*runA, &*runB} : std::pair{&*runB, &*runA};
      auto why = missingRun->errors.find(rank);
      difference = why != missingRun->errors.end() ? why->second
                                                   : "no log of this rank in " + missingRun->dir;
      (void)otherRun;
    } else {
      difference = core::firstDifference(la->second, lb->second);
    }
    if (!difference.empty()) same = false;
    if (json) {
      out["ranks"].push_back({{"rank", rank}, {"same", difference.empty()}, {"difference", difference}});
    } else if (difference.empty()) {
      std::cout << "[" << rank << "] same " << la->second.decisions << " decisions\n";
    } else {
      std::cout << "[" << rank << "] differs at " << difference << "\n";
    }
  }
  if (json) {
    out["same"] = same;
    std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << (same ? "The runs took the same decisions.\n" : "The runs took different decisions.\n");
  }
  return same ? kExitOk : kExitCommandFailed;
}

}  // namespace

int recordMain(const std::vector<std::string>& args) {
  CLI::App app{"mpidbg record: the decision logs of record and replay (mpidbg --record DIR / --replay DIR).\n\n"
               "Usage: mpidbg record show [--decisions] [--json] DIR|FILE...\n"
               "       mpidbg record compare [--json] DIR1 DIR2\n"
               "  e.g. mpidbg record show --decisions rec/        every decision of every rank\n"
               "       mpidbg record compare rec/ replayed/      did a replay take the recorded decisions?",
               "mpidbg record"};
  app.require_subcommand(1);
  bool json = false, decisions = false;
  std::vector<std::string> paths;
  CLI::App* showCmd = app.add_subcommand("show", "Summarize logs per rank (decisions by MPI function, size)");
  showCmd->add_flag("--decisions", decisions, "List every decision, runs of equal ones joined");
  showCmd->add_flag("--json", json, "One JSON object: {logs:[{rank,size,decisions,bytes,complete,by_function,...}]}");
  showCmd->add_option("paths", paths, "Record directories or rank-R.rec files")->required()->type_name("DIR|FILE");
  std::vector<std::string> dirs;
  CLI::App* compareCmd =
      app.add_subcommand("compare", "Compare two recorded runs rank by rank; exit 0 when they took the same decisions");
  compareCmd->add_flag("--json", json, "One JSON object: {same, ranks:[{rank,same,difference}]}");
  compareCmd->add_option("dirs", dirs, "Two record directories")->required()->expected(2)->type_name("DIR");
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  if (showCmd->parsed()) return show(paths, decisions, json);
  return compare(dirs[0], dirs[1], json);
}

std::string prepareRecordDirs(std::string& recordDir, std::string& replayDir) {
  std::error_code ec;
  if (!replayDir.empty()) {
    auto run = core::readRecordDir(replayDir);
    if (!run) return "--replay: " + run.error().message;
    replayDir = fs::absolute(replayDir, ec).lexically_normal().string();
  }
  if (!recordDir.empty()) {
    fs::create_directories(recordDir, ec);
    if (ec || !fs::is_directory(recordDir)) return "--record: cannot create " + recordDir + ": " + ec.message();
    recordDir = fs::absolute(recordDir, ec).lexically_normal().string();
    if (!replayDir.empty() && fs::equivalent(recordDir, replayDir, ec))
      return "--record and --replay name the same directory; record the replay elsewhere";
    // Logs of an earlier run with more ranks would mix with this run's.
    for (const fs::directory_entry& e : fs::directory_iterator(recordDir, ec)) {
      const std::string name = e.path().filename().string();
      if (name.starts_with("rank-") && name.ends_with(".rec")) fs::remove(e.path(), ec);
    }
  }
  return "";
}

}  // namespace mpidbg::cli
