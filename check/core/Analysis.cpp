#include "check/core/Analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "check/core/MpiCollectives.hpp"

namespace mpidbg::check {

std::string formatLoc(const SourceLoc& loc) {
  return fmt::format("{}:{}:{}", loc.file, loc.line, loc.column);
}
std::string formatLine(const SourceLoc& loc) { return fmt::format("{}:{}", loc.file, loc.line); }

char letterOf(RegionKind kind) noexcept {
  switch (kind) {
    case RegionKind::Parallel:
      return 'P';
    case RegionKind::Single:
    case RegionKind::Critical:
      return 'S';
    case RegionKind::Master:
      return 'M';
    case RegionKind::Inactive:
    case RegionKind::Worksharing:
      return '\0';
  }
  return '\0';
}

std::size_t categoryIndex(std::string_view id) noexcept {
  for (std::size_t i = 0; i < std::size(kCategories); ++i)
    if (kCategories[i].id == id) return i;
  return 0;
}

namespace {

/// One letter of a word: the construct that put it there (nullptr for a
/// barrier or an inactive region's marker 'I').
struct Letter {
  char c;
  const Item* region;
  bool operator==(const Letter&) const = default;
};
using Word = std::vector<Letter>;

/// One MPI call site reached along one call chain.
struct SiteInstance {
  const Item* site;
  Word word;                     ///< normalized (see normalize)
  std::vector<SourceLoc> chain;  ///< the call sites from the root function
  std::vector<RankCondition> rank;
};

/// Drops what no team runs: S, M, B outside any parallel region (an orphaned
/// construct called from sequential code) and inside a parallel region of one
/// thread (marker 'I', up to the next P).
Word normalize(const Word& raw) {
  Word out;
  bool active = false;
  for (const Letter& l : raw) {
    if (l.c == 'P') {
      active = true;
      out.push_back(l);
    } else if (l.c == 'I') {
      active = false;
    } else if (active) {
      out.push_back(l);
    }
  }
  return out;
}

std::string text(const Word& w) {
  std::string s;
  for (const Letter& l : w) s += l.c;
  return s;
}

/// Maximum contexts (call chains) walked per function: bounds the work on
/// code with many call paths; the cut is reported.
constexpr int kMaxContexts = 64;

class Walker {
 public:
  explicit Walker(const ProgramModel& program) {
    for (const FunctionModel& f : program.functions) byKey_.emplace(f.key, &f);
  }

  void walkRoots(const ProgramModel& program) {
    std::set<std::string> called;
    for (const FunctionModel& f : program.functions) collectCallees(f.body, called);
    for (const FunctionModel& f : program.functions)
      if (!called.contains(f.key)) walkFunction(f, {}, {}, {});
    // Functions reached only from a cycle of calls: walk them once from their entry.
    for (const FunctionModel& f : program.functions)
      if (!contexts_.contains(f.key)) walkFunction(f, {}, {}, {});
  }

  std::vector<SiteInstance> sites;
  bool truncated = false;

 private:
  static void collectCallees(const std::vector<Item>& items, std::set<std::string>& out) {
    for (const Item& i : items) {
      if (i.kind == Item::Kind::Call) out.insert(i.callee);
      collectCallees(i.body, out);
    }
  }

  void walkFunction(const FunctionModel& f, const Word& prefix, const std::vector<SourceLoc>& chain,
                    const std::vector<RankCondition>& rank) {
    if (++contexts_[f.key] > kMaxContexts) {
      truncated = true;
      return;
    }
    active_.insert(f.key);
    Word word = prefix;
    walkItems(f.body, word, chain, rank);
    active_.erase(f.key);
  }

