// This host's IPv4 addresses: name resolution, routing's source address,
// the interface other hosts reach.
#include "ccs/transport/HostAddress.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "mpidbg/ScopedFd.hpp"

namespace mpidbg::ccs {

namespace {

std::string dotted(const in_addr& address) {
  char text[INET_ADDRSTRLEN] = {};
  return ::inet_ntop(AF_INET, &address, text, sizeof text) != nullptr ? std::string(text) : std::string();
}

}  // namespace

Expected<std::string> ipv4Address(const std::string& name) {
  if (name.empty()) return fail("empty host name");
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(name.c_str(), nullptr, &hints, &found); rc != 0 || found == nullptr)
    return fail("'" + name + "' has no IPv4 address (" + (rc != 0 ? ::gai_strerror(rc) : "no answer") + ")");
  const std::string text = dotted(reinterpret_cast<const sockaddr_in*>(found->ai_addr)->sin_addr);
  ::freeaddrinfo(found);
  if (text.empty()) return fail("'" + name + "': cannot print its address");
  return text;
}

bool isLoopbackIpv4(std::string_view address) {
  in_addr parsed{};
  if (::inet_pton(AF_INET, std::string(address).c_str(), &parsed) != 1) return false;
  return (ntohl(parsed.s_addr) >> 24) == 127;
}

Expected<std::string> sourceAddressFor(const std::string& peer) {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(9);  // any port: a UDP connect only picks the route
  if (::inet_pton(AF_INET, peer.c_str(), &to.sin_addr) != 1)
    return fail("'" + peer + "' is not an IPv4 address");
  ScopedFd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fail(std::string("cannot create a socket: ") + std::strerror(errno));
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0)
    return fail("no route to " + peer + ": " + std::strerror(errno));
  sockaddr_in self{};
  socklen_t length = sizeof self;
  if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&self), &length) != 0)
    return fail(std::string("getsockname: ") + std::strerror(errno));
  std::string text = dotted(self.sin_addr);
  if (text.empty() || text == "0.0.0.0") return fail("no local address routes to " + peer);
  return text;
}

Expected<std::string> thisHostAddress() {
  char name[256] = {};
  std::string hostName;
  if (::gethostname(name, sizeof name - 1) == 0) {
    hostName = name;
    if (auto byName = ipv4Address(hostName); byName && !isLoopbackIpv4(*byName)) return byName;
  }
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return fail(std::string("getifaddrs: ") + std::strerror(errno));
  std::string found;
  for (const ifaddrs* entry = list; entry != nullptr && found.empty(); entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET) continue;
    if ((entry->ifa_flags & IFF_UP) == 0 || (entry->ifa_flags & IFF_LOOPBACK) != 0) continue;
    found = dotted(reinterpret_cast<const sockaddr_in*>(entry->ifa_addr)->sin_addr);
  }
  ::freeifaddrs(list);
  if (found.empty())
    return fail("this host ('" + hostName + "') has no IPv4 address other hosts can reach: its name resolves to "
                "loopback and no interface but loopback is up");
  return found;
}

}  // namespace mpidbg::ccs
