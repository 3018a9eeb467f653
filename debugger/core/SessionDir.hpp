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
  /// Who must read the key file: ranks on this host only, or also ranks on
  /// other hosts (mpidbg --listen off loopback).
  enum class Readers { ThisHost, OtherHosts };
  /// Where the directory went, for telling the user.
  enum class Parent { TmpDir, Home, Tmp };

  /// Creates the directory and a fresh random key. The directory goes under
  /// $TMPDIR when set; else, for OtherHosts readers, under $HOME/.mpidbg
  /// (made, mode 0700, if missing: home directories are what cluster nodes
  /// share) when HOME is set; else under /tmp. Errors: a directory or the
  /// file cannot be created, or the random generator fails.
  static Expected<std::unique_ptr<SessionDir>> create(Readers readers = Readers::ThisHost);
  ~SessionDir();
  SessionDir(const SessionDir&) = delete;
  SessionDir& operator=(const SessionDir&) = delete;

  /// Absolute path of the directory.
  const std::string& path() const { return path_; }
  /// Absolute path of the key file: 64 lowercase hex digits and a newline.
  std::string keyFile() const { return path_ + "/key"; }
  /// The raw 32-byte key.
  const std::vector<std::uint8_t>& key() const { return key_; }
  /// Which rule of create() placed the directory.
  Parent parent() const { return parent_; }

 private:
  SessionDir() = default;
  std::string path_;
  Parent parent_ = Parent::Tmp;
  std::vector<std::uint8_t> key_;
};

}  // namespace mpidbg::core
