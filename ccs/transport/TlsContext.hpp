#pragma once

// TLS 1.3 with an external pre-shared key (../shared/protocols/ccs.md,
// "mpidbg's own mode"). Internal to the ccs library: Server and Connection
// build on it; nothing outside ccs/ sees OpenSSL types.

#include <openssl/ssl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ccs/transport/Security.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::detail {

/// Frees an SSL_CTX.
struct SslCtxDeleter {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
/// Frees an SSL.
struct SslDeleter {
  void operator()(SSL* ssl) const { SSL_free(ssl); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxDeleter>;
using SslPtr = std::unique_ptr<SSL, SslDeleter>;

/// Which end of the handshake a context serves.
enum class TlsRole { Client, Server };

/// An SSL_CTX for TLS 1.3 only, cipher suite TLS_AES_128_GCM_SHA256, no
/// certificates: the peers authenticate each other by the session key used as
/// external PSK under the agreed identity. Immutable after create(); one
/// context serves any number of connections. Not copyable (the OpenSSL
/// callbacks find it through the SSL_CTX's app data).
class TlsContext {
 public:
  /// Errors: key not kSessionKeyBytes (32) bytes, empty identity, OpenSSL
  /// refusing the settings (the message carries OpenSSL's reason).
  static Expected<std::unique_ptr<TlsContext>> create(TlsRole role, const Security& security);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  /// A new SSL object bound to this context (not yet bound to a socket).
  /// Errors carry OpenSSL's reason.
  Expected<SslPtr> newSsl() const;

  TlsRole role() const { return role_; }

  /// The PSK as an SSL_SESSION (TLS 1.3, the context's cipher suite), owned
  /// by the caller; nullptr if OpenSSL cannot build it. For the callbacks.
  SSL_SESSION* makeSession(SSL* ssl) const;
  /// True when `identity` is the agreed PSK identity (constant time).
  bool identityMatches(const unsigned char* identity, std::size_t length) const;
  /// The agreed PSK identity.
  const std::string& identity() const { return identity_; }

 private:
  TlsContext(TlsRole role, std::vector<std::uint8_t> key, std::string identity);
  TlsRole role_;
  std::vector<std::uint8_t> key_;
  std::string identity_;
  SslCtxPtr ctx_;
};

/// Text of OpenSSL's error queue (emptying it), or `fallback` when empty.
std::string takeTlsErrors(const std::string& fallback);

}  // namespace mpidbg::ccs::detail
