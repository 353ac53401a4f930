#include "serve/job_pool.h"

namespace ps::serve {

JobPool::JobPool(int threads, size_t max_queued) : max_queued_(max_queued) {
  for (int i = 0; i < (threads < 1 ? 1 : threads); ++i) threads_.emplace_back([this] { work(); });
}

JobPool::~JobPool() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    dropped.swap(queue_);
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool JobPool::submit(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || queue_.size() >= max_queued_) return false;
    queue_.push_back(std::move(job));
  }
  cv_.notify_one();
  return true;
}

size_t JobPool::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

void JobPool::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
  }
}

}  // namespace ps::serve
