#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "debugger/core/RankSet.hpp"

namespace mpidbg::core {

/// Ranks that produced the same text, and that text.
struct RankGroup {
  RankSet ranks;
  std::string text;
};

/// Groups identical texts: one RankGroup per distinct text, ordered by the
/// group's lowest rank.
std::vector<RankGroup> groupByText(const std::map<int, std::string>& textByRank);

/// A text cut at its numbers: `literals` and `numbers` alternate, starting
/// and ending with a literal, so literals.size() == numbers.size() + 1.
/// "x = 3, y = -4" -> literals {"x = ", ", y = ", ""}, numbers {3, -4}.
struct NumberTemplate {
  std::vector<std::string> literals;
  std::vector<std::int64_t> numbers;
};

/// Splits `text` at its decimal integers. A number is a run of digits that
/// is a whole word (not touching a letter, digit or '_': `0x1f`, `i1`,
/// `rank3`, `2nd` stay text), not part of a decimal fraction or version
/// (`1.5`, `13.1` stay text; the sentence end in `line 12.` does not count),
/// without a leading zero (`007` stays text, `0` is a number), and of at
/// most 18 digits. A '-' right before it is its sign when the '-' starts the
/// text or follows a character that is not a letter, digit, '_', ')' or ']'
/// (`x = -3` is -3, `5-3` is 5 and 3); `-0` stays text. Joining literals and
/// numbers in order gives `text` back exactly.
NumberTemplate splitNumbers(const std::string& text);

/// The value-range notation for a set of integers (any order, duplicates
/// ignored; must not be empty): one value as itself ("7"); consecutive
/// values as "[lo..hi]" ("[0..63]"); otherwise a set in braces, runs of
/// three or more consecutive values as "lo..hi" ("{1,4,9}", "{0..3,7}",
/// "{-2,0,5..9}").
std::string describeValues(std::vector<std::int64_t> values);

/// The notation for a set of hexadecimal numbers (addresses and the like),
/// each as written ("0x7ffd1234", "0x00007f3b2c1d4e5f"; must not be empty):
/// one value as written; consecutive values as "[0x10..0x13]"; up to four
/// values as a set in increasing order ("{0x7f01,0x7f3a}"); more as
/// "{N values in 0xLO..0xHI}" (their order by rank is not kept anyway).
std::string describeHexValues(const std::vector<std::string>& spellings);

/// Groups like groupByText, then merges the groups whose texts differ only
/// in numbers: decimal integers as splitNumbers finds them, and hexadecimal
/// numbers ("0x" and 1 to 16 hex digits, a whole word), which differ from run
/// to run (addresses under ASLR) and are shown with describeHexValues; same
/// literal text around the numbers, the same count and kinds of numbers. A merged group's text has, at each
/// number position, the one value all its texts share, or describeValues of
/// the values they have there (which rank had which value is not kept):
/// ranks 0..63 printing "x = 0".."x = 63" give one group "[0-63]" with text
/// "x = [0..63]". Texts without numbers, and texts whose template no other
/// text shares, are kept as groupByText gives them. Ordered by lowest rank.
std::vector<RankGroup> groupByValues(const std::map<int, std::string>& textByRank);

/// Renders groups one per line as `[0-1,3] text`. A multi-line text is
/// printed as a `[ranks]:` header followed by its lines indented by two
/// spaces. Ends with a newline unless empty.
std::string renderGroups(const std::vector<RankGroup>& groups);

}  // namespace mpidbg::core
