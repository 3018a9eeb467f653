// libFuzzer target: the gdb/MI output parser (debugger/gdbmi/Parser.hpp).
// Any byte sequence must give a Record or a positioned Error, never a crash;
// whatever parses must render (Record::toMi) to a line that parses equal.
// The input is also split at newlines and each piece parsed, as Session
// feeds gdb's stdout to the parser one line at a time.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "FuzzCheck.hpp"
#include "debugger/gdbmi/Parser.hpp"

using mpidbg::gdbmi::Parser;
using mpidbg::gdbmi::Record;
using mpidbg::gdbmi::Value;

namespace {

/// Walks every value so accessors run on whatever shape was parsed.
std::size_t walk(const Value& value, std::size_t depth) {
  FUZZ_CHECK(depth <= Parser::kMaxDepth + 2);
  std::size_t count = 1;
  if (const auto* tuple = value.asTuple()) {
    for (const auto& r : tuple->results) {
      FUZZ_CHECK(tuple->get(r.name) != nullptr);
      count += walk(r.value, depth + 1);
    }
  } else if (const auto* list = value.asList()) {
    for (std::size_t i = 0; i < list->size(); ++i) count += walk(list->at(i), depth + 1);
  } else {
    FUZZ_CHECK(value.asString() != nullptr);
  }
  return count;
}

void checkLine(std::string_view line) {
  auto record = Parser::parse(line);
  if (!record) {
    FUZZ_CHECK(record.error().message.starts_with("MI parse error at offset "));
    return;
  }
  FUZZ_CHECK(!(record->isAsync() && record->isStream()));
  walk(Value{record->results}, 0);
  const std::string rendered = record->toMi();
  auto again = Parser::parse(rendered);
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(*again == *record);
  FUZZ_CHECK(again->toMi() == rendered);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  checkLine(text);
  if (text.find('\n') != std::string_view::npos) {
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      checkLine(text.substr(start, end - start));
      start = end + 1;
    }
  }
  return 0;
}
