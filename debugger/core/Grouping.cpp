#include "debugger/core/Grouping.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>

namespace mpidbg::core {

namespace {

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

/// The digits of a number must have at most this many characters, so every
/// one fits an int64 with room for the sign.
constexpr std::size_t kMaxDigits = 18;

/// The most hex digits of a hexadecimal number (64 bits).
constexpr std::size_t kMaxHexDigits = 16;

bool isHexNumber(std::string_view word) {
  if (word.size() < 3 || word.size() > 2 + kMaxHexDigits || word[0] != '0' || (word[1] != 'x' && word[1] != 'X'))
    return false;
  return std::all_of(word.begin() + 2, word.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

std::uint64_t hexValue(std::string_view word) {
  std::uint64_t value = 0;
  std::from_chars(word.data() + 2, word.data() + word.size(), value, 16);
  return value;
}

/// A text cut at its decimal and hexadecimal numbers: literals alternate with
/// numbers as in NumberTemplate; hex[i] tells number i's kind.
struct MixedTemplate {
  std::vector<std::string> literals;
  std::vector<bool> hex;
  std::vector<std::int64_t> decimals;  ///< one per decimal number, in order
  std::vector<std::string> hexes;      ///< one per hex number, as written
};

/// splitNumbers, then each literal cut again at its whole-word hex numbers.
MixedTemplate splitMixed(const std::string& text) {
  const NumberTemplate split = splitNumbers(text);
  MixedTemplate out;
  out.decimals = split.numbers;
  std::string literal;
  for (std::size_t l = 0; l < split.literals.size(); ++l) {
    const std::string& piece = split.literals[l];
    std::size_t i = 0;
    while (i < piece.size()) {
      if (!isWordChar(piece[i])) {
        literal += piece[i++];
        continue;
      }
      const std::size_t start = i;
      while (i < piece.size() && isWordChar(piece[i])) ++i;
      const std::string_view word(piece.data() + start, i - start);
      if (!isHexNumber(word)) {
        literal.append(word);
        continue;
      }
      out.literals.push_back(std::move(literal));
      literal.clear();
      out.hex.push_back(true);
      out.hexes.emplace_back(word);
    }
    if (l + 1 < split.literals.size()) {
      out.literals.push_back(std::move(literal));
      literal.clear();
      out.hex.push_back(false);
    }
  }
  out.literals.push_back(std::move(literal));
  return out;
}

void sortByFirstRank(std::vector<RankGroup>& groups) {
  std::sort(groups.begin(), groups.end(), [](const RankGroup& a, const RankGroup& b) {
    return a.ranks.first() < b.ranks.first();
  });
}

}  // namespace

std::vector<RankGroup> groupByText(const std::map<int, std::string>& textByRank) {
  std::map<std::string, RankSet> byText;
  for (const auto& [rank, text] : textByRank) byText[text].insert(rank);
  std::vector<RankGroup> groups;
  for (auto& [text, ranks] : byText) groups.push_back({std::move(ranks), text});
  sortByFirstRank(groups);
  return groups;
}

NumberTemplate splitNumbers(const std::string& text) {
  NumberTemplate out;
  std::string literal;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!isWordChar(text[i])) {
      literal += text[i++];
      continue;
    }
    // One word: a maximal run of letters, digits and '_'.
    const std::size_t start = i;
    while (i < text.size() && isWordChar(text[i])) ++i;
    const std::string_view word(text.data() + start, i - start);
    const bool allDigits = std::all_of(word.begin(), word.end(), isDigit);
    const bool fractionBefore = start >= 2 && text[start - 1] == '.' && isDigit(text[start - 2]);
    const bool fractionAfter = i + 1 < text.size() && text[i] == '.' && isDigit(text[i + 1]);
    const bool leadingZero = word.size() > 1 && word.front() == '0';
    if (!allDigits || fractionBefore || fractionAfter || leadingZero || word.size() > kMaxDigits) {
      literal.append(word);
      continue;
    }
    std::int64_t value = 0;
    std::from_chars(word.data(), word.data() + word.size(), value);
    // A '-' right before the digits is their sign unless it joins two operands.
    const bool minus = !literal.empty() && literal.back() == '-' &&
                       (start < 2 || !(isWordChar(text[start - 2]) || text[start - 2] == ')' ||
                                       text[start - 2] == ']'));
    if (minus && value == 0) {
      literal.append(word);  // "-0" would print as "0"
      continue;
    }
    if (minus) {
      literal.pop_back();
      value = -value;
    }
    out.literals.push_back(std::move(literal));
    literal.clear();
    out.numbers.push_back(value);
  }
  out.literals.push_back(std::move(literal));
  return out;
}

std::string describeValues(std::vector<std::int64_t> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (values.empty()) return "{}";
  if (values.size() == 1) return std::to_string(values.front());
  if (values.back() - values.front() + 1 == static_cast<std::int64_t>(values.size()))
    return "[" + std::to_string(values.front()) + ".." + std::to_string(values.back()) + "]";
  std::string out = "{";
  for (std::size_t i = 0; i < values.size();) {
    std::size_t j = i;
    while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
    if (out.size() > 1) out += ',';
    if (j - i >= 2) {
      out += std::to_string(values[i]) + ".." + std::to_string(values[j]);
    } else {
      for (std::size_t k = i; k <= j; ++k) out += (k > i ? "," : "") + std::to_string(values[k]);
    }
    i = j + 1;
  }
  return out + "}";
}

std::string describeHexValues(const std::vector<std::string>& spellings) {
  std::map<std::uint64_t, std::string> byValue;  // the first spelling of each value
  for (const std::string& s : spellings) byValue.emplace(hexValue(s), s);
  if (byValue.empty()) return "{}";
  if (byValue.size() == 1) return byValue.begin()->second;
  const std::uint64_t lo = byValue.begin()->first, hi = byValue.rbegin()->first;
  const std::string& loText = byValue.begin()->second;
  const std::string& hiText = byValue.rbegin()->second;
  if (hi - lo + 1 == byValue.size()) return "[" + loText + ".." + hiText + "]";
  if (byValue.size() > 4)
    return "{" + std::to_string(byValue.size()) + " values in " + loText + ".." + hiText + "}";
  std::string out = "{";
  for (const auto& [value, text] : byValue) out += (out.size() > 1 ? "," : "") + text;
  return out + "}";
}

std::vector<RankGroup> groupByValues(const std::map<int, std::string>& textByRank) {
  const std::vector<RankGroup> exact = groupByText(textByRank);
  // Buckets of groups whose texts share the literal parts around the numbers
  // and the kinds of those numbers.
  struct Bucket {
    std::vector<std::size_t> members;                 // indexes into `exact`
    std::vector<std::vector<std::int64_t>> decimals;  // [decimal position][member]
    std::vector<std::vector<std::string>> hexes;      // [hex position][member]
  };
  std::map<std::pair<std::vector<std::string>, std::vector<bool>>, Bucket> buckets;
  std::vector<RankGroup> out;
  for (std::size_t g = 0; g < exact.size(); ++g) {
    MixedTemplate split = splitMixed(exact[g].text);
    if (split.hex.empty()) {
      out.push_back(exact[g]);
      continue;
    }
    Bucket& bucket = buckets[{split.literals, split.hex}];
    if (bucket.members.empty()) {
      bucket.decimals.resize(split.decimals.size());
      bucket.hexes.resize(split.hexes.size());
    }
    bucket.members.push_back(g);
    for (std::size_t p = 0; p < split.decimals.size(); ++p) bucket.decimals[p].push_back(split.decimals[p]);
    for (std::size_t p = 0; p < split.hexes.size(); ++p) bucket.hexes[p].push_back(split.hexes[p]);
  }
  for (auto& [key, bucket] : buckets) {
    const auto& [literals, kinds] = key;
    if (bucket.members.size() == 1) {
      out.push_back(exact[bucket.members.front()]);
      continue;
    }
    RankGroup merged;
    for (std::size_t g : bucket.members) merged.ranks = merged.ranks | exact[g].ranks;
    std::size_t d = 0, h = 0;
    for (std::size_t p = 0; p < kinds.size(); ++p) {
      merged.text += literals[p];
      merged.text += kinds[p] ? describeHexValues(bucket.hexes[h++]) : describeValues(bucket.decimals[d++]);
    }
    merged.text += literals.back();
    out.push_back(std::move(merged));
  }
  sortByFirstRank(out);
  return out;
}

std::string renderGroups(const std::vector<RankGroup>& groups) {
  std::string out;
  for (const auto& g : groups) {
    std::string text = g.text;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    if (text.find('\n') == std::string::npos) {
      out += g.ranks.toString() + " " + text + "\n";
      continue;
    }
    out += g.ranks.toString() + ":\n";
    std::size_t pos = 0;
    while (pos <= text.size()) {
      const auto nl = text.find('\n', pos);
      const auto end = nl == std::string::npos ? text.size() : nl;
      out += "  " + text.substr(pos, end - pos) + "\n";
      if (nl == std::string::npos) break;
      pos = nl + 1;
    }
  }
  return out;
}

}  // namespace mpidbg::core
