// OpenSSL-backed authentication helpers.
#include <catch2/catch.hpp>

#include "ccs/transport/Auth.hpp"

using namespace mpidbg;
using namespace mpidbg::ccs;

namespace {
std::vector<std::uint8_t> bytesOf(std::string_view text) { return {text.begin(), text.end()}; }
}  // namespace

TEST_CASE("HMAC-SHA256 matches RFC 4231", "[ccs][auth]") {
  // Test case 1: key = 0x0b x 20, data = "Hi There".
  std::vector<std::uint8_t> key(20, 0x0b);
  CHECK(hmacSha256Hex(key, bytesOf("Hi There")) ==
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  // Test case 2: key = "Jefe", data = "what do ya want for nothing?".
  CHECK(hmacSha256Hex(bytesOf("Jefe"), bytesOf("what do ya want for nothing?")) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // Test case 6: a key longer than the block size.
  std::vector<std::uint8_t> longKey(131, 0xaa);
  CHECK(hmacSha256Hex(longKey, bytesOf("Test Using Larger Than Block-Size Key - Hash Key First")) ==
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  // Empty key and message are allowed.
  CHECK(hmacSha256Hex({}, {}).size() == 64);
}

TEST_CASE("hex round trip and errors", "[ccs][auth]") {
  std::vector<std::uint8_t> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<std::uint8_t>(i);
  std::string hex = toHex(all);
  CHECK(hex.substr(0, 8) == "00010203");
  CHECK(hex.substr(hex.size() - 4) == "feff");
  auto back = fromHex(hex);
  REQUIRE(back.has_value());
  CHECK(*back == all);
  auto upper = fromHex("DEADbeef");
  REQUIRE(upper.has_value());
  CHECK(*upper == std::vector<std::uint8_t>{0xde, 0xad, 0xbe, 0xef});
  CHECK(fromHex("")->empty());
  for (const char* bad : {"abc", "zz", "0g", " 00", "0x00"}) {
    INFO(bad);
    auto parsed = fromHex(bad);
    REQUIRE_FALSE(parsed.has_value());
    CHECK_FALSE(parsed.error().message.empty());
  }
}

TEST_CASE("random bytes and constant-time comparison", "[ccs][auth]") {
  auto a = randomBytes(kSessionKeyBytes);
  auto b = randomBytes(kSessionKeyBytes);
  REQUIRE((a && b));
  CHECK(a->size() == 32);
  CHECK(*a != *b);
  CHECK(randomBytes(0)->empty());
  CHECK(constantTimeEqual("abc", "abc"));
  CHECK_FALSE(constantTimeEqual("abc", "abd"));
  CHECK_FALSE(constantTimeEqual("abc", "abcd"));
  CHECK(constantTimeEqual("", ""));
}
