// The hang verdict as JSON (HangReport.hpp).

#include <nlohmann/json.hpp>

#include "debugger/core/Grouping.hpp"
#include "debugger/core/HangReport.hpp"

namespace mpidbg::core {

nlohmann::json hangToJson(const HangVerdict& v) {
  nlohmann::json j;
  j["version"] = 1;
  j["states"] = nlohmann::json::array();
  for (const auto& g : groupByText(v.states))
    j["states"].push_back({{"ranks", g.ranks.toString()}, {"rank_list", g.ranks.toVector()}, {"state", g.text}});
  j["mismatches"] = v.mismatches;
  j["edges"] = nlohmann::json::array();
  for (const auto& e : v.edges)
    j["edges"].push_back({{"from", e.from}, {"to", e.to}, {"why", e.why}, {"any_source", e.anySource}});
  j["cycles"] = v.cycles;
  j["dead_ends"] = v.deadEnds;
  j["unreceived"] = v.unreceived;
  j["culprits"] = nlohmann::json::array();
  for (const auto& [rank, doing] : v.culprits) j["culprits"].push_back({{"rank", rank}, {"doing", doing}});
  j["suggested"] = v.suggested.toVector();
  j["no_hang"] = v.noHang;
  j["held"] = nlohmann::json::array();
  for (const auto& [rank, h] : v.held)
    j["held"].push_back({{"rank", rank}, {"how", h.how}, {"waiters", h.waiters.toVector()}});
  j["only_held"] = v.onlyHeld;
  j["unfollowed"] = nlohmann::json::array();
  for (const auto& g : groupByText(v.unfollowed))
    j["unfollowed"].push_back({{"ranks", g.ranks.toString()}, {"rank_list", g.ranks.toVector()}, {"call", g.text}});
  j["predicted"] = nlohmann::json::array();
  for (const auto& p : v.predicted)
    j["predicted"].push_back({{"site", p.site},
                              {"function", p.function},
                              {"condition", p.condition.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.condition)},
                              {"category", "mpidbg-rank-dependent-collective"},
                              {"message", p.message},
                              {"waiting", p.waiting.toVector()},
                              {"elsewhere", p.elsewhere.toVector()}});
  j["call_sites"] = nlohmann::json::array();
  for (const auto& g : groupByText(v.callSites))
    j["call_sites"].push_back({{"ranks", g.ranks.toString()}, {"rank_list", g.ranks.toVector()}, {"site", g.text}});
  j["sources"] = nlohmann::json::array();
  for (const auto& g : groupByText(v.sources))
    j["sources"].push_back({{"ranks", g.ranks.toString()}, {"rank_list", g.ranks.toVector()}, {"source", g.text}});
  return j;
}

}  // namespace mpidbg::core
