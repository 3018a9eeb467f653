// "host:port" endpoints.
#include "ccs/transport/Endpoint.hpp"

#include <charconv>

namespace mpidbg::ccs {

std::string Endpoint::toString() const {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

Expected<Endpoint> Endpoint::parse(std::string_view text) {
  std::string quoted = "'" + std::string(text) + "'";
  std::string_view host;
  std::string_view portText;
  if (text.starts_with('[')) {
    auto close = text.find(']');
    if (close == std::string_view::npos)
      return fail("endpoint " + quoted + " has '[' without a closing ']'");
    host = text.substr(1, close - 1);
    std::string_view rest = text.substr(close + 1);
    if (!rest.starts_with(':')) return fail("endpoint " + quoted + " has no ':port' after ']'");
    portText = rest.substr(1);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos)
      return fail("endpoint " + quoted + " has no ':port' (expected host:port)");
    host = text.substr(0, colon);
    portText = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos)
      return fail("endpoint " + quoted + " is ambiguous: write IPv6 addresses as [addr]:port");
  }
  if (host.empty()) return fail("endpoint " + quoted + " has an empty host");
  unsigned value = 0;
  auto [end, ec] = std::from_chars(portText.data(), portText.data() + portText.size(), value);
  if (portText.empty() || ec != std::errc{} || end != portText.data() + portText.size() ||
      value < 1 || value > 65535)
    return fail("endpoint " + quoted + " has a bad port '" + std::string(portText) +
                "' (expected a number in 1..65535)");
  return Endpoint{std::string(host), static_cast<std::uint16_t>(value)};
}

}  // namespace mpidbg::ccs
