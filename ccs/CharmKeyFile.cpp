// Charm++'s CCS key file: `<level> <key>` lines, keys read as decimal or hex pairs.
#include "ccs/CharmKeyFile.hpp"

#include <cerrno>
#include <charconv>
#include <fstream>
#include <vector>

#include "ccs/Socket.hpp"

namespace mpidbg::ccs {
namespace {

/// Largest key file read (a real one has a few lines).
constexpr std::size_t kMaxKeyFileBytes = 1u << 20;

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// Splits a line into blank-separated words, stopping at a '#' comment.
std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && isBlank(line[i])) ++i;
    if (i >= line.size() || line[i] == '#') break;
    std::size_t start = i;
    while (i < line.size() && !isBlank(line[i])) ++i;
    out.push_back(line.substr(start, i - start));
  }
  return out;
}

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
  const char* reading = digits == KeyDigits::Decimal ? "decimal" : "hex";
  if (text.size() != 2 * kCharmKeyBytes)
    return fail("CCS key has " + std::to_string(text.size()) + " characters; expected " +
                std::to_string(2 * kCharmKeyBytes) + " (16 pairs, one per key byte)");
  CharmKey key{};
  for (std::size_t i = 0; i < kCharmKeyBytes; ++i) {
    int high = digitValue(text[2 * i], digits);
    int low = digitValue(text[2 * i + 1], digits);
    if (high < 0 || low < 0) {
      std::string pair(text.substr(2 * i, 2));
      std::string message = "CCS key pair " + std::to_string(i + 1) + " '" + pair + "' is not a " +
                            reading + " number";
      if (digits == KeyDigits::Decimal)
        message +=
            " (Charm++'s server and C client read key pairs as decimal 00..99 and would "
            "silently cut the key here; use the hex reading for a Java-client hex key)";
      return fail(std::move(message));
    }
    int base = digits == KeyDigits::Decimal ? 10 : 16;
    key[i] = static_cast<std::uint8_t>(high * base + low);
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
    std::string where = "line " + std::to_string(lineNumber) + ": ";

    auto fields = words(line);
    if (fields.empty()) continue;
    if (fields.size() == 1)
      return fail(where + "expected '<level> <key>', found only '" + std::string(fields[0]) + "'");
    if (fields.size() > 2)
      return fail(where + "unexpected '" + std::string(fields[2]) +
                  "' after the key (expected '<level> <key>')");

    int level = -1;
    auto [next, ec] = std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), level);
    if (ec != std::errc{} || next != fields[0].data() + fields[0].size() || level < 0 ||
        level > kMaxCharmSecurityLevel)
      return fail(where + "security level '" + std::string(fields[0]) + "' is not a number in 0.." +
                  std::to_string(kMaxCharmSecurityLevel));
    if (fields[1].starts_with("OTP"))
      return fail(where +
                  "Charm++ one-time keys ('OTP...') are not supported; write the key "
                  "as 32 digits");
    auto key = parseCharmKey(fields[1], digits);
    if (!key) return fail(where + key.error().message);

    auto slot = static_cast<std::uint8_t>(level);
    if (auto seen = definedOn.find(slot); seen != definedOn.end())
      return fail(where + "security level " + std::to_string(level) +
                  " already has a key on line " + std::to_string(seen->second));
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
