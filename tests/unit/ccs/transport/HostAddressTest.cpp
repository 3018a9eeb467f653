// This host's IPv4 addresses (ccs/transport/HostAddress.hpp) and the front end's
// --listen values (core::resolveHubAddress).
#include <catch2/catch.hpp>

#include "ccs/transport/HostAddress.hpp"
#include "debugger/core/EventHub.hpp"

using namespace mpidbg;

TEST_CASE("host address: loopback is 127.0.0.0/8 and nothing else", "[ccs][host-address]") {
  CHECK(ccs::isLoopbackIpv4("127.0.0.1"));
  CHECK(ccs::isLoopbackIpv4("127.0.0.2"));
  CHECK(ccs::isLoopbackIpv4("127.255.255.254"));
  CHECK_FALSE(ccs::isLoopbackIpv4("128.0.0.1"));
  CHECK_FALSE(ccs::isLoopbackIpv4("10.127.0.1"));
  CHECK_FALSE(ccs::isLoopbackIpv4("0.0.0.0"));
  CHECK_FALSE(ccs::isLoopbackIpv4("localhost"));  // a name, not an address
  CHECK_FALSE(ccs::isLoopbackIpv4("127.0.0"));
  CHECK_FALSE(ccs::isLoopbackIpv4(""));
}

TEST_CASE("host address: names and dotted addresses resolve", "[ccs][host-address]") {
  auto literal = ccs::ipv4Address("192.0.2.7");
  REQUIRE(literal);
  CHECK(*literal == "192.0.2.7");
  auto localhost = ccs::ipv4Address("localhost");
  REQUIRE(localhost);
  CHECK(ccs::isLoopbackIpv4(*localhost));
  auto missing = ccs::ipv4Address("no-such-host.invalid");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("'no-such-host.invalid' has no IPv4 address") != std::string::npos);
  CHECK_FALSE(ccs::ipv4Address(""));
}

TEST_CASE("host address: the route to a loopback peer leaves from loopback", "[ccs][host-address]") {
  auto source = ccs::sourceAddressFor("127.0.0.1");
  REQUIRE(source);
  CHECK(*source == "127.0.0.1");
  // Linux answers for the whole 127/8 from the peer's own address.
  auto other = ccs::sourceAddressFor("127.0.0.2");
  REQUIRE(other);
  CHECK(ccs::isLoopbackIpv4(*other));
  auto bad = ccs::sourceAddressFor("not-an-address");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "'not-an-address' is not an IPv4 address");
}

TEST_CASE("host address: this host's address is off loopback and routes to itself", "[ccs][host-address]") {
  auto self = ccs::thisHostAddress();
  if (!self) {
    // A machine with loopback only: the error says why.
    CHECK(self.error().message.find("no IPv4 address other hosts can reach") != std::string::npos);
    return;
  }
  CHECK_FALSE(ccs::isLoopbackIpv4(*self));
  // It is one of this host's own: the route to it leaves from it.
  auto source = ccs::sourceAddressFor(*self);
  REQUIRE(source);
  CHECK(*source == *self);
}

TEST_CASE("hub address: the --listen values", "[core][host-address]") {
  auto loopback = core::resolveHubAddress("");
  REQUIRE(loopback);
  CHECK(loopback->bind == "127.0.0.1");
  CHECK(loopback->advertise == "127.0.0.1");
  auto named = core::resolveHubAddress("loopback");
  REQUIRE(named);
  CHECK(named->bind == "127.0.0.1");

  auto other = core::resolveHubAddress("127.0.0.5");
  REQUIRE(other);
  CHECK(other->bind == "127.0.0.5");
  CHECK(other->advertise == "127.0.0.5");

  auto byName = core::resolveHubAddress("localhost");
  REQUIRE(byName);
  CHECK(ccs::isLoopbackIpv4(byName->bind));
  CHECK(byName->advertise == byName->bind);

  auto bad = core::resolveHubAddress("no-such-host.invalid");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("expected loopback, host, any, an IPv4 address or a host name") !=
        std::string::npos);

  if (auto self = ccs::thisHostAddress()) {
    auto host = core::resolveHubAddress("host");
    REQUIRE(host);
    CHECK(host->bind == *self);
    CHECK(host->advertise == *self);
    for (const char* wildcard : {"any", "0.0.0.0"}) {
      auto any = core::resolveHubAddress(wildcard);
      REQUIRE(any);
      CHECK(any->bind == "0.0.0.0");
      CHECK(any->advertise == *self);  // ranks are never told to connect to 0.0.0.0
    }
  }
}
