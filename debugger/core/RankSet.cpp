#include "debugger/core/RankSet.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "mpidbg/Text.hpp"

namespace mpidbg::core {

namespace {

Expected<int> parseRank(std::string_view s, std::string_view whole) {
  s = trim(s);
  int value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || value < 0)
    return fail("bad rank set '" + std::string(whole) + "': '" + std::string(s) +
                "' is not a rank number");
  return value;
}

}  // namespace

RankSet RankSet::range(int first, int last) {
  RankSet set;
  for (int r = first; r <= last; ++r) set.ranks_.insert(r);
  return set;
}

Expected<RankSet> RankSet::parse(std::string_view text, int jobSize) {
  std::string_view body = trim(text);
  if (body.empty()) return fail("empty rank set (expected e.g. all, 3, 0-3,7 or [0-3,7])");
  if (body.front() == '[') {
    if (body.back() != ']')
      return fail("bad rank set '" + std::string(text) + "': missing closing ']'");
    body = trim(body.substr(1, body.size() - 2));
    if (body.empty()) return fail("empty rank set '" + std::string(text) + "'");
  }
  if (body == "all") return all(jobSize);

  RankSet set;
  while (!body.empty()) {
    const auto comma = body.find(',');
    std::string_view item = trim(body.substr(0, comma));
    body = comma == std::string_view::npos ? std::string_view{} : body.substr(comma + 1);
    if (item.empty()) return fail("bad rank set '" + std::string(text) + "': empty item");
    const auto dash = item.find('-');
    auto lo = parseRank(item.substr(0, dash), text);
    if (!lo) return std::unexpected(lo.error());
    int hi = *lo;
    if (dash != std::string_view::npos) {
      auto parsed = parseRank(item.substr(dash + 1), text);
      if (!parsed) return std::unexpected(parsed.error());
      hi = *parsed;
      if (hi < *lo)
        return fail("bad rank set '" + std::string(text) + "': range " + std::string(item) +
                    " is reversed");
    }
    if (hi >= jobSize)
      return fail("rank " + std::to_string(hi) + " is out of range: the job has " +
                  std::to_string(jobSize) + (jobSize == 1 ? " rank" : " ranks") +
                  (jobSize > 0 ? " (0-" + std::to_string(jobSize - 1) + ")" : ""));
    for (int r = *lo; r <= hi; ++r) set.insert(r);
  }
  return set;
}

std::string RankSet::toString() const {
  std::string out = "[";
  auto it = ranks_.begin();
  bool firstItem = true;
  while (it != ranks_.end()) {
    const int start = *it;
    int end = start;
    auto next = std::next(it);
    while (next != ranks_.end() && *next == end + 1) {
      end = *next;
      ++next;
    }
    if (!firstItem) out += ',';
    out += std::to_string(start);
    if (end != start) out += '-' + std::to_string(end);
    firstItem = false;
    it = next;
  }
  return out + "]";
}

RankSet RankSet::operator|(const RankSet& other) const {
  RankSet out = *this;
  out.ranks_.insert(other.ranks_.begin(), other.ranks_.end());
  return out;
}

RankSet RankSet::operator&(const RankSet& other) const {
  RankSet out;
  std::set_intersection(ranks_.begin(), ranks_.end(), other.ranks_.begin(), other.ranks_.end(),
                        std::inserter(out.ranks_, out.ranks_.end()));
  return out;
}

RankSet RankSet::operator-(const RankSet& other) const {
  RankSet out;
  std::set_difference(ranks_.begin(), ranks_.end(), other.ranks_.begin(), other.ranks_.end(),
                      std::inserter(out.ranks_, out.ranks_.end()));
  return out;
}

std::string describeRanks(const RankSet& ranks) {
  if (ranks.size() == 1) return "rank " + std::to_string(ranks.first());
  return "ranks " + ranks.toString();
}

}  // namespace mpidbg::core
