#include "debugger/core/Grouping.hpp"

#include <algorithm>

namespace mpidbg::core {

std::vector<RankGroup> groupByText(const std::map<int, std::string>& textByRank) {
  std::map<std::string, RankSet> byText;
  for (const auto& [rank, text] : textByRank) byText[text].insert(rank);
  std::vector<RankGroup> groups;
  for (auto& [text, ranks] : byText) groups.push_back({std::move(ranks), text});
  std::sort(groups.begin(), groups.end(),
            [](const RankGroup& a, const RankGroup& b) { return a.ranks.first() < b.ranks.first(); });
  return groups;
}

std::string renderGroups(const std::vector<RankGroup>& groups) {
  std::string out;
  for (const auto& g : groups) {
    std::string text = g.text;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    if (text.find('\n') == std::string::npos) {
      out += g.ranks.toString() + " " + text + "\n";
      continue;
    }
    out += g.ranks.toString() + ":\n";
    std::size_t pos = 0;
    while (pos <= text.size()) {
      const auto nl = text.find('\n', pos);
      const auto end = nl == std::string::npos ? text.size() : nl;
      out += "  " + text.substr(pos, end - pos) + "\n";
      if (nl == std::string::npos) break;
      pos = nl + 1;
    }
  }
  return out;
}

}  // namespace mpidbg::core