  void walkItems(const std::vector<Item>& items, Word& word, const std::vector<SourceLoc>& chain,
                 const std::vector<RankCondition>& rank) {
    for (const Item& item : items) {
      switch (item.kind) {
        case Item::Kind::Barrier:
          word.push_back({'B', nullptr});
          break;
        case Item::Kind::MpiCall: {
          std::vector<RankCondition> r = rank;
          r.insert(r.end(), item.rankConditions.begin(), item.rankConditions.end());
          sites.push_back({&item, normalize(word), chain, std::move(r)});
          break;
        }
        case Item::Kind::Call: {
          auto it = byKey_.find(item.callee);
          if (it == byKey_.end()) break;
          if (!active_.contains(item.callee)) {
            std::vector<SourceLoc> c = chain;
            c.push_back(item.loc);
            std::vector<RankCondition> r = rank;
            r.insert(r.end(), item.rankConditions.begin(), item.rankConditions.end());
            walkFunction(*it->second, word, c, r);
          }
          std::set<std::string> seen;
          for (unsigned n = barriersOf(*it->second, seen); n > 0; --n)
            word.push_back({'B', nullptr});
          break;
        }
        case Item::Kind::Region: {
          Word inner = word;
          if (item.region == RegionKind::Inactive)
            inner.push_back({'I', &item});
          else if (char c = letterOf(item.region))
            inner.push_back({c, &item});
          walkItems(item.body, inner, chain, rank);
          if (item.barrierAfter && item.region != RegionKind::Parallel &&
              item.region != RegionKind::Inactive)
            word.push_back({'B', nullptr});
          break;
        }
      }
    }
  }

  /// Barriers the team passes in `f`'s body outside nested constructs
  /// (explicit, implicit at a construct's end, in callees).
  unsigned barriersOf(const FunctionModel& f, std::set<std::string>& seen) {
    if (auto it = barrierMemo_.find(f.key); it != barrierMemo_.end()) return it->second;
    if (!seen.insert(f.key).second) return 0;
    unsigned n = 0;
    for (const Item& i : f.body) {
      if (i.kind == Item::Kind::Barrier)
        ++n;
      else if (i.kind == Item::Kind::Region && i.barrierAfter && i.region != RegionKind::Parallel &&
               i.region != RegionKind::Inactive)
        ++n;
      else if (i.kind == Item::Kind::Call)
        if (auto it = byKey_.find(i.callee); it != byKey_.end()) n += barriersOf(*it->second, seen);
    }
    barrierMemo_[f.key] = n;
    return n;
  }

