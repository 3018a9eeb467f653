// The `.fmt` decoder (ccs/proto/PupFmt.hpp): capture 05c, fmtWriter output of
// every supported type, lenient shapes, and hostile input.
#include <catch2/catch.hpp>
#include <map>

#include "PupTypes.hpp"
#include "ccs/proto/PupFmt.hpp"

using namespace pup_test;
namespace pupfmt = mpidbg::ccs::pupfmt;
using Kind = pupfmt::Node::Kind;

static_assert(PUP::sync::beginArray == pupfmt::sync::beginArray);
static_assert(PUP::sync::endArray == pupfmt::sync::endArray);
static_assert(PUP::sync::item == pupfmt::sync::item);
static_assert(PUP::sync::beginObject == pupfmt::sync::beginObject);
static_assert(PUP::sync::endObject == pupfmt::sync::endObject);
static_assert(PUP::sync::endSystem == pupfmt::sync::endSystem);

namespace {

std::vector<std::uint8_t> hex(const std::string& text) {
  std::vector<std::uint8_t> out;
  REQUIRE(mpidbg::ccs::test::decodeHex(text, out));
  return out;
}

template <class T>
std::vector<std::uint8_t> fmtOf(T& value) {
  PUP::fmtWriter w;
  w | value;
  return w.bytes();
}

std::map<std::string, std::string> flatMap(const pupfmt::Node& node, std::string_view prefix = "") {
  std::map<std::string, std::string> out;
  for (auto& [path, value] : pupfmt::flatten(node, prefix)) out[path] = value;
  return out;
}

const std::string B = "0b71100000", E = "0b72100000", I = "0b70110000";
const std::string BO = "0b71300000", EO = "0b72300000";

}  // namespace

TEST_CASE("pup fmt decode of capture 05c gives a List of 4 entries", "[pup]") {
  auto reply = replyData("05c_list_items_fmt_charm_entries_0_4.txt");
  REQUIRE(reply.size() == 338);
  auto node = pupfmt::decode(reply);
  REQUIRE(node.has_value());
  CHECK(node->kind == Kind::List);
  REQUIRE(node->children.size() == 4);
  for (const auto& item : node->children) {
    CHECK(item.kind == Kind::Object);
    REQUIRE(item.children.size() == 5);
    CHECK(item.children[0].label == "name");
    CHECK(item.children[0].kind == Kind::String);
  }

  auto flat = pupfmt::flatten(*node, "");
  REQUIRE(flat.size() == 20);
  CHECK(flat[0] == std::pair<std::string, std::string>{"[0].name", "dummy_thread_ep"});
  CHECK(flat[1] == std::pair<std::string, std::string>{"[0].index", "0"});
  CHECK(flat[4] == std::pair<std::string, std::string>{"[0].inCharm", "1"});
  CHECK(flat[5] == std::pair<std::string, std::string>{"[1].name", "dummy_pack_ep"});
  CHECK(flat[15] == std::pair<std::string, std::string>{"[3].name", "SDAG_RTS"});
  CHECK(flat[18] == std::pair<std::string, std::string>{"[3].chareIdx", "3"});
  CHECK(pupfmt::flatten(*node, "entries")[0].first == "entries[0].name");

  std::string tree = pupfmt::renderTree(*node);
  CHECK(tree.starts_with(
      "[0]:\n  name = \"dummy_thread_ep\"\n  index = 0\n  msgIdx = 0\n  chareIdx = 0\n"
      "  inCharm = 1\n[1]:\n"));
}

namespace {
struct Grid {
  int nx = 0;
  std::vector<double> cells;
  void pup(PUP::er& p) {
    PUP(nx);
    PUP(cells);
  }
};
struct Sim {
  Grid grid;
  std::vector<Particle> particles;
  void pup(PUP::er& p) {
    PUP(grid);
    PUP(particles);
  }
};
}  // namespace

TEST_CASE("pup fmt decode gives field paths for nested objects", "[pup]") {
  Sim sim;
  sim.grid = {4, {0.5, 1.5, 2.5, 3.25}};
  sim.particles = {{1, 2, 10}, {3, 4, 11}, {5.5, 6, 12}};
  auto node = pupfmt::decode(fmtOf(sim));
  REQUIRE(node.has_value());
  CHECK(node->kind == Kind::Object);
  auto flat = flatMap(*node);
  CHECK(flat.at("grid.nx") == "4");
  CHECK(flat.at("grid.cells[3]") == "3.25");
  CHECK(flat.at("particles[2].x") == "5.5");
  CHECK(flat.at("particles[2].id") == "12");
  CHECK(flat.size() == 1 + 4 + 3 * 3);

  CHECK(pupfmt::renderTree(*node) ==
        "grid:\n"
        "  nx = 4\n"
        "  cells: 4 items\n"
        "    [0] = 0.5\n"
        "    [1] = 1.5\n"
        "    [2] = 2.5\n"
        "    [3] = 3.25\n"
        "particles: 3 items\n"
        "  [0]:\n    x = 1\n    y = 2\n    id = 10\n"
        "  [1]:\n    x = 3\n    y = 4\n    id = 11\n"
        "  [2]:\n    x = 5.5\n    y = 6\n    id = 12\n");
}

