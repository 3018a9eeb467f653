// Charm++'s CCS key file: `<level> <key>` lines, keys read as decimal or hex pairs.
#include "ccs/transport/CharmKeyFile.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <vector>

#include "ccs/transport/Socket.hpp"

namespace mpidbg::ccs {
namespace {

/// Largest key file read (a real one has a few lines).
constexpr std::size_t kMaxKeyFileBytes = 1u << 20;

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

int digitValue(char c, KeyDigits digits) {
  if (c >= '0' && c <= '9') return c - '0';
  if (digits == KeyDigits::Hex) {
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  }
  return -1;
}

}  // namespace

const CharmKey* CharmKeyTable::find(std::uint8_t level) const {
  auto it = keys.find(level);
  return it == keys.end() ? nullptr : &it->second;
}

Expected<CharmKey> parseCharmKey(std::string_view text, KeyDigits digits) {
  CharmKey key{};
  if (digits == KeyDigits::Decimal) {
    auto hexDigit = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
    if (text.size() < 2 || !hexDigit(text[0]) || !hexDigit(text[1]))
      return fail("CCS key '" + std::string(text) +
                  "' does not start with two hex digits (Charm++'s server refuses it too)");
    // sscanf("%d") on each pair of characters (KeyDigits::Decimal).
    for (std::size_t i = 0; i < kCharmKeyBytes && 2 * i < text.size(); ++i) {
      const char first = text[2 * i];
      const char second = 2 * i + 1 < text.size() ? text[2 * i + 1] : '0';
      auto decimal = [](char c) { return c >= '0' && c <= '9'; };
      int value = 0;
      if (decimal(first))
        value = decimal(second) ? (first - '0') * 10 + (second - '0') : first - '0';
      else if ((first == '-' || first == '+') && decimal(second))
        value = first == '-' ? -(second - '0') : second - '0';
      else
        break;
      key[i] = static_cast<std::uint8_t>(value);
    }
    return key;
  }
  if (text.size() != 2 * kCharmKeyBytes)
    return fail("CCS key has " + std::to_string(text.size()) + " characters; expected " +
                std::to_string(2 * kCharmKeyBytes) + " hex digits (16 pairs, one per key byte)");
  for (std::size_t i = 0; i < kCharmKeyBytes; ++i) {
    const int high = digitValue(text[2 * i], digits);
    const int low = digitValue(text[2 * i + 1], digits);
    if (high < 0 || low < 0)
      return fail("CCS key pair " + std::to_string(i + 1) + " '" + std::string(text.substr(2 * i, 2)) +
                  "' is not a hex number");
    key[i] = static_cast<std::uint8_t>(high * 16 + low);
  }
  return key;
}

Expected<CharmKeyTable> parseCharmKeyFile(std::string_view text, KeyDigits digits) {
  CharmKeyTable table;
  std::map<std::uint8_t, std::size_t> definedOn;
  std::size_t lineNumber = 0;
  while (!text.empty()) {
    ++lineNumber;
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    const std::string where = "line " + std::to_string(lineNumber) + ": ";

    // sscanf("%d%s"): blanks, an optionally signed decimal level, blanks, a word.
    std::size_t i = 0;
    while (i < line.size() && isBlank(line[i])) ++i;
    const std::size_t levelStart = i;
    if (i < line.size() && (line[i] == '-' || line[i] == '+')) ++i;
    const std::size_t digitsStart = i;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
    const bool haveLevel = i > digitsStart;
    long level = -1;
    if (haveLevel) std::from_chars(line.data() + digitsStart, line.data() + i, level);
    if (haveLevel && line[levelStart] == '-') level = -level;
    while (i < line.size() && isBlank(line[i])) ++i;
    std::size_t keyEnd = i;
    while (keyEnd < line.size() && !isBlank(line[keyEnd])) ++keyEnd;
    const std::string_view keyText = line.substr(i, keyEnd - i);
    if (!haveLevel || keyText.empty() || level < 0 || level > kMaxCharmSecurityLevel) {
      std::string shown(line.substr(levelStart));
      while (!shown.empty() && (isBlank(shown.back()))) shown.pop_back();
      if (!shown.empty() && !shown.starts_with("#"))
        table.notes.push_back(where + "'" + shown + "' is not '<level> <key>' with a level 0.." +
                              std::to_string(kMaxCharmSecurityLevel) + "; Charm++ skips it");
      continue;
    }
    if (keyText.starts_with("OTP"))
      return fail(where +
                  "Charm++ one-time keys ('OTP...') are not supported; write the key "
                  "as 32 digits");
    auto key = parseCharmKey(keyText, digits);
    if (!key) return fail(where + key.error().message);

    auto slot = static_cast<std::uint8_t>(level);
    if (auto seen = definedOn.find(slot); seen != definedOn.end())
      table.notes.push_back(where + "level " + std::to_string(level) + " again; this key replaces the one on line " +
                            std::to_string(seen->second) + " (as in Charm++)");
    definedOn[slot] = lineNumber;
    table.keys[slot] = *key;
  }
  return table;
}

Expected<CharmKeyTable> loadCharmKeyFile(const std::string& path, KeyDigits digits) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot open CCS key file '" + path + "': " + detail::errnoText(errno));
  std::string text;
  char chunk[4096];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxKeyFileBytes)
      return fail("CCS key file '" + path + "' is larger than 1 MiB; is it the right file?");
  }
  if (in.bad()) return fail("cannot read CCS key file '" + path + "'");
  auto table = parseCharmKeyFile(text, digits);
  if (!table) return fail("CCS key file '" + path + "', " + table.error().message);
  return table;
}

}  // namespace mpidbg::ccs
