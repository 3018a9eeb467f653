#include <catch2/catch.hpp>

#include "debugger/core/ObjectQuery.hpp"

using namespace mpidbg::core;

TEST_CASE("print targets: names, items, ranges and fields", "[core][objects]") {
  struct Row {
    const char* text;
    const char* list;
    int lo, hi;  // -1: none
    const char* field;
  };
  const Row rows[] = {
      {"grid", "grid", -1, -1, ""},
      {"grid.nx", "grid", -1, -1, ".nx"},
      {" grid.tile.cells[3] ", "grid", -1, -1, ".tile.cells[3]"},
      {"particles[3]", "particles", 3, 4, ""},
      {"particles[0:10]", "particles", 0, 10, ""},
      {"particles[2].x", "particles", 2, 3, ".x"},
      {"mpi/pending", "mpi/pending", -1, -1, ""},
      {"mpi/communicators[0].name", "mpi/communicators", 0, 1, ".name"},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    auto target = parseObjectTarget(row.text);
    REQUIRE(target.has_value());
    CHECK(target->list == row.list);
    CHECK(target->lo.value_or(-1) == row.lo);
    CHECK(target->hiPlus1.value_or(-1) == row.hi);
    CHECK(target->field == row.field);
  }
  const std::pair<const char*, const char*> bad[] = {
      {"", "print needs an object: a watched name (see 'lists'), e.g. 'print grid.nx'"},
      {"3grid", "bad object '3grid': a name starts with a letter or '_'"},
      {"grid.", "bad object 'grid.': a field name follows '.'"},
      {"grid[", "bad object 'grid[': an item index is a number >= 0"},
      {"grid[-1]", "bad object 'grid[-1]': an item index is a number >= 0"},
      {"grid[4:2]", "bad object 'grid[4:2]': a range [a:b] needs b > a"},
      {"grid[2", "bad object 'grid[2': '[' without ']'"},
      {"grid[0:5000]", "bad object 'grid[0:5000]': at most 1000 items at once"},
      {"grid.x[y]", "bad object 'grid.x[y]': an index is [N]"},
      {"grid x", "bad object 'grid x': unexpected ' '"},
      {"mpi/", "bad object 'mpi/': a name starts with a letter or '_'"},
      // Found by the command_line fuzz target: [i] is [i:i+1], which overflowed int32.
      {"particles[2147483647]", "bad object 'particles[2147483647]': an item index is at most 2147483646"},
  };
  for (const auto& [text, message] : bad) {
    INFO(text);
    auto target = parseObjectTarget(text);
    REQUIRE_FALSE(target.has_value());
    CHECK(target.error().message == message);
  }
}

TEST_CASE("the largest item index parses", "[core][objects]") {
  auto target = parseObjectTarget("particles[2147483646]");
  REQUIRE(target.has_value());
  CHECK(target->lo == 2147483646);
  CHECK(target->hiPlus1 == 2147483647);
}

TEST_CASE("fields merge as majority plus exceptions", "[core][objects]") {
  std::map<int, std::vector<std::pair<std::string, std::string>>> byRank;
  for (int r = 0; r < 64; ++r)
    byRank[r] = {{"grid.nx", r == 63 ? "127" : "128"}, {"grid.ny", "64"}};
  byRank[5].emplace_back("grid.extra", "1");  // only rank 5 has it
  const auto merged = mergeFields(byRank);
  REQUIRE(merged.size() == 3);
  CHECK(merged[0].path == "grid.nx");
  REQUIRE(merged[0].values.size() == 2);
  CHECK(merged[0].values[0].first == "128");
  CHECK(merged[0].values[0].second == RankSet::range(0, 62));
  CHECK(merged[0].values[1].first == "127");
  CHECK(merged[0].values[1].second == RankSet::range(63, 63));
  CHECK(merged[1].path == "grid.ny");
  REQUIRE(merged[1].values.size() == 1);
  CHECK(merged[1].values[0].second == RankSet::range(0, 63));
  CHECK(merged[2].path == "grid.extra");
  CHECK(merged[2].values[0].second == RankSet::range(5, 5));

  // Equal counts: the value of the lowest rank first.
  std::map<int, std::vector<std::pair<std::string, std::string>>> tie = {{0, {{"x", "b"}}}, {1, {{"x", "a"}}}};
  const auto tied = mergeFields(tie);
  CHECK(tied[0].values[0].first == "b");

  ObjectReport report;
  report.answered = RankSet::range(0, 63);
  report.fields = merged;
  report.failed[70] = "rank 70 has not registered";
  report.running = RankSet::range(2, 3);
  CHECK(renderObjectReport(report) ==
        "grid.nx = 128 on [0-62]; 127 on [63]\n"
        "grid.ny = 64\n"
        "grid.extra = 1 on [5]\n"
        "[70] rank 70 has not registered\n"
        "note: [2-3] read while running application code (best effort; 'freeze' for a consistent view)\n");
  const auto json = objectReportToJson(report);
  CHECK(json["fields"][0]["path"] == "grid.nx");
  CHECK(json["fields"][0]["values"][1]["ranks"] == "[63]");
  CHECK(json["fields"][0]["values"][1]["rank_list"] == nlohmann::json::array({63}));
  CHECK(json["failed"][0]["ranks"] == "[70]");
  CHECK(json["failed"][0]["error"] == "rank 70 has not registered");
  CHECK(json["running"]["rank_list"] == nlohmann::json::array({2, 3}));
}

TEST_CASE("runs of equal array elements are joined", "[core][objects]") {
  auto field = [](std::string path, std::string value, RankSet ranks) {
    return MergedField{std::move(path), {{std::move(value), std::move(ranks)}}};
  };
  const RankSet all = RankSet::range(0, 3);
  std::vector<MergedField> fields = {field("g.cells[0]", "0", all), field("g.cells[1]", "0", all),
                                     field("g.cells[2]", "0", all), field("g.cells[3]", "1.5", all),
                                     field("g.cells[4]", "0", all), field("g.cells[5]", "0", RankSet::range(0, 2)),
                                     field("g.n", "6", all),          field("h[0]", "0", all),
                                     field("h[2]", "0", all)};
  const auto joined = compressRuns(fields);
  std::vector<std::string> paths;
  for (const auto& f : joined) paths.push_back(f.path);
  CHECK(paths == std::vector<std::string>{"g.cells[0-2]", "g.cells[3]", "g.cells[4]", "g.cells[5]", "g.n", "h[0]",
                                          "h[2]"});
  CHECK(joined[0].values[0].first == "0");
}

TEST_CASE("conditions compare numbers as numbers, the rest as text", "[core][objects]") {
  CHECK(conditionHolds("127", "!=", "128"));
  CHECK_FALSE(conditionHolds("128", "!=", "128"));
  CHECK(conditionHolds("128", "==", "128.0"));
  CHECK(conditionHolds("9", "<", "10"));  // not "9" > "10" as text
  CHECK(conditionHolds("0.25", ">=", "0.25"));
  CHECK(conditionHolds("-3", "<=", "-2"));
  CHECK(conditionHolds("1", "==", "true"));
  CHECK(conditionHolds("jacobi", "==", "\"jacobi\""));
  CHECK(conditionHolds("jacobi", "==", "jacobi"));
  CHECK(conditionHolds("cg", "<", "jacobi"));
  CHECK_FALSE(conditionHolds("x", "~", "x"));
}
