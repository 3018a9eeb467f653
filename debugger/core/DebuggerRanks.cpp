// Debugger::ranks: a rank-set expression evaluated against the job (named
// sets, $equiv[N], the focus, live states, calls, entries, object fields).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ccs/condition/Condition.hpp"
#include "debugger/core/Debugger.hpp"
#include "debugger/core/ObjectQuery.hpp"
#include "debugger/core/RankExpr.hpp"

namespace mpidbg::core {

namespace proto = ccs::proto;

namespace {

/// The debugger's answers to a rank-set expression's operands. Live states
/// come from one views() call, made the first time an operand needs them.
class JobResolver final : public RankExprResolver {
 public:
  JobResolver(Debugger& debugger, const RankNames& names, std::chrono::milliseconds blockedAfter)
      : debugger_(debugger), names_(names), blockedAfter_(blockedAfter) {}

  int jobSize() const override { return debugger_.session().job().size(); }

  Expected<RankSet> namedSet(std::string_view name) override {
    static const std::map<std::string, RankSet> kNone;
    const auto& sets = names_.sets != nullptr ? *names_.sets : kNone;
    if (auto it = sets.find(std::string(name)); it != sets.end()) return it->second;
    std::string known;
    for (const auto& [n, set] : sets) known += (known.empty() ? "" : ", ") + n;
    return fail("unknown rank set name '" + std::string(name) + "' (" +
                (known.empty() ? std::string("no named sets yet") : "named sets: " + known) +
                "; define one with 'set " + std::string(name) + " = EXPR')");
  }

  Expected<RankSet> equivalenceClass(std::size_t n) override {
    static const std::vector<RankSet> kNone;
    const auto& classes = names_.equivalenceClasses != nullptr ? *names_.equivalenceClasses : kNone;
    if (classes.empty()) return fail("no equivalence classes yet: run 'where' or 'equiv' first");
    if (n == 0 || n > classes.size())
      return fail("there is no $equiv[" + std::to_string(n) + "]: the last 'where'/'equiv' found " +
                  std::to_string(classes.size()) + " class" + (classes.size() == 1 ? "" : "es"));
    return classes[n - 1];
  }

  Expected<RankSet> focusSet() override {
    if (names_.focus != nullptr && names_.focus->has_value()) return **names_.focus;
    return RankSet::all(jobSize());
  }

  Expected<RankSet> liveState(LiveState state) override {
    return select([&](const RankView& v) {
      const auto& s = v.status;
      switch (state) {
        case LiveState::Exited: return v.info.ended();
        case LiveState::Held: return !v.info.ended() && v.info.heldByGdb;
        case LiveState::Frozen: return s && s->state == proto::RankState::Frozen;
        case LiveState::Blocked: return s && s->state == proto::RankState::InMpi && blocked(*s);
        case LiveState::Running:
          return s && (s->state == proto::RankState::Running ||
                       (s->state == proto::RankState::InMpi && !blocked(*s)));
      }
      return false;
    });
  }

  Expected<RankSet> inCall(std::string_view function) override {
    if (ccs::cond::findFunction(function) == nullptr) return fail(ccs::cond::unknownFunction(function).message);
    return select([&](const RankView& v) {
      return v.status && v.status->state == proto::RankState::InMpi && v.status->call &&
             v.status->call->function == function;
    });
  }

  Expected<RankSet> atEntry(std::string_view entry) override {
    // The runtime's stop text ends in the safe point: "breakpoint 1 at entry
    // NAME", "frozen at entry NAME", "stepped to entry NAME".
    const std::string suffix = " entry " + std::string(entry);
    return select([&](const RankView& v) {
      return v.status && v.status->state == proto::RankState::Frozen && v.status->stop.ends_with(suffix);
    });
  }

  Expected<RankSet> objectQuery(const ObjectCondition& c) override { return ranksWhere(debugger_, c); }

 private:
  bool blocked(const proto::RankStatus& s) const {
    return s.call && waitsLong(*s.call, blockedAfter_);
  }

  /// The ranks whose view satisfies `pred` (live ranks only have a status:
  /// views of ended or held ranks carry none).
  template <typename Pred>
  Expected<RankSet> select(Pred pred) {
    if (!views_) views_ = debugger_.views();
    RankSet out;
    for (const auto& v : *views_)
      if ((v.info.ended() || v.info.heldByGdb || v.status) && pred(v)) out.insert(v.info.rank);
    return out;
  }

  Debugger& debugger_;
  RankNames names_;
  std::chrono::milliseconds blockedAfter_;
  std::optional<std::vector<RankView>> views_;
};

}  // namespace

Expected<RankSet> Debugger::ranks(std::string_view text, const RankNames& names,
                                  std::chrono::milliseconds blockedAfter) {
  if (!session_.hasJob()) return fail("no job (start one with: mpidbg -- mpiexec -n 4 ./app)");
  auto expr = RankExpr::parse(text);
  if (!expr) return std::unexpected(expr.error());
  JobResolver resolver(*this, names, blockedAfter);
  return expr->evaluate(resolver);
}

}  // namespace mpidbg::core
