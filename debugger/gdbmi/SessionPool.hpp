#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "debugger/gdbmi/Reply.hpp"
#include "debugger/gdbmi/Session.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::gdbmi {

/// A set of Sessions (typically one per chosen rank) that can be driven all
/// at once. Owns its sessions. Index i always names the i-th added session.
/// The pool itself is driven from one thread; during a broadcast each
/// session is used by exactly one worker thread.
class SessionPool {
 public:
  SessionPool() = default;
  SessionPool(const SessionPool&) = delete;
  SessionPool& operator=(const SessionPool&) = delete;

  /// Adds a session; returns its index. A null session gives an Error
  /// result in broadcasts; at() must not be called for it.
  std::size_t add(std::unique_ptr<Session> session);
  /// Number of sessions.
  std::size_t size() const { return sessions_.size(); }
  /// Session `index` (< size()).
  Session& at(std::size_t index) { return *sessions_.at(index); }

  /// Runs Session::console(cliCommand, timeout) on every session
  /// concurrently (one thread each); element i is session i's result. Takes
  /// about `timeout` at most, however many sessions there are.
  std::vector<Expected<std::string>> console(std::string_view cliCommand,
                                             std::chrono::milliseconds timeout);

  /// Runs Session::command(miCommand, timeout) on every session concurrently;
  /// element i is session i's reply.
  std::vector<Expected<Reply>> command(std::string_view miCommand,
                                       std::chrono::milliseconds timeout);

 private:
  std::vector<std::unique_ptr<Session>> sessions_;
};

}  // namespace mpidbg::gdbmi
