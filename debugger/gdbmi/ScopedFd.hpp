#pragma once

#include <unistd.h>

#include <utility>

namespace mpidbg::gdbmi {

/// Owns one file descriptor and closes it on destruction. Move-only.
/// (gdbmi keeps its own copy so it does not depend on ccs.)
class ScopedFd {
 public:
  ScopedFd() = default;
  /// Takes ownership of `fd` (-1 means "none").
  explicit ScopedFd(int fd) : fd_(fd) {}
  ~ScopedFd() { reset(); }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ScopedFd(ScopedFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  ScopedFd& operator=(ScopedFd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }

  /// The descriptor, or -1.
  int get() const { return fd_; }
  /// True when a descriptor is held.
  bool valid() const { return fd_ >= 0; }
  /// Closes the current descriptor (if any) and takes `fd`.
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace mpidbg::gdbmi
