// TLS 1.3 external-PSK contexts (OpenSSL 3): SSL_CTX set-up and the PSK
// session callbacks (SSL_CTX_set_psk_use_session_callback(3)).
#include "ccs/transport/TlsContext.hpp"

#include <openssl/crypto.h>
#include <openssl/err.h>

#include "ccs/transport/Auth.hpp"

namespace mpidbg::ccs::detail {
namespace {

/// TLS_AES_128_GCM_SHA256 as its two-byte IANA code (RFC 8446, B.4).
constexpr unsigned char kCipherId[] = {0x13, 0x01};
constexpr const char* kCipherName = "TLS_AES_128_GCM_SHA256";

const TlsContext* contextOf(SSL* ssl) {
  return static_cast<const TlsContext*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
}

/// Client side: offers the PSK under the agreed identity. `md` is set on a
/// HelloRetryRequest; the PSK is then only offered if its hash still fits.
int useSession(SSL* ssl, const EVP_MD* md, const unsigned char** id, std::size_t* idLength,
               SSL_SESSION** session) {
  const TlsContext* context = contextOf(ssl);
  *session = nullptr;
  *id = nullptr;
  *idLength = 0;
  if (context == nullptr) return 0;
  SSL_SESSION* psk = context->makeSession(ssl);
  if (psk == nullptr) return 0;
  if (md != nullptr && md != SSL_CIPHER_get_handshake_digest(SSL_SESSION_get0_cipher(psk))) {
    SSL_SESSION_free(psk);
    return 1;  // no PSK: the handshake then fails (no certificates)
  }
  *session = psk;
  *id = reinterpret_cast<const unsigned char*>(context->identity().data());
  *idLength = context->identity().size();
  return 1;
}

/// Server side: the PSK for the agreed identity; none for any other, which
/// fails the handshake since the server has no certificate.
int findSession(SSL* ssl, const unsigned char* identity, std::size_t length,
                SSL_SESSION** session) {
  const TlsContext* context = contextOf(ssl);
  *session = nullptr;
  if (context == nullptr) return 0;
  if (!context->identityMatches(identity, length)) return 1;
  *session = context->makeSession(ssl);
  return *session != nullptr ? 1 : 0;
}

}  // namespace

std::string takeTlsErrors(const std::string& fallback) {
  std::string text;
  while (unsigned long code = ERR_get_error()) {
    char buffer[256];
    ERR_error_string_n(code, buffer, sizeof buffer);
    const char* reason = ERR_reason_error_string(code);
    if (!text.empty()) text += "; ";
    text += reason != nullptr ? reason : buffer;
  }
  return text.empty() ? fallback : text;
}

TlsContext::TlsContext(TlsRole role, std::vector<std::uint8_t> key, std::string identity)
    : role_(role), key_(std::move(key)), identity_(std::move(identity)) {}

TlsContext::~TlsContext() {
  if (!key_.empty()) OPENSSL_cleanse(key_.data(), key_.size());
}

Expected<std::unique_ptr<TlsContext>> TlsContext::create(TlsRole role, const Security& security) {
  if (security.key.size() != kSessionKeyBytes)
    return fail("TLS needs a " + std::to_string(kSessionKeyBytes) + "-byte session key, got " +
                std::to_string(security.key.size()) + " bytes");
  if (security.identity.empty()) return fail("TLS needs a non-empty PSK identity");
  std::unique_ptr<TlsContext> context(new TlsContext(role, security.key, security.identity));
  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new(role == TlsRole::Server ? TLS_server_method()
                                                      : TLS_client_method()));
  auto refused = [](const std::string& what) {
    return fail("cannot set up TLS (" + what + "): " + takeTlsErrors("OpenSSL refused"));
  };
  if (!ctx) return refused("SSL_CTX_new");
  if (!SSL_CTX_set_min_proto_version(ctx.get(), TLS1_3_VERSION) ||
      !SSL_CTX_set_max_proto_version(ctx.get(), TLS1_3_VERSION))
    return refused("TLS 1.3 only");
  if (!SSL_CTX_set_ciphersuites(ctx.get(), kCipherName)) return refused(kCipherName);
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  // One recv() takes whole records; writes may be partial and retried from a
  // moved buffer (non-blocking I/O in a poll loop).
  SSL_CTX_set_read_ahead(ctx.get(), 1);
  SSL_CTX_set_mode(ctx.get(),
                     SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (role == TlsRole::Server) {
    SSL_CTX_set_num_tickets(ctx.get(), 0);  // no resumption tickets: the PSK is the session
    SSL_CTX_set_psk_find_session_callback(ctx.get(), findSession);
  } else {
    // No trust store: should a server ignore the PSK and present a
    // certificate, verification fails (and Stream also checks PSK use).
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    SSL_CTX_set_psk_use_session_callback(ctx.get(), useSession);
  }
  SSL_CTX_set_app_data(ctx.get(), context.get());
  context->ctx_ = std::move(ctx);
  return context;
}

Expected<SslPtr> TlsContext::newSsl() const {
  ERR_clear_error();
  SslPtr ssl(SSL_new(ctx_.get()));
  if (!ssl) return fail("cannot create a TLS connection: " + takeTlsErrors("SSL_new failed"));
  return ssl;
}

SSL_SESSION* TlsContext::makeSession(SSL* ssl) const {
  const SSL_CIPHER* cipher = SSL_CIPHER_find(ssl, kCipherId);
  if (cipher == nullptr) return nullptr;
  SSL_SESSION* session = SSL_SESSION_new();
  if (session == nullptr) return nullptr;
  if (!SSL_SESSION_set1_master_key(session, key_.data(), key_.size()) ||
      !SSL_SESSION_set_cipher(session, cipher) ||
      !SSL_SESSION_set_protocol_version(session, TLS1_3_VERSION)) {
    SSL_SESSION_free(session);
    return nullptr;
  }
  return session;
}

bool TlsContext::identityMatches(const unsigned char* identity, std::size_t length) const {
  return length == identity_.size() &&
         CRYPTO_memcmp(identity, identity_.data(), length) == 0;
}

}  // namespace mpidbg::ccs::detail
