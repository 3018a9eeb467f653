// Internal socket helpers shared by Client and Server.
#include "ccs/transport/Socket.hpp"

#include <fcntl.h>
#include <sys/socket.h>

#include <cstring>

namespace mpidbg::ccs::detail {

Expected<AddrInfoList> resolve(const std::string& host, std::uint16_t port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* list = nullptr;
  std::string service = std::to_string(port);
  int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &list);
  if (rc != 0) {
    std::string reason = rc == EAI_SYSTEM ? errnoText(errno) : ::gai_strerror(rc);
    return fail("cannot resolve host '" + host + "': " + reason);
  }
  if (list == nullptr) return fail("cannot resolve host '" + host + "': no addresses");
  return AddrInfoList(list);
}

bool setNonBlocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL, 0);
  return flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

std::string errnoText(int errnum) {
  char buffer[256];
  // GNU strerror_r returns the message pointer (maybe not `buffer`).
  return ::strerror_r(errnum, buffer, sizeof buffer);
}

std::string describeAddress(const sockaddr* address, socklen_t length) {
  char host[NI_MAXHOST];
  char service[NI_MAXSERV];
  if (::getnameinfo(address, length, host, sizeof host, service, sizeof service,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return "unknown peer";
  if (address->sa_family == AF_INET6) return "[" + std::string(host) + "]:" + service;
  return std::string(host) + ":" + service;
}

}  // namespace mpidbg::ccs::detail
