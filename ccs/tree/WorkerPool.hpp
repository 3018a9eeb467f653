#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mpidbg::ccs {

/// A small pool of worker threads for the forwarding layer's blocking calls
/// (internal to ccs/Forwarder). Threads are started lazily, up to
/// `maxThreads`; tasks beyond that queue. Not copyable.
class WorkerPool {
 public:
  /// `maxThreads` of 0 is treated as 1.
  explicit WorkerPool(std::size_t maxThreads);
  /// Drops queued tasks (destroying them on the calling thread) and joins the
  /// workers after their running task returns.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Queues `task`. False (task not run, destroyed before return) after the
  /// pool started stopping or when no thread could be started.
  bool submit(std::function<void()> task);

 private:
  void run();

  std::size_t maxThreads_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace mpidbg::ccs
