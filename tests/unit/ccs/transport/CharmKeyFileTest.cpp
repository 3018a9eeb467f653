// Charm++'s CCS key file (`++server-auth`): decimal (server, C client) and hex
// (Java client) readings, malformed lines, loading from disk.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <vector>

#include "tests/unit/ccs/CharmTestKeys.hpp"
#include "ccs/transport/CharmKeyFile.hpp"

using namespace mpidbg::ccs;
using mpidbg::ccs::test::kCapturedKey;
using mpidbg::ccs::test::kDecimalKey;

namespace {

/// The key of the captures' key file line `0 01020304050607080910111213141516`.
/// Its decimal reading, what Charm++'s server uses (capture notes of 08a).

}  // namespace

TEST_CASE("key file: decimal and hex readings of the captured key", "[ccs][charm-auth]") {
  auto decimal = parseCharmKeyFile("0 " + kCapturedKey + "\n", KeyDigits::Decimal);
  REQUIRE(decimal.has_value());
  REQUIRE(decimal->find(0) != nullptr);
  CHECK(*decimal->find(0) == kDecimalKey);  // ... 09 0a 0b 0c 0d 0e 0f 10
  CHECK(decimal->find(1) == nullptr);

  auto hex = parseCharmKeyFile("0 " + kCapturedKey, KeyDigits::Hex);
  REQUIRE(hex.has_value());
  CharmKey trueHex = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
                      0x09, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16};
  CHECK(*hex->find(0) == trueHex);

  auto several = parseCharmKeyFile("# CCS keys\n\n  0\t" + kCapturedKey +
                                       "  # level 0\r\n254 99999999999999999999999999999999\n",
                                   KeyDigits::Decimal);
  REQUIRE(several.has_value());
  CHECK(several->keys.size() == 2);
  CHECK((*several->find(254))[15] == 99);
  auto upper = parseCharmKey("ABCDEFabcdef0123456789ABCDEFabcd", KeyDigits::Hex);
  REQUIRE(upper.has_value());
  CHECK((*upper)[0] == 0xab);
}

TEST_CASE("key file: Charm++'s decimal reading of odd keys", "[ccs][charm-auth]") {
  // What CCS_AUTH_makeSecretKey's sscanf("%d") makes of each pair: the
  // digits before the first non-digit; a pair with none ends the key.
  struct Row {
    std::string key;
    std::vector<int> bytes;  // the first bytes; the rest are zero
  };
  const Row rows[] = {
      {"0102030405060708091a111213141516", {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 11, 12, 13, 14, 15, 16}},
      {"0a0b", {0, 0}},                           // "0a" is 0
      {"1234567890123456", {12, 34, 56, 78, 90, 12, 34, 56}},  // 16 characters: 8 bytes
      {"0102a3", {1, 2}},                         // "a3": no leading digit, the key ends
      {"010", {1, 0}},                            // a last single digit padded: "00"
      {"019", {1, 90}},                           // "9" padded: "90"
      {"01-5", {1, 0xfb}},                        // sscanf's sign
      {"01020304050607080910111213141516" "99", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}},
  };
  for (const auto& row : rows) {
    INFO(row.key);
    auto key = parseCharmKey(row.key, KeyDigits::Decimal);
    REQUIRE(key.has_value());
    CharmKey expected{};
    for (std::size_t i = 0; i < row.bytes.size(); ++i) expected[i] = static_cast<std::uint8_t>(row.bytes[i]);
    CHECK(*key == expected);
  }
  // Refused, as Charm++'s server refuses them ("Cannot parse key").
  for (const char* bad : {"zz01", "x", "5", "-1"}) {
    INFO(bad);
    auto key = parseCharmKey(bad, KeyDigits::Decimal);
    REQUIRE_FALSE(key.has_value());
    CHECK_THAT(key.error().message, Catch::Contains("does not start with two hex digits"));
  }
}

TEST_CASE("key file: lines Charm++ skips are noted, bad keys are errors naming the line", "[ccs][charm-auth]") {
  auto table = parseCharmKeyFile("# keys\n255 " + kCapturedKey + "\n-1 " + kCapturedKey + "\nx " + kCapturedKey +
                                     "\n0\n0 " + kCapturedKey + " extra words\n0 9999\n",
                                 KeyDigits::Decimal);
  REQUIRE(table.has_value());
  REQUIRE(table->keys.size() == 1);
  CHECK((*table->find(0))[0] == 99);  // the last key of level 0 wins
  REQUIRE(table->notes.size() == 5);  // the comment on line 1 silently
  CHECK_THAT(table->notes[0], Catch::StartsWith("line 2: '255 "));
  CHECK_THAT(table->notes[0], Catch::EndsWith("' is not '<level> <key>' with a level 0..254; Charm++ skips it"));
  CHECK_THAT(table->notes[3], Catch::StartsWith("line 5: '0' is not"));
  CHECK(table->notes[4] == "line 7: level 0 again; this key replaces the one on line 6 (as in Charm++)");

  struct Row {
    std::string text;
    KeyDigits digits;
    std::string expected;
  };
  const Row rows[] = {
      {"\n0 0g020304050607080910111213141516", KeyDigits::Hex, "line 2: CCS key pair 1 '0g'"},
      {"0 0102", KeyDigits::Hex, "line 1: CCS key has 4 characters"},
      {"0 zz", KeyDigits::Decimal, "line 1: CCS key 'zz' does not start with two hex digits"},
      {"0 OTPsecret", KeyDigits::Decimal, "one-time keys"},
  };
  for (const auto& row : rows) {
    INFO(row.text);
    auto bad = parseCharmKeyFile(row.text, row.digits);
    REQUIRE_FALSE(bad.has_value());
    CHECK_THAT(bad.error().message, Catch::Contains(row.expected));
  }
  CHECK(parseCharmKeyFile("", KeyDigits::Decimal)->keys.empty());
}

TEST_CASE("key file: loading from disk", "[ccs][charm-auth]") {
  char path[] = "/tmp/mpidbg-charm-keys-XXXXXX";
  int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::close(fd);
  {
    std::ofstream out(path);
    out << "0 " << kCapturedKey << "\n3 zz\n";
  }
  auto bad = loadCharmKeyFile(path, KeyDigits::Decimal);
  REQUIRE_FALSE(bad.has_value());
  CHECK_THAT(bad.error().message, Catch::Contains(std::string(path) + "', line 2"));
  {
    std::ofstream out(path);
    out << "0 " << kCapturedKey << "\n";
  }
  auto good = loadCharmKeyFile(path, KeyDigits::Decimal);
  REQUIRE(good.has_value());
  CHECK(*good->find(0) == kDecimalKey);
  std::remove(path);
  auto missing = loadCharmKeyFile(path, KeyDigits::Decimal);
  REQUIRE_FALSE(missing.has_value());
  CHECK_THAT(missing.error().message, Catch::Contains("cannot open CCS key file"));
}