  std::map<std::string, const FunctionModel*> byKey_;
  std::map<std::string, int> contexts_;
  std::set<std::string> active_;
  std::map<std::string, unsigned> barrierMemo_;
};

std::string describeRegion(const Item& region) {
  return fmt::format("omp {} at {}", region.construct, formatLine(region.loc));
}

/// Where in the team a word puts its call, for messages.
std::string describeWord(const Word& w) {
  if (w.empty()) return "outside parallel regions";
  const Letter& last = w.back();
  auto lastRegion = std::find_if(w.rbegin(), w.rend(), [](const Letter& l) { return l.region; });
  std::string where = lastRegion == w.rend() ? "" : describeRegion(*lastRegion->region);
  switch (last.c) {
    case 'P':
      return fmt::format("on every thread of {}", where);  // "may": conditions are not evaluated
    case 'M':
      return fmt::format("in {} (the primary thread)", where);
    case 'S':
      return lastRegion->region->region == RegionKind::Critical
                 ? fmt::format("in {} (every thread, one at a time)", where)
                 : fmt::format("in {} (one thread)", where);
    default:
      return fmt::format(
          "on every thread of {} after {} barrier(s)", where,
          std::count_if(w.begin(), w.end(), [](const Letter& l) { return l.c == 'B'; }));
  }
}

/// Whether two site instances may run at the same time in two threads, and why.
std::optional<std::string> concurrent(const SiteInstance& a, const SiteInstance& b) {
  const Word& A = a.word;
  const Word& B = b.word;
  std::size_t k = 0;
  while (k < A.size() && k < B.size() && A[k] == B[k]) ++k;
  std::optional<std::size_t> p;
  for (std::size_t i = 0; i < k; ++i)
    if (A[i].c == 'P') p = i;
  if (!p) return std::nullopt;
  // Inside one single/master/critical region after the last common team: one thread at a time.
  for (std::size_t i = *p + 1; i < k; ++i)
    if (A[i].c != 'B') return std::nullopt;
  auto tail = [k](const Word& w) {
    unsigned barriers = 0;
    std::size_t i = k;
    while (i < w.size() && w[i].c == 'B') ++barriers, ++i;
    return std::pair<unsigned, const Letter*>{barriers, i < w.size() ? &w[i] : nullptr};
  };
  auto [bA, xA] = tail(A);
  auto [bB, xB] = tail(B);
  if (bA != bB) return std::nullopt;
  const Item& team = *A[*p].region;
  const bool allA = !xA || xA->c == 'P';
  const bool allB = !xB || xB->c == 'P';
  if (allA || allB) {
    if (a.site == b.site && a.word == b.word)
      return fmt::format("every thread of {} calls it", describeRegion(team));
    return fmt::format("{} runs it on every thread", describeRegion(team));
  }
  if (xA->c == 'M' && xB->c == 'M') return std::nullopt;
  const Item& rA = *xA->region;
  const Item& rB = *xB->region;
  if (rA.region == RegionKind::Critical && rB.region == RegionKind::Critical &&
      rA.criticalName == rB.criticalName)
    return std::nullopt;
  return fmt::format("{} and {} without a barrier between them", describeRegion(rA),
                     describeRegion(rB));
}

/// Whether a word ends in a single, master or critical region.
bool oneThreadAtATime(const Word& w) {
  return !w.empty() && (w.back().c == 'S' || w.back().c == 'M');
}

std::string calledFrom(const std::vector<SourceLoc>& chain) {
  if (chain.empty()) return "";
  std::string s = ", called from ";
  for (std::size_t i = chain.size(); i-- > 0;) s += formatLine(chain[i]) + (i ? " < " : "");
  return s;
}

}  // namespace

CheckReport analyze(const ProgramModel& program) {
  CheckReport report;
  Walker walker(program);
  walker.walkRoots(program);
  std::vector<SiteInstance>& sites = walker.sites;

  std::set<const Item*> distinct;
  for (const SiteInstance& s : sites) {
    distinct.insert(s.site);
    if (!s.site->initCall) continue;
    if (report.requestLoc.line == 0) {
      report.requestLoc = s.site->loc;
      report.requested = s.site->requested;
      report.requestNotConstant = !s.site->requested;
    } else if (s.site->requested != report.requested && s.site->loc != report.requestLoc &&
               std::find(report.otherRequests.begin(), report.otherRequests.end(), s.site->loc) ==
                   report.otherRequests.end()) {
      report.otherRequests.push_back(s.site->loc);
    }
  }
  report.sites = distinct.size();

  // Per site: the instance needing the highest level, and what raised it.
  struct Need {
    ThreadLevel level = ThreadLevel::Single;
    const SiteInstance* instance = nullptr;
    const SiteInstance* partner = nullptr;  // concurrency raised it to MULTIPLE
    std::string why;
  };
  std::map<const Item*, Need> need;
  for (const SiteInstance& s : sites) {
    Need& n = need[s.site];
    const ThreadLevel l = neededLevel(text(s.word));
    if (!n.instance || l > n.level) n = {l, &s, nullptr, ""};
  }
  std::set<std::pair<const Item*, const Item*>> reportedPairs;
  // Sites that several threads of one team may call at once: their pairs with
  // other such sites on the communicator add nothing.
  std::set<const Item*> selfConcurrent;
  std::vector<std::pair<Finding, std::pair<const Item*, const Item*>>> pairFindings;
  for (std::size_t i = 0; i < sites.size(); ++i) {
    if (sites[i].word.empty()) continue;
    for (std::size_t j = i; j < sites.size(); ++j) {
      if (sites[j].word.empty()) continue;
      auto why = concurrent(sites[i], sites[j]);
      if (!why) continue;
      const SiteInstance& a = sites[i];
      const SiteInstance& b = sites[j];
      for (const SiteInstance* s : {&a, &b}) {
        Need& n = need[s->site];
        if (n.level < ThreadLevel::Multiple)
          n = {ThreadLevel::Multiple, s, s == &a ? &b : &a, *why};
      }
      const Item& x = *a.site;
      const Item& y = *b.site;
      if (!isCollective(x.callee) || !isCollective(y.callee) || x.communicator.empty() ||
          x.communicator != y.communicator)
        continue;
      const auto key = y.loc < x.loc ? std::pair{&y, &x} : std::pair{&x, &y};
      if (!reportedPairs.insert(key).second) continue;
      Finding f;
      f.severity = Severity::Error;
      f.category = kCategories[1].id;
      f.loc = key.first->loc;
      f.function = key.first->callee;
      f.word = text(a.word);
      const Item& other = *key.second;
      if (&x == &y)
        f.message = fmt::format(
            "{} may be called by several threads at once on the same communicator {} ({}{}): "
            "erroneous at every thread level",
            x.callee, x.communicator, *why, calledFrom(a.chain));
      else
        f.message = fmt::format(
            "{} may run concurrently with {} at {} on the same communicator {} ({}{}): "
            "erroneous at every thread level",
            key.first->callee, other.callee, formatLine(other.loc), x.communicator, *why,
            calledFrom(a.chain));
      if (&x != &y)
        f.related.push_back(other.loc);
      else
        selfConcurrent.insert(&x);
      pairFindings.push_back({std::move(f), key});
    }
  }
  for (auto& [f, key] : pairFindings)
    if (key.first == key.second || !selfConcurrent.contains(key.first) ||
        !selfConcurrent.contains(key.second))
      report.findings.push_back(std::move(f));

  for (const auto& [item, n] : need) {
    report.programNeeds = std::max(report.programNeeds, n.level);
    if (!report.requested || n.level <= *report.requested) continue;
    const SiteInstance& s = *n.instance;
    Finding f;
    f.category = kCategories[0].id;
    f.loc = item->loc;
    f.function = item->callee;
    f.word = text(s.word);
    f.needed = n.level;
    const std::string asks =
        fmt::format("needs {}, program asks {}", levelName(n.level), levelName(*report.requested));
    if (n.partner && neededLevel(f.word) < n.level) {
      f.message = fmt::format("{} may run concurrently with {} at {} ({}{}); {}", item->callee,
                              n.partner->site->callee, formatLine(n.partner->site->loc), n.why,
                              calledFrom(s.chain), asks);
      f.related.push_back(n.partner->site->loc);
    } else {
      f.message = fmt::format("{} {} {} (parallelism word {}{}); {}", item->callee,
                              oneThreadAtATime(s.word) ? "runs" : "may run", describeWord(s.word),
                              f.word, calledFrom(s.chain), asks);
    }
    f.related.insert(f.related.end(), s.chain.begin(), s.chain.end());
    report.findings.push_back(std::move(f));
  }

  std::set<std::pair<const Item*, SourceLoc>> rankReported;
  for (const SiteInstance& s : sites) {
    if (s.rank.empty() || !isCollective(s.site->callee)) continue;
    const RankCondition& c = s.rank.front();
    if (!rankReported.insert({s.site, c.condition}).second) continue;
    Finding f;
    f.category = kCategories[2].id;
    f.loc = s.site->loc;
    f.function = s.site->callee;
    f.word = text(s.word);
    f.message = fmt::format(
        "{} may not be called by every rank: the condition at {} depends on the rank "
        "(MPI_Comm_rank at {}){}",
        s.site->callee, formatLine(c.condition), formatLine(c.rankCall), calledFrom(s.chain));
    f.related = {c.condition, c.rankCall};
    report.findings.push_back(std::move(f));
  }

  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [](const Finding& a, const Finding& b) {
                     return std::pair(a.loc, categoryIndex(a.category)) <
                            std::pair(b.loc, categoryIndex(b.category));
                   });
  report.contextsCut = walker.truncated;
  return report;
}

}  // namespace mpidbg::check
