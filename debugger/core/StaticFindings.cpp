#include "debugger/core/StaticFindings.hpp"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace mpidbg::core {

namespace {

std::string_view lastComponent(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string StaticFinding::site() const {
  return std::string(lastComponent(file)) + ":" + std::to_string(line);
}

bool StaticFinding::threadCategory() const {
  return category == "mpidbg-thread-level" || category == "mpidbg-concurrent-collective";
}

std::vector<std::size_t> StaticFindings::at(std::string_view site, bool threadOnly) const {
  site = site.substr(0, site.find(' '));
  site = lastComponent(site);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const StaticFinding& f = findings[i];
    const bool wanted = threadOnly ? f.threadCategory() : f.category == "mpidbg-rank-dependent-collective";
    if (wanted && f.site() == site) out.push_back(i);
  }
  return out;
}

Expected<StaticFindings> loadStaticFindings(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail("cannot read " + path + " (write it with: mpidbg check --format json -o " + path + " ...)");
  std::stringstream text;
  text << in.rdbuf();
  const auto json = nlohmann::json::parse(text.str(), nullptr, false);
  const std::string what = path + " is not the JSON of 'mpidbg check --format json'";
  if (json.is_discarded()) return fail(what + ": it is not JSON");
  if (!json.is_object() || !json.contains("findings") || !json["findings"].is_array())
    return fail(what + ": it has no \"findings\" array");
  StaticFindings out;
  out.path = path;
  std::size_t index = 0;
  for (const auto& j : json["findings"]) {
    const std::string which = what + ": finding " + std::to_string(index++);
    if (!j.is_object()) return fail(which + " is not an object");
    for (const char* key : {"file", "category", "message"})
      if (!j.contains(key) || !j[key].is_string()) return fail(which + " has no \"" + key + "\" string");
    if (!j.contains("line") || !j["line"].is_number_unsigned()) return fail(which + " has no \"line\" number");
    StaticFinding f;
    f.file = j["file"];
    f.line = j["line"];
    f.column = j.value("column", 0u);
    f.severity = j.value("severity", "warning");
    f.category = j["category"];
    f.function = j.value("function", "");
    f.message = j["message"];
    if (j.contains("related") && j["related"].is_array())
      for (const auto& r : j["related"])
        if (r.is_string()) f.related.push_back(r);
    out.findings.push_back(std::move(f));
  }
  return out;
}

}  // namespace mpidbg::core
