// Reading decision logs (RecordFiles.hpp).
#include "debugger/core/RecordFiles.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace mpidbg::core {

std::string recordFileOf(const std::string& dir, int rank) { return dir + "/rank-" + std::to_string(rank) + ".rec"; }

Expected<record::Log> readRecordFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  auto log = record::decode(bytes.str());
  if (!log) return fail(path + ": " + log.error().message);
  return log;
}

Expected<RecordedRun> readRecordDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return fail(dir + " is not a directory (a record is made with mpidbg --record DIR)");
  RecordedRun run;
  run.dir = dir;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with("rank-") || !name.ends_with(".rec")) continue;
    const std::string_view digits(name.data() + 5, name.size() - 9);
    int rank = -1;
    auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
    if (err != std::errc{} || end != digits.data() + digits.size() || rank < 0) continue;
    auto log = readRecordFile(e.path().string());
    if (log) run.logs.emplace(rank, std::move(*log));
    else run.errors.emplace(rank, log.error().message);
  }
  if (ec) return fail("cannot list " + dir + ": " + ec.message());
  if (run.logs.empty() && run.errors.empty())
    return fail(dir + " holds no decision logs (rank-R.rec; a record is made with mpidbg --record DIR)");
  return run;
}

std::map<std::string, std::uint64_t> countByFunction(const record::Log& log) {
  std::map<std::string, std::uint64_t> counts;
  for (const record::Run& r : log.runs) counts[std::string(record::functionOf(r.decision.kind))] += r.count;
  return counts;
}

std::string summarize(const record::Log& log) {
  std::string s = std::to_string(log.decisions) + (log.decisions == 1 ? " decision" : " decisions");
  const auto counts = countByFunction(log);
  if (!counts.empty()) {
    s += " (";
    bool first = true;
    for (const auto& [function, n] : counts) {
      s += (first ? "" : ", ") + function + " " + std::to_string(n);
      first = false;
    }
    s += ")";
  }
  s += ", " + std::to_string(log.bytes) + " bytes";
  if (log.decisions > 0) {
    char perDecision[32];
    std::snprintf(perDecision, sizeof perDecision, "%.2f", static_cast<double>(log.bytes) / log.decisions);
    s += std::string(", ") + perDecision + " bytes per decision";
  }
  if (!log.complete) s += ", cut short (no end marker: the recorded rank did not finish)";
  return s;
}

std::string firstDifference(const record::Log& a, const record::Log& b) {
  std::size_t ia = 0, ib = 0;       // runs
  std::uint64_t ua = 0, ub = 0;     // decisions used of the current runs
  std::uint64_t n = 0;              // decisions compared so far
  while (ia < a.runs.size() && ib < b.runs.size()) {
    const record::Run& ra = a.runs[ia];
    const record::Run& rb = b.runs[ib];
    if (!(ra.decision == rb.decision))
      return "decision #" + std::to_string(n + 1) + ": " + record::describe(ra.decision) + " in one, " +
             record::describe(rb.decision) + " in the other";
    const std::uint64_t step = std::min(ra.count - ua, rb.count - ub);
    n += step;
    ua += step;
    ub += step;
    if (ua == ra.count) ++ia, ua = 0;
    if (ub == rb.count) ++ib, ub = 0;
  }
  if (ia < a.runs.size())
    return "decision #" + std::to_string(n + 1) + ": the second log ends, the first goes on with " +
           record::describe(a.runs[ia].decision);
  if (ib < b.runs.size())
    return "decision #" + std::to_string(n + 1) + ": the first log ends, the second goes on with " +
           record::describe(b.runs[ib].decision);
  return "";
}

}  // namespace mpidbg::core
