// Plain and TLS byte streams over a non-blocking socket. The TLS stream uses
// its own socket BIO so that sends carry MSG_NOSIGNAL: OpenSSL's socket BIO
// uses write(), which would raise SIGPIPE inside the debugged ranks.
#include "ccs/transport/TlsStream.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <sys/socket.h>

#include <cerrno>

#include "ccs/transport/Socket.hpp"

namespace mpidbg::ccs::detail {
namespace {

using Socket = TlsStream::Socket;

Socket& socketOf(BIO* bio) { return *static_cast<Socket*>(BIO_get_data(bio)); }

int bioWrite(BIO* bio, const char* data, std::size_t length, std::size_t* written) {
  Socket& s = socketOf(bio);
  BIO_clear_retry_flags(bio);
  for (;;) {
    ssize_t sent = ::send(s.fd, data, length, MSG_NOSIGNAL);
    if (sent >= 0) {
      *written = static_cast<std::size_t>(sent);
      return 1;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
      BIO_set_retry_write(bio);
    else
      s.lastErrno = errno;
    return 0;
  }
}

int bioRead(BIO* bio, char* data, std::size_t length, std::size_t* got) {
  Socket& s = socketOf(bio);
  BIO_clear_retry_flags(bio);
  for (;;) {
    ssize_t n = ::recv(s.fd, data, length, 0);
    if (n > 0) {
      *got = static_cast<std::size_t>(n);
      return 1;
    }
    if (n == 0) {
      s.eof = true;
      return 0;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
      BIO_set_retry_read(bio);
    else
      s.lastErrno = errno;
    return 0;
  }
}

long bioCtrl(BIO* bio, int command, long, void*) {
  switch (command) {
    case BIO_CTRL_FLUSH:
      return 1;
    case BIO_CTRL_EOF:
      return socketOf(bio).eof ? 1 : 0;
    default:
      return 0;
  }
}

/// The BIO_METHOD shared by every TlsStream (built once, never freed).
const BIO_METHOD* socketMethod() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "mpidbg socket");
    if (m != nullptr) {
      BIO_meth_set_write_ex(m, bioWrite);
      BIO_meth_set_read_ex(m, bioRead);
      BIO_meth_set_ctrl(m, bioCtrl);
    }
    return m;
  }();
  return method;
}

constexpr const char* kHandshakeHint =
    " (the peer may use another session key or PSK identity, or not speak TLS)";

}  // namespace

// ---- PlainStream ----

IoResult PlainStream::read(std::span<std::uint8_t> buffer) {
  for (;;) {
    ssize_t got = ::recv(fd_.get(), buffer.data(), buffer.size(), 0);
    if (got > 0) return {IoStatus::Done, static_cast<std::size_t>(got)};
    if (got == 0) return {IoStatus::Closed, 0};
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {IoStatus::WantRead, 0};
    error_ = errnoText(errno);
    return {IoStatus::Failed, 0};
  }
}

IoResult PlainStream::write(std::span<const std::uint8_t> bytes) {
  for (;;) {
    ssize_t sent = ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent >= 0) return {IoStatus::Done, static_cast<std::size_t>(sent)};
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {IoStatus::WantWrite, 0};
    error_ = errnoText(errno);
    return {errno == EPIPE || errno == ECONNRESET ? IoStatus::Closed : IoStatus::Failed, 0};
  }
}

// ---- TlsStream ----

Expected<std::unique_ptr<TlsStream>> TlsStream::create(ScopedFd fd, const TlsContext& context) {
  auto ssl = context.newSsl();
  if (!ssl) return std::unexpected(ssl.error());
  const BIO_METHOD* method = socketMethod();
  if (method == nullptr) return fail("cannot create a TLS connection: no socket BIO method");
  std::unique_ptr<TlsStream> stream(new TlsStream(std::move(fd)));
  stream->socket_.fd = stream->fd_.get();
  BIO* bio = BIO_new(method);
  if (bio == nullptr)
    return fail("cannot create a TLS connection: " + takeTlsErrors("BIO_new failed"));
  BIO_set_data(bio, &stream->socket_);
  BIO_set_init(bio, 1);
  SSL_set_bio(ssl->get(), bio, bio);  // the SSL owns the BIO now
  if (context.role() == TlsRole::Server)
    SSL_set_accept_state(ssl->get());
  else
    SSL_set_connect_state(ssl->get());
  stream->ssl_ = std::move(*ssl);
  return stream;
}

TlsStream::~TlsStream() = default;

IoResult TlsStream::classify(int rc, std::size_t bytes, const char* during) {
  if (rc > 0) return {IoStatus::Done, bytes};
  int code = SSL_get_error(ssl_.get(), rc);
  IoResult result{IoStatus::Failed, 0};
  switch (code) {
    case SSL_ERROR_WANT_READ:
      result.status = IoStatus::WantRead;
      break;
    case SSL_ERROR_WANT_WRITE:
      result.status = IoStatus::WantWrite;
      break;
    case SSL_ERROR_ZERO_RETURN:  // close_notify
      result.status = IoStatus::Closed;
      break;
    default:
      if (socket_.lastErrno != 0) {
        error_ = errnoText(socket_.lastErrno);
        if (socket_.lastErrno == ECONNRESET || socket_.lastErrno == EPIPE)
          result.status = IoStatus::Closed;
      } else if (socket_.eof) {
        result.status = IoStatus::Closed;
        error_ = "the peer closed the connection";
      } else {
        error_ = takeTlsErrors("TLS error");
      }
      if (!handshakeDone_) {
        // A close during the handshake is how a peer refuses the PSK.
        error_ = std::string("TLS handshake failed: ") + error_ + kHandshakeHint;
        result.status = IoStatus::Failed;
      } else {
        error_ = std::string("TLS ") + during + " failed: " + error_;
      }
      break;
  }
  ERR_clear_error();
  return result;
}

IoResult TlsStream::handshake() {
  if (handshakeDone_) return {IoStatus::Done, 0};
  int rc = SSL_do_handshake(ssl_.get());
  if (rc != 1) return classify(rc, 0, "handshake");
  if (!SSL_session_reused(ssl_.get())) {  // completed without the PSK: refuse
    error_ = std::string("TLS handshake failed: the peer did not use the session key") +
             kHandshakeHint;
    return {IoStatus::Failed, 0};
  }
  handshakeDone_ = true;
  return {IoStatus::Done, 0};
}

IoResult TlsStream::read(std::span<std::uint8_t> buffer) {
  if (!handshakeDone_) {
    IoResult step = handshake();
    if (step.status != IoStatus::Done) return step;
  }
  std::size_t got = 0;
  int rc = SSL_read_ex(ssl_.get(), buffer.data(), buffer.size(), &got);
  return classify(rc, got, "read");
}

IoResult TlsStream::write(std::span<const std::uint8_t> bytes) {
  if (!handshakeDone_) {
    IoResult step = handshake();
    if (step.status != IoStatus::Done) return step;
  }
  std::size_t sent = 0;
  int rc = SSL_write_ex(ssl_.get(), bytes.data(), bytes.size(), &sent);
  return classify(rc, sent, "write");
}

bool TlsStream::hasBuffered() const { return SSL_has_pending(ssl_.get()) != 0; }

void TlsStream::shutdown() {
  if (handshakeDone_ && !socket_.eof && socket_.lastErrno == 0) SSL_shutdown(ssl_.get());
  ERR_clear_error();
}

}  // namespace mpidbg::ccs::detail
