// The calling thread's name as profilers and `top -H` show it (Linux: pthread_setname_np, at
// most 15 characters, longer names are cut). Thread-safe; names only the calling thread;
// never throws; a no-op on other systems. Self-play's game threads are `ps-selfplay` and the
// inference service's workers `ps-nn-worker`, so `perf report --comm ps-selfplay` shows the
// search threads alone (docs/experiments/selfplay-throughput.md).
#pragma once

#include <string>

#if defined(__linux__)
#include <pthread.h>
#endif

namespace ps {

inline void set_thread_name(const std::string& name) {
#if defined(__linux__)
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
#else
  (void)name;
#endif
}

}  // namespace ps
