#pragma once

// The recording side of record and replay (Record.hpp): one rank's decision
// log file, written through a buffer. No MPI. Not thread-safe: its owner
// (RecordState.hpp Decisions) holds a mutex, except in a fatal signal
// handler (flushForSignal).

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "mpidbg/DecisionLog.hpp"
#include "mpidbg/ScopedFd.hpp"

namespace mpidbg::rt {

/// A decision log being written (log format in DecisionLog.hpp). Inactive
/// until create() succeeds; inactive again after finish() or a write error.
class RecordLog {
 public:
  /// Bytes of pending log kept before add() writes them out.
  static constexpr std::size_t kFlushBytes = 64 * 1024;

  /// Creates (truncates) the log file `path` for rank `rank` of `size`.
  /// Returns "" on success, else why not ("cannot create PATH: strerror");
  /// the log stays inactive then.
  std::string create(std::string path, std::int32_t rank, std::int32_t size);

  /// True while decisions can be added: created, not finished, no write
  /// error.
  bool active() const noexcept { return fd_.valid() && !finished_; }

  /// Appends `decision` (active logs only) and writes the buffer out once it
  /// holds kFlushBytes. Returns 0, or the errno of a failed write (the log
  /// is closed and inactive then). Throws std::bad_alloc (the decision is
  /// lost).
  int add(const record::Decision& decision);

  /// Writes out everything recorded and the end marker; the file is closed
  /// and nothing may be added afterwards. Returns 0, or the errno of a
  /// failed write. Does nothing (returns 0) when inactive.
  int finish() noexcept;

  /// For a fatal signal handler: writes out everything recorded, without
  /// the end marker (the log shows it was cut short), without allocating.
  /// Returns 0, or the errno of a failed write. Does nothing when inactive.
  int flushForSignal() noexcept;

  /// The log file ("" before create()).
  const std::string& path() const noexcept { return path_; }
  /// Decisions added so far.
  std::uint64_t decisions() const noexcept { return encoder_ ? encoder_->decisions() : 0; }
  /// Bytes of log so far: written out plus pending.
  std::uint64_t bytes() const noexcept { return written_ + (encoder_ ? encoder_->pending().size() : 0); }
  /// Decisions added per kind, "MPI_Recv:3,MPI_Test:7" (kinds in
  /// DecisionKind order, kinds never added left out).
  std::string countsByKind() const;

 private:
  /// Writes every pending byte out; on a write error closes the file and
  /// returns its errno.
  int writeOut() noexcept;

  ScopedFd fd_;
  std::string path_;
  std::unique_ptr<record::Encoder> encoder_;
  std::uint64_t written_ = 0;
  std::array<std::uint64_t, 11> byKind_{};
  bool finished_ = false;
};

}  // namespace mpidbg::rt
