// Table-driven test over real gdb 13 MI output: every "> LINE" row of
// MPIDBG_TEST_DATA_DIR/gdbmi/gdb13-records.txt (captured from the real gdb;
// the file says how) is parsed, and its kind, token, class, whole result
// shape, chosen values and stream text are compared with the row's
// expectations. Every record must also survive a toMi() round trip.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "debugger/gdbmi/CString.hpp"
#include "debugger/gdbmi/Parser.hpp"

using mpidbg::gdbmi::kindName;
using mpidbg::gdbmi::List;
using mpidbg::gdbmi::Parser;
using mpidbg::gdbmi::quoteCString;
using mpidbg::gdbmi::Record;
using mpidbg::gdbmi::Result;
using mpidbg::gdbmi::Tuple;
using mpidbg::gdbmi::Value;

namespace {

/// One "> LINE" of the data file with its expectation lines.
struct OutputRow {
  int lineNumber = 0;  ///< 1-based line of the "> " line in the file
  std::string input;
  std::vector<std::string> expectations;
};

std::vector<OutputRow> readRows(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<OutputRow> rows;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.starts_with("> ")) {
      rows.push_back({number, line.substr(2), {}});
    } else if (!line.empty() && !line.starts_with("#") && !rows.empty()) {
      rows.back().expectations.push_back(line);
    }
  }
  return rows;
}

std::string shapeOf(const Value& value);

std::string shapeOfItems(const std::vector<Result>& items) {
  std::string out;
  for (const Result& r : items) {
    if (!out.empty()) out += ',';
    if (!r.name.empty()) out += r.name + ":";
    out += shapeOf(r.value);
  }
  return out;
}

/// The data file's shape notation (see its header) of a value.
std::string shapeOf(const Value& value) {
  if (value.isString()) return "s";
  if (const Tuple* t = value.asTuple()) return "{" + shapeOfItems(t->results) + "}";
  return "[" + shapeOfItems(value.asList()->items) + "]";
}

/// The value at a dotted path: tuple members by name, list items by index.
const Value* at(const Record& record, std::string_view path) {
  const std::vector<Result>* items = &record.results.results;
  bool inList = false;
  const Value* here = nullptr;
  while (!path.empty()) {
    const std::size_t dot = path.find('.');
    const std::string_view part = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    const Value* next = nullptr;
    if (inList) {
      const std::size_t index = std::strtoul(std::string(part).c_str(), nullptr, 10);
      if (index < items->size()) next = &(*items)[index].value;
    } else {
      for (const Result& r : *items) {
        if (r.name == part) {
          next = &r.value;
          break;
        }
      }
    }
    if (next == nullptr) return nullptr;
    here = next;
    if (const Tuple* t = here->asTuple()) {
      items = &t->results;
      inList = false;
    } else if (const List* l = here->asList()) {
      items = &l->items;
      inList = true;
    } else if (!path.empty()) {
      return nullptr;  // a path through a c-string
    }
  }
  return here;
}

std::string tokenText(const Record& r) { return r.token ? std::to_string(*r.token) : "-"; }

/// Checks one expectation line against a successful parse; "" when it holds,
/// else what differs.
std::string check(const Record& record, const std::string& expectation) {
  const std::size_t space = expectation.find(' ');
  const std::string key = expectation.substr(0, space);
  const std::string want = space == std::string::npos ? "" : expectation.substr(space + 1);
  std::string got;
  if (key == "kind") {
    got = std::string(kindName(record.kind));
  } else if (key == "token") {
    got = tokenText(record);
  } else if (key == "class") {
    got = record.recordClass;
  } else if (key == "shape") {
    got = shapeOf(Value{record.results});
  } else if (key == "text") {
    got = quoteCString(record.text);
  } else if (key == "at") {
    const std::size_t eq = want.find(" = ");
    if (eq == std::string::npos) return "malformed 'at' line";
    const std::string path = want.substr(0, eq);
    const Value* v = at(record, path);
    if (v == nullptr) return "no value at " + path;
    if (!v->isString()) return path + " is not a c-string: " + v->toMi();
    got = path + " = " + quoteCString(*v->asString());
  } else if (key == "error") {
    return "parsed, but an error was expected";
  } else {
    return "unknown expectation '" + key + "'";
  }
  return got == want ? "" : "expected " + key + " " + want + "\n  got      " + key + " " + got;
}

}  // namespace

