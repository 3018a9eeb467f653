#pragma once

// Byte streams over a connected, non-blocking socket: plain or TLS 1.3 with
// the session key as PSK. Internal to the ccs library (Server and Connection).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "ccs/transport/TlsContext.hpp"
#include "mpidbg/Error.hpp"
#include "mpidbg/ScopedFd.hpp"

namespace mpidbg::ccs::detail {

/// Outcome of one non-blocking stream operation.
enum class IoStatus {
  Done,       ///< progress made (`bytes` moved, or the handshake completed)
  WantRead,   ///< retry once the socket is readable
  WantWrite,  ///< retry once the socket is writable
  Closed,     ///< the peer closed the connection (orderly or not)
  Failed,     ///< see Stream::error()
};

/// Result of Stream::read, write or handshake.
struct IoResult {
  IoStatus status = IoStatus::Done;
  std::size_t bytes = 0;
};

/// A connected non-blocking socket seen as a byte stream. Owns the socket.
/// Never raises SIGPIPE (sends use MSG_NOSIGNAL). Not thread-safe.
class Stream {
 public:
  virtual ~Stream() = default;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  /// The socket, for poll().
  int fd() const { return fd_.get(); }
  /// Reads up to buffer.size() bytes: Done with bytes > 0, WantRead/WantWrite,
  /// Closed at end of stream, or Failed.
  virtual IoResult read(std::span<std::uint8_t> buffer) = 0;
  /// Writes a prefix of `bytes` (Done with bytes > 0), or WantRead/WantWrite,
  /// Closed, Failed. A retry after Want* may pass a moved buffer.
  virtual IoResult write(std::span<const std::uint8_t> bytes) = 0;
  /// Advances the handshake: Done once complete (at once for a plain stream),
  /// WantRead/WantWrite while in progress, Closed or Failed.
  virtual IoResult handshake() = 0;
  /// True once the handshake is complete.
  virtual bool handshakeDone() const = 0;
  /// True when received bytes wait inside the stream where poll() cannot
  /// see them (TLS records read ahead).
  virtual bool hasBuffered() const = 0;
  /// Best-effort orderly close (TLS close_notify); never blocks.
  virtual void shutdown() {}
  /// Why the last operation Failed (or Closed, when a reason is known).
  const std::string& error() const { return error_; }

 protected:
  explicit Stream(ScopedFd fd) : fd_(std::move(fd)) {}
  ScopedFd fd_;
  std::string error_;
};

/// Unprotected CCS bytes (recv/send).
class PlainStream final : public Stream {
 public:
  /// Takes the connected non-blocking socket.
  explicit PlainStream(ScopedFd fd) : Stream(std::move(fd)) {}
  IoResult read(std::span<std::uint8_t> buffer) override;
  IoResult write(std::span<const std::uint8_t> bytes) override;
  IoResult handshake() override { return {IoStatus::Done, 0}; }
  bool handshakeDone() const override { return true; }
  bool hasBuffered() const override { return false; }
};

/// TLS 1.3 over the socket with the context's PSK (client or server side, as
/// the context's role). Handshake failures name the likely cause: another
/// session key or PSK identity, or a peer not speaking TLS.
class TlsStream final : public Stream {
 public:
  /// Binds a new SSL object of `context` to `fd`. `context` must outlive the
  /// stream. Errors carry OpenSSL's reason.
  static Expected<std::unique_ptr<TlsStream>> create(ScopedFd fd, const TlsContext& context);
  ~TlsStream() override;
  IoResult read(std::span<std::uint8_t> buffer) override;
  IoResult write(std::span<const std::uint8_t> bytes) override;
  IoResult handshake() override;
  bool handshakeDone() const override { return handshakeDone_; }
  bool hasBuffered() const override;
  void shutdown() override;

  /// Socket-level state shared with the custom BIO (see TlsStream.cpp).
  struct Socket {
    int fd = -1;
    bool eof = false;
    int lastErrno = 0;
  };

 private:
  explicit TlsStream(ScopedFd fd) : Stream(std::move(fd)) {}
  /// Maps an SSL_* return code to an IoResult; sets error_ on failure.
  IoResult classify(int rc, std::size_t bytes, const char* during);

  Socket socket_;
  SslPtr ssl_;  // after socket_: freed first, while the BIO may still use it
  bool handshakeDone_ = false;
};

}  // namespace mpidbg::ccs::detail
