// memberValues reads an object's bytes as this test binary's own DWARF
// describes its type (the way mpidbg shows the raw element memory Charm++'s
// charm/arrayElements list sends).

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <map>

#include "debugger/core/mqs/DwarfValues.hpp"
#include "debugger/core/mqs/SymbolSource.hpp"

using mpidbg::core::mqs::memberValues;
using mpidbg::core::mqs::SymbolSource;

enum class DwarfValuesPhase { Idle = 0, Passing = 3 };
struct DwarfValuesInner {
  short dx;
  unsigned char flags;
};

struct DwarfValuesBase {
  long hidden = 99;  // a base class: left out
};

struct DwarfValuesCell : DwarfValuesBase {
  int hits = -7;
  bool alive = true;
  double sum = 2.5;
  float ratio = 0.25F;
  DwarfValuesPhase phase = DwarfValuesPhase::Passing;
  DwarfValuesInner inner{-3, 200};
  int history[3] = {1, 2, 3};
  char big[64] = {};  // more than 16 elements: left out
  const void* next = reinterpret_cast<const void*>(0x1234);
  unsigned bits : 3 = 5;  // a bit field: left out
  static int shared;      // static: left out
};
int DwarfValuesCell::shared = 0;

TEST_CASE("memberValues decodes an object's bytes by its DWARF type", "[mqshost][dwarf]") {
  DwarfValuesCell cell;
  auto symbols = SymbolSource::fromProcess(::getpid());
  REQUIRE(symbols);
  const auto* type = symbols->findType("DwarfValuesCell");
  REQUIRE(type != nullptr);
  std::vector<std::uint8_t> bytes(sizeof cell);
  std::memcpy(bytes.data(), &cell, sizeof cell);
  const auto values = memberValues(type->die, bytes);
  std::map<std::string, std::string> byPath(values.begin(), values.end());
  CHECK(byPath["hits"] == "-7");
  CHECK(byPath["alive"] == "true");
  CHECK(byPath["sum"] == "2.5");
  CHECK(byPath["ratio"] == "0.25");
  CHECK(byPath["phase"] == "Passing");
  CHECK(byPath["inner.dx"] == "-3");
  CHECK(byPath["inner.flags"] == "200");
  CHECK(byPath["history[0]"] == "1");
  CHECK(byPath["history[2]"] == "3");
  CHECK(byPath["next"] == "0x1234");
  CHECK_FALSE(byPath.contains("hidden"));
  CHECK_FALSE(byPath.contains("big[0]"));
  CHECK_FALSE(byPath.contains("bits"));
  CHECK_FALSE(byPath.contains("shared"));
  // In declaration order.
  REQUIRE_FALSE(values.empty());
  CHECK(values.front().first == "hits");

  // Bytes cut short: members past the end are left out, not read beyond it.
  const auto sumOffset = reinterpret_cast<const std::uint8_t*>(&cell.sum) - reinterpret_cast<const std::uint8_t*>(&cell);
  std::vector<std::uint8_t> shortBytes(bytes.begin(), bytes.begin() + sumOffset);
  std::map<std::string, std::string> cut;
  for (const auto& [path, value] : memberValues(type->die, shortBytes)) cut[path] = value;
  CHECK(cut["hits"] == "-7");
  CHECK_FALSE(cut.contains("sum"));
  CHECK_FALSE(cut.contains("next"));
}

TEST_CASE("memberValues gives nothing for a type that is not a structure", "[mqshost][dwarf]") {
  auto symbols = SymbolSource::fromProcess(::getpid());
  REQUIRE(symbols);
  const auto* type = symbols->findType("int");
  REQUIRE(type != nullptr);
  const std::uint8_t bytes[4] = {1, 0, 0, 0};
  CHECK(memberValues(type->die, bytes).empty());
}
