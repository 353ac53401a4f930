// A fixed set of worker threads with a bounded queue: the bot's and the analysis's searches run
// here, off the HTTP threads, so a burst of requests queues (or is refused) instead of starting
// a search per request.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ps::serve {

class JobPool {
 public:
  /// threads >= 1 workers; at most max_queued jobs wait beside the running ones.
  JobPool(int threads, size_t max_queued);
  /// Jobs still queued are dropped (destroyed unrun); running ones finish first.
  ~JobPool();
  JobPool(const JobPool&) = delete;
  JobPool& operator=(const JobPool&) = delete;

  /// Queues job; false (job not taken) when the queue is full. A job must not throw.
  bool submit(std::function<void()> job);
  size_t queued() const;

 private:
  void work();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  size_t max_queued_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace ps::serve