TEST_CASE("pup fmt decode of every supported type", "[pup]") {
  Everything e = filled();
  auto node = pupfmt::decode(fmtOf(e));
  REQUIRE(node.has_value());
  auto flat = flatMap(*node);
  const std::pair<std::string, std::string> expected[] = {
      {"b", "1"},
      {"c", "q"},
      {"sc", "251"},  // type 0 carries no sign: a single byte reads as 0..255
      {"uc", "250"},
      {"s", "-30000"},
      {"us", "65000"},
      {"u", "4000000000"},
      {"l", "-9000000000000000000"},
      {"ul", "-446744073709551616"},  // above INT64_MAX: the int64 bit pattern
      {"i8", "128"},
      {"u64", "-81985529216486896"},
      {"f", "0.1"},
      {"d", "-2.5e-300"},
      {"ld", "0.3333333333333333"},
      {"c32", "128512"},
      {"color", "7"},
      {"plain", "100000"},
      {"byte", "171"},
      {"str", "68656c6c6f00776f726c64202271756f746564220a"},  // embedded NUL: Bytes
      {"emptyStr", ""},
      {"vi[1]", "-2"},
      {"emptyVi", "[]"},
      {"vb[1]", "0"},
      {"vs[0]", ""},
      {"vs[2]", "bc"},
      {"vvd[0]", "[]"},
      {"vvd[2][1]", "3.5"},
      {"vp[1].id", "6"},
      {"lp[0].y", "8"},
      {"m[1].key", "two"},
      {"m[1].value", "2"},
      {"mm[0].key", "0"},
      {"mm[2].value", "b"},
      {"ai[2]", "30"},
      {"ap[1].x", "2"},
      {"carr[3]", "4"},
      {"grid2[1][2]", "12.5"},
      {"pr.first", "5"},
      {"pr.second", "five"},
      {"tup.1", "6.5"},
      {"oi[0]", "77"},
      {"onone", "[]"},
      {"op[0].id", "8"},
      {"fr.a", "9"},
      {"fr.s", "nine"},
      {"nested[0].value", "[]"},
      {"nested[1].value[0].z", ""},  // no such field: checked absent below
      {"single.y", "4"},
  };
  for (const auto& [path, value] : expected) {
    INFO(path);
    if (path == "nested[1].value[0].z") {
      CHECK(flat.count(path) == 0);
      continue;
    }
    REQUIRE(flat.count(path) == 1);
    CHECK(flat.at(path) == value);
  }
  CHECK(flat.at("nested[1].value[0].x") == "1");
}

TEST_CASE("pup fmt decode of scalar kinds", "[pup]") {
  struct Row {
    const char* name;
    std::string hex;
    Kind kind;
    std::string value;
  };
  const Row rows[] = {
      {"int32", "02ffffffff", Kind::Scalar, "-1"},
      {"int64", "038000000000000000", Kind::Scalar, "-9223372036854775808"},
      {"float", "053dcccccd", Kind::Scalar, "0.1"},
      {"double", "063fb999999999999a", Kind::Scalar, "0.1"},
      {"pointer", "0c00007ffd12345678", Kind::Pointer, "0x7ffd12345678"},
      {"null pointer", "0c0000000000000000", Kind::Pointer, "0x0"},
      {"text", "1003616263", Kind::String, "abc"},
      {"text with trailing NULs", "1004616200 00", Kind::String, "ab"},
      {"binary bytes", "100301ff02", Kind::Bytes, "01ff02"},
      {"single byte", "0041", Kind::Scalar, "65"},
  };
  for (const auto& row : rows) {
    INFO(row.name);
    std::string clean;
    for (char c : row.hex)
      if (c != ' ') clean += c;
    auto node = pupfmt::decode(hex("1a0176" + clean));  // labelled "v"
    REQUIRE(node.has_value());
    REQUIRE(node->children.size() == 1);
    CHECK(node->children[0].label == "v");
    CHECK(node->children[0].kind == row.kind);
    CHECK(node->children[0].value == row.value);
  }
}

