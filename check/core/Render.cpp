#include "check/core/Render.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

namespace mpidbg::check {

namespace {

std::string_view severityName(Severity s) { return s == Severity::Error ? "error" : "warning"; }

std::string requestText(const CheckReport& r) {
  if (r.requested)
    return fmt::format("asks {} ({})", levelName(*r.requested), formatLine(r.requestLoc));
  if (r.requestNotConstant)
    return fmt::format("asks a level not known before the run ({})", formatLine(r.requestLoc));
  return "no MPI_Init or MPI_Init_thread in the files checked: levels not compared";
}

std::size_t count(const CheckReport& r, Severity s) {
  std::size_t n = 0;
  for (const Finding& f : r.findings) n += f.severity == s;
  return n;
}

/// An absolute path as a file:// URI; a relative one stays relative to
/// %SRCROOT% (the directory the check ran in, originalUriBaseIds).
nlohmann::json artifactLocation(const std::string& path) {
  if (path.starts_with('/')) return {{"uri", "file://" + path}};
  return {{"uri", path}, {"uriBaseId", "%SRCROOT%"}};
}

}  // namespace

std::string renderText(const CheckReport& report, const std::vector<std::string>& files,
                       const std::vector<std::string>& problems) {
  std::string out;
  for (const std::string& p : problems) out += fmt::format("error: {}\n", p);
  for (const Finding& f : report.findings)
    out += fmt::format("{}: {}: {} [{}]\n", formatLoc(f.loc), severityName(f.severity), f.message,
                       f.category);
  for (const SourceLoc& other : report.otherRequests)
    out += fmt::format(
        "note: {}: asks another thread level than {}; the first is used for every call (check "
        "separate "
        "programs in separate runs)\n",
        formatLoc(other), formatLine(report.requestLoc));
  if (report.contextsCut)
    out +=
        "note: some functions have more than 64 call chains; calls along the others were not "
        "checked\n";
  out += fmt::format(
      "mpidbg check: {} file(s), {} MPI call site(s); program needs {}, {}; {} warning(s), {} "
      "error(s)\n",
      files.size(), report.sites, levelName(report.programNeeds), requestText(report),
      count(report, Severity::Warning), count(report, Severity::Error));
  return out;
}

std::string renderJson(const CheckReport& report, const std::vector<std::string>& files,
                       const std::vector<std::string>& problems) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : report.findings) {
    nlohmann::json related = nlohmann::json::array();
    for (const SourceLoc& l : f.related) related.push_back(formatLoc(l));
    findings.push_back(
        {{"file", f.loc.file},
         {"line", f.loc.line},
         {"column", f.loc.column},
         {"severity", severityName(f.severity)},
         {"category", f.category},
         {"function", f.function},
         {"message", f.message},
         {"word", f.word},
         {"needed", f.needed ? nlohmann::json(levelName(*f.needed)) : nlohmann::json()},
         {"related", related}});
  }
  nlohmann::json j{
      {"files", files},
      {"problems", problems},
      {"sites", report.sites},
      {"program_needs", levelName(report.programNeeds)},
      {"requested",
       report.requested ? nlohmann::json(levelName(*report.requested)) : nlohmann::json()},
      {"request_at",
       report.requestLoc.line ? nlohmann::json(formatLoc(report.requestLoc)) : nlohmann::json()},
      {"contexts_cut", report.contextsCut},
      {"findings", findings}};
  return j.dump(2) + "\n";
}

std::string renderSarif(const CheckReport& report, const std::vector<std::string>& files,
                        const std::vector<std::string>& problems) {
  auto location = [](const SourceLoc& l) {
    return nlohmann::json{{"physicalLocation",
                           {{"artifactLocation", artifactLocation(l.file)},
                            {"region", {{"startLine", l.line}, {"startColumn", l.column}}}}}};
  };
  nlohmann::json rules = nlohmann::json::array();
  for (const Category& c : kCategories)
    rules.push_back({{"id", c.id}, {"shortDescription", {{"text", c.description}}}});
  nlohmann::json results = nlohmann::json::array();
  for (const Finding& f : report.findings) {
    nlohmann::json related = nlohmann::json::array();
    for (std::size_t i = 0; i < f.related.size(); ++i) {
      nlohmann::json r = location(f.related[i]);
      r["id"] = i;
      related.push_back(r);
    }
    nlohmann::json result{{"ruleId", f.category},
                          {"ruleIndex", categoryIndex(f.category)},
                          {"level", severityName(f.severity)},
                          {"message", {{"text", f.message}}},
                          {"locations", nlohmann::json::array({location(f.loc)})}};
    if (!related.empty()) result["relatedLocations"] = related;
    results.push_back(result);
  }
  nlohmann::json notifications = nlohmann::json::array();
  for (const std::string& p : problems)
    notifications.push_back({{"level", "error"}, {"message", {{"text", p}}}});
  nlohmann::json artifacts = nlohmann::json::array();
  for (const std::string& f : files) artifacts.push_back({{"location", artifactLocation(f)}});
  std::error_code ec;
  const std::string cwd = std::filesystem::current_path(ec).string();
  nlohmann::json run{
      {"tool", {{"driver", {{"name", "mpidbg-check"}, {"rules", rules}}}}},
      {"originalUriBaseIds", {{"%SRCROOT%", {{"uri", "file://" + cwd + "/"}}}}},
      {"artifacts", artifacts},
      {"invocations", nlohmann::json::array({{{"executionSuccessful", problems.empty()},
                                              {"toolExecutionNotifications", notifications}}})},
      {"results", results}};
  nlohmann::json log{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                     {"version", "2.1.0"},
                     {"runs", nlohmann::json::array({run})}};
  return log.dump(2) + "\n";
}

}  // namespace mpidbg::check
