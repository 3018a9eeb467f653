#include "debugger/gdbmi/SessionPool.hpp"

#include <future>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

namespace mpidbg::gdbmi {
namespace {

/// Runs `job(session)` for every session on its own thread (inline when no
/// thread can be created) and collects the results in session order.
template <typename T, typename Job>
std::vector<Expected<T>> forEach(std::vector<std::unique_ptr<Session>>& sessions, const Job& job) {
  std::vector<std::future<Expected<T>>> futures;
  std::vector<std::optional<Expected<T>>> inlineResults(sessions.size());
  futures.reserve(sessions.size());
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    Session* session = sessions[i].get();
    if (session == nullptr) {
      futures.emplace_back();
      inlineResults[i] = fail("no gdb session at index " + std::to_string(i));
      continue;
    }
    try {
      futures.push_back(std::async(std::launch::async, [&job, session] { return job(*session); }));
    } catch (const std::system_error&) {
      futures.emplace_back();  // no thread available: run it here instead
      inlineResults[i] = job(*session);
    }
  }
  std::vector<Expected<T>> results;
  results.reserve(sessions.size());
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    results.push_back(inlineResults[i] ? std::move(*inlineResults[i]) : futures[i].get());
  }
  return results;
}

}  // namespace

std::size_t SessionPool::add(std::unique_ptr<Session> session) {
  sessions_.push_back(std::move(session));
  return sessions_.size() - 1;
}

std::vector<Expected<std::string>> SessionPool::console(std::string_view cliCommand,
                                                        std::chrono::milliseconds timeout) {
  return forEach<std::string>(
      sessions_, [cliCommand, timeout](Session& s) { return s.console(cliCommand, timeout); });
}

std::vector<Expected<Reply>> SessionPool::command(std::string_view miCommand,
                                                  std::chrono::milliseconds timeout) {
  return forEach<Reply>(sessions_,
                        [miCommand, timeout](Session& s) { return s.command(miCommand, timeout); });
}

}  // namespace mpidbg::gdbmi