TEST_CASE("Parser reads every record of the real gdb 13 capture as recorded",
          "[gdbmi][parser][real]") {
  const std::string path = std::string(MPIDBG_TEST_DATA_DIR) + "/gdbmi/gdb13-records.txt";
  const std::vector<OutputRow> rows = readRows(path);
  INFO("data file " << path);
  REQUIRE(rows.size() >= 100);

  int kinds[8] = {};
  for (const OutputRow& row : rows) {
    INFO("line " << row.lineNumber << ": " << row.input);
    REQUIRE_FALSE(row.expectations.empty());
    auto record = Parser::parse(row.input);
    if (row.expectations.front().starts_with("error ")) {
      REQUIRE_FALSE(record.has_value());
      CHECK(record.error().message.starts_with(row.expectations.front().substr(6)));
      continue;
    }
    REQUIRE(record.has_value());
    ++kinds[static_cast<int>(record->kind)];
    for (const std::string& expectation : row.expectations) {
      INFO(expectation);
      CHECK(check(*record, expectation) == "");
    }
    // What gdb printed and what we would print for it parse the same.
    auto again = Parser::parse(record->toMi());
    REQUIRE(again.has_value());
    CHECK(*again == *record);
  }
  // The capture covers every kind a native gdb prints.
  using K = mpidbg::gdbmi::RecordKind;
  for (K k : {K::Result, K::ExecAsync, K::NotifyAsync, K::ConsoleStream, K::LogStream, K::Prompt}) {
    INFO("records of kind " << kindName(k));
    CHECK(kinds[static_cast<int>(k)] > 0);
  }
}

TEST_CASE("The real gdb 13 capture's key records have the fields mpidbg uses",
          "[gdbmi][parser][real]") {
  // Spot checks written by hand on the fields Session and GdbPool read.
  auto stopped = Parser::parse(
      R"(*stopped,reason="signal-received",signal-name="SIGSEGV",signal-meaning="Segmentation fault",frame={addr="0x00005555555551b4",func="main",args=[{name="argc",value="1"},{name="argv",value="0x7fffffffe788"}],file="b.c",fullname="/tmp/h3cap/b.c",line="9",arch="i386:x86-64"},thread-id="1",stopped-threads="all",core="1")");
  REQUIRE(stopped);
  CHECK(stopped->kind == mpidbg::gdbmi::RecordKind::ExecAsync);
  CHECK(*stopped->results.getString("signal-name") == "SIGSEGV");
  const Value* frame = stopped->results.get("frame");
  REQUIRE(frame != nullptr);
  REQUIRE(frame->get("args") != nullptr);
  CHECK(frame->get("args")->asList()->size() == 2);
  CHECK_FALSE(frame->get("args")->asList()->ofResults());
  CHECK(*frame->get("args")->asList()->at(1).asTuple()->getString("value") == "0x7fffffffe788");

  auto exited = Parser::parse(R"(=thread-group-exited,id="i1",exit-code="0")");
  REQUIRE(exited);
  CHECK(*exited->results.getString("exit-code") == "0");

  auto stack = Parser::parse(
      R"(6^done,stack=[frame={level="0",addr="0x0000555555555183",func="compute",file="prog.c",fullname="/tmp/h3cap/prog.c",line="12",arch="i386:x86-64"},frame={level="1",addr="0x0000555555555206",func="main",file="prog.c",fullname="/tmp/h3cap/prog.c",line="23",arch="i386:x86-64"}])");
  REQUIRE(stack);
  CHECK(stack->token == 6u);
  const List* frames = stack->results.get("stack")->asList();
  REQUIRE(frames != nullptr);
  CHECK(frames->ofResults());
  CHECK(frames->items[1].name == "frame");
  CHECK(*frames->at(1).asTuple()->getString("func") == "main");

  auto error = Parser::parse(R"(22^error,msg="No symbol \"nosuchvar\" in current context.")");
  REQUIRE(error);
  CHECK(*error->results.getString("msg") == "No symbol \"nosuchvar\" in current context.");

  auto console = Parser::parse(
      R"(~"6\tstatic const char *greeting = \"tab\\there \\\"quoted\\\"\\n\\001\\033end\";\n")");
  REQUIRE(console);
  CHECK(console->text ==
        "6\tstatic const char *greeting = \"tab\\there \\\"quoted\\\"\\n\\001\\033end\";\n");
}
