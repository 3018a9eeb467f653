#pragma once

// This host's IPv4 addresses, as the front end's hub and the ranks' servers
// choose where to listen (issue 9: ranks and front end on different hosts).

#include <string>
#include <string_view>

#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// The IPv4 address `name` (a dotted address or a host name) resolves to:
/// the first AF_INET answer of getaddrinfo. Errors: `name` is empty or does
/// not resolve to an IPv4 address (gai_strerror's reason in the message).
Expected<std::string> ipv4Address(const std::string& name);

/// True when `address` is a dotted IPv4 address in 127.0.0.0/8.
bool isLoopbackIpv4(std::string_view address);

/// The local IPv4 address this host's routing uses to reach `peer` (a dotted
/// IPv4 address): the source address of a UDP socket connected to it, so no
/// packet is sent. For a loopback `peer` this is a loopback address.
/// Errors: `peer` is not a dotted IPv4 address, or there is no route to it.
Expected<std::string> sourceAddressFor(const std::string& peer);

/// An address other hosts can reach this one at: the host name's IPv4
/// address when that is not loopback (Debian maps the host name to 127.0.1.1
/// in /etc/hosts), else the first IPv4 address of an interface that is up and
/// not loopback (getifaddrs order). Errors: neither exists.
Expected<std::string> thisHostAddress();

}  // namespace mpidbg::ccs
