#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "debugger/gdbmi/CString.hpp"
#include "debugger/gdbmi/Parser.hpp"

using mpidbg::gdbmi::escapeCString;
using mpidbg::gdbmi::quoteCString;

TEST_CASE("escapeCString escapes what MI c-strings need", "[gdbmi][cstring]") {
  const struct {
    std::string_view input;
    std::string_view expected;
  } rows[] = {
      {"bt", "bt"},
      {"print \"a\\b\"", R"(print \"a\\b\")"},
      {"a\nb\tc\rd", R"(a\nb\tc\rd)"},
      {std::string_view("\x01\x1b\x7f", 3), R"(\001\033\177)"},
      {"caf\xc3\xa9", "caf\xc3\xa9"},
      {"", ""},
  };
  for (const auto& row : rows) {
    CHECK(escapeCString(row.input) == row.expected);
    CHECK(quoteCString(row.input) == "\"" + std::string(row.expected) + "\"");
    // The parser decodes what the escaper produced.
    auto record = mpidbg::gdbmi::Parser::parse("~" + quoteCString(row.input));
    REQUIRE(record);
    CHECK(record->text == row.input);
  }
}
