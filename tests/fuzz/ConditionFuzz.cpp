// libFuzzer target: breakpoint conditions (ccs/condition/Condition.hpp), parsed in the
// front end and again in every rank. Any text must parse or give an error
// ("empty condition", "condition is longer than 1024 bytes", or "at column
// C: ..."), never crash; a parsed condition must validate against every MPI
// function without crashing and evaluate the same twice on the same call.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "FuzzCheck.hpp"
#include "ccs/condition/Condition.hpp"

using namespace mpidbg::ccs::cond;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto condition = Condition::parse(text);
  if (!condition) {
    const std::string& message = condition.error().message;
    FUZZ_CHECK(message == "empty condition" || message == "condition is longer than 1024 bytes" ||
               message.starts_with("at column "));
    return 0;
  }
  FUZZ_CHECK(!condition->clauses().empty());
  for (const FunctionInfo& function : functions()) (void)condition->validateFor(function.name);

  // A call whose argument values come from the input's first bytes.
  CallArgs args;
  for (std::size_t f = 0; f < kFieldCount; ++f) {
    const std::int64_t v = f < size ? static_cast<std::int8_t>(data[f]) : 0;
    if (f < size && (data[f] & 1)) args.set(static_cast<Field>(f), v);
  }
  args.predefined = size > 0 && (data[0] & 2) ? CallArgs::Predefined::World : CallArgs::Predefined::None;
  args.commName = "solver";
  FUZZ_CHECK(condition->evaluate(args) == condition->evaluate(args));
  return 0;
}
