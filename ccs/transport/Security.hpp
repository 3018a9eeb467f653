#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mpidbg::ccs {

/// How a connection is protected (../shared/protocols/ccs.md, "mpidbg's own
/// mode").
enum class SecurityMode {
  /// Unauthenticated plain CCS frames. Only when explicitly enabled.
  Plain,
  /// TLS 1.3 (OpenSSL) with an external pre-shared key; plain CCS frames
  /// inside. mpidbg's default between front end and ranks.
  Tls,
};

/// The session's protection: the mode and, for TLS, the 256-bit session key
/// used as the external PSK and the PSK identity both sides agree on.
struct Security {
  SecurityMode mode = SecurityMode::Tls;
  std::vector<std::uint8_t> key;
  std::string identity = "mpidbg-session";
};

}  // namespace mpidbg::ccs