TEST_CASE("pup fmt decode of lenient shapes", "[pup]") {
  struct Row {
    const char* name;
    std::string hex;
    std::vector<std::pair<std::string, std::string>> flat;
  };
  const Row rows[] = {
      {"empty reply", "", {{"", "{}"}}},
      {"top-level fields", "1a01610200000001" "0200000002", {{"a", "1"}, {"#1", "2"}}},
      {"labelled top-level object stays a field", "1a0167" + BO + "1a01780200000001" + EO,
       {{"g.x", "1"}}},
      {"counted int32 array", "1a0176" "12020000000100000002", {{"v[0]", "1"}, {"v[1]", "2"}}},
      {"value before the first item", B + "0200000001" + I + "0200000002" + E,
       {{"[0]", "1"}, {"[1]", "2"}}},
      {"comment before the first item labels the array",
       B + "1a056172726179" + I + "0200000005" + E, {{"array[0]", "5"}}},
      {"empty items", B + I + I + E, {{"[0]", "{}"}, {"[1]", "{}"}}},
      {"nested CpdList is an array", BO + B + "1a074370644c697374" + I + "0200000001" + E + EO,
       {{"CpdList[0]", "1"}}},
      {"unknown syncs, endSystem and stray items are skipped",
       "0b79000000" "0b70110000" "0b12345678" "0200000003", {{"#0", "3"}}},
      {"counted sync record", "1b02" + B.substr(2) + E.substr(2), {{"", "[]"}}},
      {"dangling comment", "1a0178", {{"", "{}"}}},
  };
  for (const auto& row : rows) {
    INFO(row.name);
    auto node = pupfmt::decode(hex(row.hex));
    REQUIRE(node.has_value());
    CHECK(pupfmt::flatten(*node, "") == row.flat);
  }
}

TEST_CASE("pup fmt decode errors", "[pup]") {
  std::string deep, deepEnds;
  for (std::size_t i = 0; i < pupfmt::kMaxDepth; ++i) {
    deep += BO;
    deepEnds += EO;
  }
  REQUIRE(pupfmt::decode(hex(deep + deepEnds)).has_value());

  struct Row {
    const char* name;
    std::string hex;
    std::string message;
  };
  const Row rows[] = {
      {"truncated int32", "020000", "truncated at byte 0: int32 needs 4 bytes, 2 remain"},
      {"truncated after a good record", "0200000001" "06", "truncated at byte 5"},
      {"truncated one-byte count", "10", "the count needs 1 byte(s)"},
      {"truncated four-byte count", "220000", "the count needs 4 byte(s)"},
      {"bad intro bits 7-6", "40", "bad intro byte 0x40 at byte 0"},
      {"count width 3", "3200000000", "bad intro byte 0x32"},
      {"unknown type 1", "01", "unknown type 1 at byte 0"},
      {"unknown type 15", "0200000000" "0f", "unknown type 15 at byte 5"},
      {"count past the end", "22ffffffff00", "counts 4294967295 int32 item(s) but only 1 bytes remain"},
      {"comment count past the end", "1a0561", "counts 5 comment item(s)"},
      {"string count past the end", "10ff616263", "counts 255 byte item(s)"},
      {"unclosed array", B + I, "1 array(s) or object(s) still open"},
      {"end without begin", E, "end-array sync at byte 0 has no matching begin"},
      {"end object closes an array", B + EO, "end-object sync at byte 5 closes an open array"},
      {"end array closes an object", BO + E, "closes an open object"},
      {"too deep", deep + BO + deepEnds + EO, "deeper than 64 levels"},
  };
  for (const auto& row : rows) {
    INFO(row.name);
    auto node = pupfmt::decode(hex(row.hex));
    REQUIRE_FALSE(node.has_value());
    CHECK_THAT(node.error().message, Catch::Contains(row.message));
  }
}

TEST_CASE("pup fmt renderTree shapes", "[pup]") {
  pupfmt::Node leaf{"answer", Kind::Scalar, "42", {}};
  CHECK(pupfmt::renderTree(leaf) == "answer = 42\n");
  pupfmt::Node empty;
  CHECK(pupfmt::renderTree(empty) == "{}\n");
  pupfmt::Node labelled{"grid", Kind::Object, "", {{"", Kind::String, "a\"b\n", {}},
                                                    {"cells", Kind::Array, "", {}},
                                                    {"bad\x1b", Kind::Object, "", {}}}};
  CHECK(pupfmt::renderTree(labelled) ==
        "grid:\n  #0 = \"a\\\"b\\n\"\n  cells: []\n  bad\\x1b: {}\n");
  CHECK(pupfmt::flatten(labelled, "") ==
        std::vector<std::pair<std::string, std::string>>{
            {"#0", "a\"b\n"}, {"cells", "[]"}, {"bad\x1b", "{}"}});
}
