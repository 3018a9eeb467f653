// Lazily started worker threads for the forwarding layer.
#include "ccs/tree/WorkerPool.hpp"

#include <system_error>

namespace mpidbg::ccs {

WorkerPool::WorkerPool(std::size_t maxThreads) : maxThreads_(maxThreads == 0 ? 1 : maxThreads) {}

WorkerPool::~WorkerPool() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    dropped.swap(queue_);
  }
  wake_.notify_all();
  dropped.clear();  // outside the lock: a task's captures may reply through a Responder
  for (auto& thread : threads_) thread.join();
}

bool WorkerPool::submit(std::function<void()> task) {
  std::unique_lock lock(mutex_);
  if (stopping_) return false;
  queue_.push_back(std::move(task));
  if (idle_ < queue_.size() && threads_.size() < maxThreads_) {
    try {
      threads_.emplace_back([this] { run(); });
    } catch (const std::system_error&) {
      if (threads_.empty()) {  // nobody would ever run it
        auto lost = std::move(queue_.back());
        queue_.pop_back();
        lock.unlock();
        return false;
      }
    }
  }
  lock.unlock();
  wake_.notify_one();
  return true;
}

void WorkerPool::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    ++idle_;
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    --idle_;
    if (stopping_) return;
    auto task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    task();
    task = nullptr;
    lock.lock();
  }
}

}  // namespace mpidbg::ccs
