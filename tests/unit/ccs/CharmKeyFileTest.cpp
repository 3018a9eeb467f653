// Charm++'s CCS key file (`++server-auth`): decimal (server, C client) and hex
// (Java client) readings, malformed lines, loading from disk.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "CharmTestKeys.hpp"
#include "ccs/CharmKeyFile.hpp"

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

TEST_CASE("key file: malformed lines are errors naming the line", "[ccs][charm-auth]") {
  struct Row {
    std::string text;
    KeyDigits digits;
    std::string expected;
  };
  const Row rows[] = {
      {"0 0102030405060708091a111213141516", KeyDigits::Decimal, "line 1: CCS key pair 10 '1a'"},
      {"\n0 0g020304050607080910111213141516", KeyDigits::Hex, "line 2: CCS key pair 1 '0g'"},
      {"0 0102", KeyDigits::Decimal, "line 1: CCS key has 4 characters"},
      {"0 " + kCapturedKey + "00", KeyDigits::Decimal, "has 34 characters"},
      {"255 " + kCapturedKey, KeyDigits::Decimal, "line 1: security level '255'"},
      {"-1 " + kCapturedKey, KeyDigits::Decimal, "security level '-1'"},
      {"x " + kCapturedKey, KeyDigits::Decimal, "security level 'x'"},
      {"0", KeyDigits::Decimal, "line 1: expected '<level> <key>'"},
      {"0 " + kCapturedKey + " extra", KeyDigits::Decimal, "unexpected 'extra'"},
      {"0 OTPsecret", KeyDigits::Decimal, "one-time keys"},
      {"1 " + kCapturedKey + "\n1 " + kCapturedKey, KeyDigits::Hex,
       "line 2: security level 1 already has a key on line 1"},
  };
  for (const auto& row : rows) {
    INFO(row.text);
    auto table = parseCharmKeyFile(row.text, row.digits);
    REQUIRE_FALSE(table.has_value());
    CHECK_THAT(table.error().message, Catch::Contains(row.expected));
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
