// The encoders and decoders ccs/proto/Message.hpp derives from a field list
// (ccs/proto/Field.hpp), on a message of this test's own: string lengths,
// spelled enums and bools, a rule across fields, Records replies.
#include <catch2/catch.hpp>

#include <array>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ccs/proto/Field.hpp"
#include "ccs/proto/Message.hpp"

using namespace mpidbg::ccs::proto;

namespace {

enum class Shade : std::uint8_t { Red, Green, Blue };
constexpr std::array<std::string_view, 3> kShadeNames = {"red", "green", "blue"};
enum class Day : std::uint8_t { Mon, Tue, Wed, Thu, Fri, Sat, Sun };
constexpr std::array<std::string_view, 7> kDayNames = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};
constexpr std::array<std::string_view, 2> kVerdictNames = {"no", "yes"};

/// A message with one field of each checked kind.
struct Probe {
  std::string label;
  Shade shade = Shade::Red;
  Day day = Day::Mon;
  bool agreed = false;
  std::string why;

  static constexpr std::string_view kName = "probe";
  static constexpr bool kListItem = true;
  static constexpr auto fields() {
    using T = Probe;
    return std::tuple{field("label", &T::label).notEmpty().atMost(8),
                      field("shade", &T::shade).names(kShadeNames),
                      field("day", &T::day).names(kDayNames),
                      field("agreed", &T::agreed).names(kVerdictNames),
                      field("why", &T::why).orDefault()};
  }
  /// A refusal says why.
  static mpidbg::Expected<void> check(const Probe& p) {
    if (!p.agreed && p.why.empty()) return mpidbg::fail("a refusal has no reason");
    return {};
  }
};

}  // namespace

TEST_CASE("derived codecs: spelled bools and enums, string lengths, a rule across fields", "[ccs][proto]") {
  const Probe probe{"abc", Shade::Blue, Day::Sun, true, ""};
  const std::string bytes = encodeRecord(probe);
  CHECK(bytes == "label=abc\nshade=blue\nday=sun\nagreed=yes\nwhy=\n--\n");
  auto back = decodeRecord<Probe>(bytes);
  REQUIRE(back);
  CHECK(back->shade == Shade::Blue);
  CHECK(back->day == Day::Sun);
  CHECK(back->agreed);
  CHECK(decodeRecord<Probe>("label=a\nshade=red\nday=mon\nagreed=no\nwhy=busy\n")->why == "busy");

  struct Row {
    std::string text;
    std::string error;
  };
  const Row rows[] = {
      {"label=\nshade=red\nday=mon\nagreed=yes\n", "bad probe: key 'label' is empty"},
      {"label=123456789\nshade=red\nday=mon\nagreed=yes\n", "bad probe: key 'label' is longer than 8 bytes"},
      {"label=a\nshade=pink\nday=mon\nagreed=yes\n", "bad probe: key 'shade' must be red, green or blue, not 'pink'"},
      // Past six spellings the error does not list them.
      {"label=a\nshade=red\nday=someday\nagreed=yes\n", "bad probe: key 'day' has an unknown value 'someday'"},
      {"label=a\nshade=red\nday=mon\nagreed=1\n", "bad probe: key 'agreed' must be no or yes, not '1'"},
      {"label=a\nshade=red\nday=mon\nagreed=no\n", "bad probe: a refusal has no reason"},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    auto decoded = decodeRecord<Probe>(row.text);
    REQUIRE_FALSE(decoded);
    CHECK(decoded.error().message == row.error);
  }
  // The rule applies to every record of a list too.
  auto listed = decodeRecords<Probe>(bytes + "label=b\nshade=red\nday=mon\nagreed=no\n--\n", "probes");
  REQUIRE_FALSE(listed);
  CHECK(listed.error().message == "bad probe 1: a refusal has no reason");
}

TEST_CASE("a Records reply: every record followed by a separator, none for no records", "[ccs][proto]") {
  const Records<Probe> two{{Probe{"a", Shade::Red, Day::Mon, true, ""}, Probe{"b", Shade::Green, Day::Tue, false, "no"}}};
  const std::string bytes = encodeReply(two);
  CHECK(bytes == "label=a\nshade=red\nday=mon\nagreed=yes\nwhy=\n--\n"
                 "label=b\nshade=green\nday=tue\nagreed=no\nwhy=no\n--\n");
  auto back = decodeRecords<Probe>(bytes, "probes");
  REQUIRE(back);
  REQUIRE(back->size() == 2);
  CHECK((*back)[1].why == "no");
  CHECK(encodeReply(Records<Probe>{}).empty());
}
