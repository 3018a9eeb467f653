// Malformed MI lines must give an Error naming the offset, never a crash.

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <string_view>

#include "debugger/gdbmi/Parser.hpp"

using mpidbg::gdbmi::Parser;

namespace {

struct BadRow {
  std::string input;
  std::string_view messagePart;  // expected somewhere in the error message
};

std::string nested(char open, char close, std::size_t depth, std::string_view leaf) {
  std::string s = "^done,a=";
  for (std::size_t i = 0; i < depth; ++i) s += open == '{' ? "{a=" : "[";
  s += leaf;
  s.append(depth, close);
  return s;
}

}  // namespace

TEST_CASE("Parser rejects malformed MI lines with a positioned Error", "[gdbmi][parser]") {
  const BadRow rows[] = {
      {"", "empty line"},
      {"\n", "empty line"},
      {R"(~"unterminated)", "offset 1: unterminated c-string"},
      {R"(~"ends in a backslash\)", "unterminated c-string"},
      {R"(~"bad \q escape")", "offset 6: bad escape '\\q'"},
      {R"(^done,a="\400")", "octal escape above"},
      {R"(~"x" trailing)", "after the stream c-string"},
      {R"(~"x" "y")", "after the stream c-string"},
      {R"(^done,a="\x")", "offset 9: '\\x' without hex digits"},
      {R"(^done,a="\xg1")", "without hex digits"},
      {R"(^done,msg"x")", "offset 9: missing '=' after result name \"msg\""},
      {R"(^done,a={b="1")", "unbalanced '{'"},
      {R"(^done,a=[)", "offset 8: unbalanced '['"},
      {R"(^done,a={)", "offset 8: unbalanced '{'"},
      {R"(^done,a=["1")", "unbalanced '['"},
      {R"(^done,a={b="1"}})", "expected ',' before a result"},
      {R"(^done,a="1"])", "expected ',' before a result"},
      {R"(^done,a={b="1"])", "expected ',' or '}' in tuple"},
      {R"(^done,a=["1"})", "expected ',' or ']' in list"},
      {R"(^done,a=[b="1","2"])", "expected a result name"},
      {R"(^done,)", "expected a result name, found end of line"},
      {R"(^done,=1)", "expected a result name"},
      {R"(^done,a=)", "expected a value, found end of line"},
      {R"(^done,a=b)", "expected a value"},
      {"^", "missing record class"},
      {"12", "expected a record prefix"},
      {"hi \"there\"", "not an MI record"},
      {"garbage here", "not an MI record"},
      {"(gdb) x", "not an MI record"},
      {"99999999999999999999999^done", "token does not fit"},
      {std::string("^done,a=\"\0\xff", 11), "unterminated c-string"},
      {std::string("\xff\xfe", 2), "'\\xff'"},
      {nested('[', ']', 100000, "\"x\""), "nesting deeper than the limit"},
      {nested('{', '}', 100000, "\"x\""), "nesting deeper than the limit"},
      {nested('[', ']', Parser::kMaxDepth + 1, "\"x\""), "nesting deeper than the limit"},
  };
  for (const BadRow& row : rows) {
    INFO("input: " << row.input.substr(0, 80));
    auto record = Parser::parse(row.input);
    REQUIRE_FALSE(record.has_value());
    CHECK_THAT(record.error().message, Catch::Contains("MI parse error at offset"));
    CHECK_THAT(record.error().message, Catch::Contains(std::string(row.messagePart)));
  }
}

TEST_CASE("Parser accepts nesting up to the limit", "[gdbmi][parser]") {
  auto record = Parser::parse(nested('[', ']', Parser::kMaxDepth, "\"x\""));
  CHECK(record.has_value());
}

TEST_CASE("Parser survives random and mutated input", "[gdbmi][parser]") {
  const std::string seeds[] = {
      R"(*stopped,reason="breakpoint-hit",frame={func="f",args=[{name="n",value="3"}]},thread-id="1")",
      R"(^done,stack=[frame={level="0",addr="0x1"},frame={level="1"}],x=[],y={})",
      R"(~"a\tb\n\033\\\"")",
  };
  std::mt19937 rng(12345);
  const std::string alphabet = "{}[]=,\"\\^*+=~@&0123456789abc\n\t(gdb) \x01\xff";
  std::size_t parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string input = seeds[static_cast<std::size_t>(i) % std::size(seeds)];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !input.empty(); ++e) {
      const std::size_t at = rng() % input.size();
      const char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0:
          input[at] = c;
          break;
        case 1:
          input.insert(input.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        default:
          input.erase(at, 1 + rng() % 8);
          break;
      }
    }
    auto record = Parser::parse(input);
    if (record) {
      ++parsed;
      // Whatever parses must render back to something that parses equal.
      auto again = Parser::parse(record->toMi());
      REQUIRE(again.has_value());
      CHECK(*again == *record);
    } else {
      CHECK_FALSE(record.error().message.empty());
    }
  }
  CHECK(parsed > 0);
}
