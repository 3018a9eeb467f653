#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// A private per-session directory (mode 0700) holding the session key file
/// (mode 0600). The 256-bit key never appears on a command line; ranks find
/// it through MPIDBG_KEY_FILE. The directory and its contents are removed on
/// destruction.
class SessionDir {
 public:
  /// Creates the directory under `parent` (made, mode 0700, if missing; its
  /// own parent must exist), or under $TMPDIR (or /tmp) when `parent` is
  /// empty, and a fresh random key. Errors: the directory or file cannot be
  /// created, or the random generator fails.
  static Expected<std::unique_ptr<SessionDir>> create(const std::string& parent = {});
  ~SessionDir();
  SessionDir(const SessionDir&) = delete;
  SessionDir& operator=(const SessionDir&) = delete;

  /// Absolute path of the directory.
  const std::string& path() const { return path_; }
  /// Absolute path of the key file: 64 lowercase hex digits and a newline.
  std::string keyFile() const { return path_ + "/key"; }
  /// The raw 32-byte key.
  const std::vector<std::uint8_t>& key() const { return key_; }

 private:
  SessionDir() = default;
  std::string path_;
  std::vector<std::uint8_t> key_;
};

}  // namespace mpidbg::core
