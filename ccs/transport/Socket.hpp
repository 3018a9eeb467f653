#pragma once

// Internal socket helpers shared by Client and Server; not part of the
// library's public interface.

#include <netdb.h>

#include <cstdint>
#include <memory>
#include <string>

#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::detail {

/// Frees a getaddrinfo list.
struct AddrInfoDeleter {
  void operator()(addrinfo* list) const { ::freeaddrinfo(list); }
};
/// Owned result of getaddrinfo.
using AddrInfoList = std::unique_ptr<addrinfo, AddrInfoDeleter>;

/// Resolves `host` and `port` for TCP (getaddrinfo; `passive` for bind).
/// Errors name the host and give gai_strerror's reason.
Expected<AddrInfoList> resolve(const std::string& host, std::uint16_t port, bool passive);

/// Sets O_NONBLOCK on `fd`; false (errno set) on failure.
bool setNonBlocking(int fd);

/// strerror(errnum) without the thread-safety trap of strerror.
std::string errnoText(int errnum);

/// Numeric "addr:port" of a socket address (IPv6 in brackets).
std::string describeAddress(const sockaddr* address, socklen_t length);

}  // namespace mpidbg::ccs::detail
