// libFuzzer target: the rank-set expression parser and evaluator
// (debugger/core/RankExpr.hpp). Any text must parse to an expression or give
// a positioned "bad rank set" error, never crash; whatever parses must print
// (toString) to a text that parses to the same canonical text and evaluates
// to the same set, and every set must lie within the job.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "FuzzCheck.hpp"
#include "debugger/core/RankExpr.hpp"

using mpidbg::Expected;
using mpidbg::fail;
using mpidbg::core::LiveState;
using mpidbg::core::ObjectCondition;
using mpidbg::core::RankExpr;
using mpidbg::core::RankSet;

namespace {

constexpr int kJobSize = 16;

/// A fixed job: every answer depends only on the question, so evaluating the
/// same expression twice must give the same result.
class Resolver final : public mpidbg::core::RankExprResolver {
 public:
  int jobSize() const override { return kJobSize; }
  Expected<RankSet> namedSet(std::string_view name) override {
    if (name == "S") return RankSet::range(0, 3);
    if (name == "T") return RankSet::range(2, 9);
    return fail("unknown rank set name '" + std::string(name) + "'");
  }
  Expected<RankSet> equivalenceClass(std::size_t n) override {
    if (n > 3) return fail("there is no such class");
    return RankSet::range(static_cast<int>(n), static_cast<int>(n) * 4);
  }
  Expected<RankSet> focusSet() override { return RankSet::range(4, 7); }
  Expected<RankSet> liveState(LiveState state) override {
    const int k = static_cast<int>(state);
    return RankSet::range(k * 3, k * 3 + 2);
  }
  Expected<RankSet> inCall(std::string_view function) override {
    FUZZ_CHECK(!function.empty());
    if (function.size() % 3 == 0) return fail("unknown MPI function");
    return RankSet::range(static_cast<int>(function.size() % kJobSize), kJobSize - 1);
  }
  Expected<RankSet> atEntry(std::string_view entry) override {
    FUZZ_CHECK(!entry.empty());
    return RankSet::range(0, static_cast<int>(entry.size() % kJobSize));
  }
  Expected<RankSet> objectQuery(const ObjectCondition& c) override {
    FUZZ_CHECK(!c.path.empty() && !c.op.empty() && !c.value.empty());
    return fail("object inspection is not available yet (issue 8)");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto expr = RankExpr::parse(text);
  if (!expr) {
    const std::string& message = expr.error().message;
    FUZZ_CHECK(message.starts_with("bad rank set '") || message.starts_with("empty rank set"));
    FUZZ_CHECK(message.starts_with("empty rank set") || message.find(" at column ") != std::string::npos);
    return 0;
  }
  FUZZ_CHECK(expr->text() == text);
  const std::string canonical = expr->toString();
  if (canonical.size() > RankExpr::kMaxLength) return 0;  // blanks added around operators
  auto again = RankExpr::parse(canonical);
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(again->toString() == canonical);
  FUZZ_CHECK(again->usesLiveState() == expr->usesLiveState());

  Resolver resolver;
  auto value = expr->evaluate(resolver);
  auto valueAgain = again->evaluate(resolver);
  FUZZ_CHECK(value.has_value() == valueAgain.has_value());
  if (value) {
    FUZZ_CHECK(*value == *valueAgain);
    for (int rank : *value) FUZZ_CHECK(rank >= 0 && rank < kJobSize);
  } else {
    FUZZ_CHECK(!value.error().message.empty());
  }
  return 0;
}
