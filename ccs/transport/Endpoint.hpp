#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// A TCP endpoint: numeric IPv4/IPv6 address or host name, and port.
struct Endpoint {
  std::string host;
  std::uint16_t port = 0;

  /// "host:port" ("[::1]:port" for IPv6 literals).
  std::string toString() const;
  /// Parses "host:port" or "[v6]:port". Errors: no colon, empty host, port
  /// not a number in 1..65535.
  static Expected<Endpoint> parse(std::string_view text);
};

}  // namespace mpidbg::ccs
