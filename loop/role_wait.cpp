#include <chrono>
#include <thread>

#include "loop/roles.h"

namespace ps {

bool wait_until_ready(const std::function<bool()>& ready, double poll_seconds,
                      const std::atomic<bool>* cancel) {
  using clock = std::chrono::steady_clock;
  while (true) {
    if (ready()) return true;
    const auto until = clock::now() + std::chrono::duration<double>(poll_seconds);
    while (clock::now() < until) {
      if (cancel && cancel->load()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

}  // namespace ps
