#include "nn/service.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "core/field_check.h"
#include "core/thread_name.h"
#include "nn/checkpoint.h"
#include "nn/net_config.h"

namespace ps::nn {

void ServiceOptions::validate() const {
  const FieldCheck check("service.");
  check(max_batch >= 1 && max_batch <= 65536, "max_batch",
        "must be in 1..65536, not " + std::to_string(max_batch));
  check(batch_timeout_us >= 0, "batch_timeout_us", "must be >= 0, not " + std::to_string(batch_timeout_us));
  check(workers >= 1 && workers <= 64, "workers", "must be in 1..64, not " + std::to_string(workers));
  check(torch_threads >= 0, "torch_threads", "must be >= 0, not " + std::to_string(torch_threads));
  check(cache_entries >= 0, "cache_entries", "must be >= 0, not " + std::to_string(cache_entries));
  check(is_device_name(device), "device", "'" + device + "' is not a device (cpu, cuda or cuda:N)");
}

ServiceOptions parse_service_options(ConfigReader& r) {
  ServiceOptions o;
  o.device = r.get<std::string>("device", o.device);
  o.max_batch = r.get<int>("max_batch", o.max_batch);
  o.batch_timeout_us = r.get<int>("batch_timeout_us", o.batch_timeout_us);
  o.workers = r.get<int>("workers", o.workers);
  o.torch_threads = r.get<int>("torch_threads", o.torch_threads);
  o.cache_entries = r.get<int64_t>("cache_entries", o.cache_entries);
  try {
    o.validate();
  } catch (const FieldError& e) {
    r.fail_key(e.key(), e.why());  // the key's line; the caller's finish() checks unknown keys
  }
  return o;
}

namespace {

using Clock = std::chrono::steady_clock;

/// Completion of one evaluate()/evaluate_many() call (possibly spread over several batches).
struct Waiter {
  std::mutex m;
  std::condition_variable cv;
  size_t remaining = 0;
  std::exception_ptr error;

  void finish(size_t n, std::exception_ptr e) {
    std::lock_guard<std::mutex> lk(m);
    if (e && !error) error = e;
    remaining -= n;
    if (remaining == 0) cv.notify_one();
  }
  void wait() {
    std::unique_lock<std::mutex> lk(m);
    cv.wait(lk, [&] { return remaining == 0; });
    if (error) std::rethrow_exception(error);
  }
};

struct Request {
  const Position* pos;
  Evaluation* out;
  Waiter* waiter;
  Clock::time_point enqueued;
};

/// Direct-mapped evaluation cache: bounded memory (entries slots), collisions overwrite.
class EvalCache {
 public:
  explicit EvalCache(int64_t entries) : slots_(size_t(entries)) {}
  bool enabled() const { return !slots_.empty(); }

  static uint64_t key(const Position& pos) {
    uint64_t k = pos.hash();
    k ^= (uint64_t(pos.variant()) + 1) * 0x9E3779B97F4A7C15ull;
    k ^= (uint64_t(pos.pitch().width()) << 32 | uint64_t(pos.pitch().length()) << 16 |
          uint64_t(pos.pitch().goal())) * 0xC2B2AE3D27D4EB4Full;
    return k;
  }
  bool lookup(uint64_t k, Evaluation& out) {
    Slot& s = slots_[k % slots_.size()];
    std::lock_guard<std::mutex> lk(shards_[(k % slots_.size()) % kShards]);
    if (!s.used || s.key != k) return false;
    out.value = s.value;
    out.policy_logits = s.policy;
    return true;
  }
  void store(uint64_t k, const Evaluation& e) {
    Slot& s = slots_[k % slots_.size()];
    std::lock_guard<std::mutex> lk(shards_[(k % slots_.size()) % kShards]);
    s.used = true;
    s.key = k;
    s.value = e.value;
    s.policy.assign(e.policy_logits.begin(), e.policy_logits.end());
  }

 private:
  static constexpr size_t kShards = 64;
  struct Slot {
    bool used = false;
    uint64_t key = 0;
    float value = 0;
    std::vector<float> policy;
  };
  std::vector<Slot> slots_;
  std::mutex shards_[kShards];
};

// glibc's malloc gives freed memory back to the kernel when the top of a heap holds more than
// M_TRIM_THRESHOLD free bytes (128 KiB by default; every thread's arena too) and maps blocks of
// M_MMAP_THRESHOLD bytes or more separately. A CPU forward pass allocates and frees its
// activation tensors each time, so with the defaults every batch page-faulted its memory in
// again: perf showed the kernel's page-fault path at about 9% of a self-play process's CPU;
// raising both thresholds cut the service's CPU per position by about 30% with the tiny net
// and by half or more with the medium one (docs/experiments/selfplay-throughput.md). The
// memory then stays mapped, so the process's resident memory is its peak use, not less. Once
// per process; process-wide (training in the same process keeps its memory too).
void keep_freed_memory_mapped() {
#if defined(__GLIBC__)
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest accepted value (64-bit)
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
  });
#endif
}

}  // namespace

struct NetEvaluator::Impl {
  // Checked before any member is built from them (a negative cache_entries sized the cache
  // vector first and threw std::length_error).
  static const ServiceOptions& validated(const ServiceOptions& o) {
    o.validate();
    return o;
  }

  Impl(PolicyValueNet net_in, CheckpointMeta meta_in, const ServiceOptions& opt, std::string nm)
      : net(std::move(net_in)), meta(std::move(meta_in)), options(validated(opt)),
        name(std::move(nm)), device(parse_device(opt.device)), cache(opt.cache_entries) {
    if (options.torch_threads > 0) at::set_num_threads(options.torch_threads);
    if (!device.is_cuda()) keep_freed_memory_mapped();
    net->to(device);
    net->eval();
    for (int i = 0; i < options.workers; ++i) workers.emplace_back([this] { worker_loop(); });
  }

  ~Impl() {
    {
      std::lock_guard<std::mutex> lk(mu);
      stop = true;
    }
    queue_cv.notify_all();
    for (auto& t : workers) t.join();
  }

  void check(const Position& pos) const {
    if (pos.game_over())
      throw std::invalid_argument("NetEvaluator::evaluate: the position is finished");
    if (!meta.supports(pos.pitch(), pos.variant()))
      throw std::invalid_argument("NetEvaluator (" + name + "): the net was not trained for pitch " +
                                  pos.pitch().name() + " / variant " +
                                  variant_name(pos.variant()));
  }

  void submit(const Position* const* positions, size_t n, Evaluation* out) {
    for (size_t i = 0; i < n; ++i) check(*positions[i]);
    Waiter w;
    std::vector<size_t> todo;
    todo.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      if (cache.enabled() && cache.lookup(EvalCache::key(*positions[i]), out[i])) {
        cache_hits.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      todo.push_back(i);
    }
    if (todo.empty()) return;
    w.remaining = todo.size();
    {
      std::lock_guard<std::mutex> lk(mu);
      if (stop) throw std::runtime_error("NetEvaluator: the service is shutting down");
      const bool was_empty = queue.empty();
      const auto now = Clock::now();
      for (size_t i : todo) queue.push_back({positions[i], &out[i], &w, now});
      // Wake a worker when there is new work for an idle one or a full batch for a filling one.
      if (was_empty || queue.size() >= size_t(options.max_batch)) queue_cv.notify_one();
    }
    w.wait();
  }

  // One worker's buffers, kept across batches.
  struct WorkerBuffers {
    std::vector<Request> batch;
    std::vector<const Position*> ptrs;
    std::vector<Evaluation> results;
    torch::Tensor input;  // [max_batch, C, H, GW] host buffer (pinned for CUDA)
    const Pitch* input_pitch = nullptr;
  };

  void worker_loop() {
    set_thread_name("ps-nn-worker");
    WorkerBuffers b;
    b.batch.reserve(size_t(options.max_batch));
    std::unique_lock<std::mutex> lk(mu);
    while (true) {
      queue_cv.wait(lk, [&] { return stop || !queue.empty(); });
      if (queue.empty()) return;  // stop and nothing left
      if (!take_batch(lk, b.batch)) continue;  // another worker took it
      lk.unlock();
      const auto busy_start = Clock::now();
      std::exception_ptr error;
      try {
        evaluate_batch(b);
      } catch (...) {
        error = std::current_exception();
      }
      // Group completions per waiter (one evaluate_many call may have many requests here).
      for (size_t i = 0; i < b.batch.size();) {
        size_t j = i + 1;
        while (j < b.batch.size() && b.batch[j].waiter == b.batch[i].waiter) ++j;
        b.batch[i].waiter->finish(j - i, error);
        i = j;
      }
      busy_ns.fetch_add(elapsed_ns(busy_start), std::memory_order_relaxed);
      lk.lock();
    }
  }

  // Waits (holding lk) until the batch is full or the oldest request's timeout passed, then moves
  // up to max_batch requests of the oldest request's pitch (one pitch per batch) into batch.
  // False when the queue emptied meanwhile.
  bool take_batch(std::unique_lock<std::mutex>& lk, std::vector<Request>& batch) {
    const auto timeout = std::chrono::microseconds(options.batch_timeout_us);
    const auto deadline = queue.front().enqueued + timeout;
    while (!stop && !queue.empty() && queue.size() < size_t(options.max_batch) && Clock::now() < deadline)
      queue_cv.wait_until(lk, deadline);
    if (queue.empty()) return false;
    const Pitch* pitch = &queue.front().pos->pitch();
    batch.clear();
    for (auto it = queue.begin(); it != queue.end() && batch.size() < size_t(options.max_batch);) {
      if (&it->pos->pitch() == pitch) {
        batch.push_back(*it);
        it = queue.erase(it);
      } else {
        ++it;
      }
    }
    if (!queue.empty()) queue_cv.notify_one();
    return true;
  }

  // Encodes the batch, runs the forward pass and fills the callers' Evaluations (and the cache).
  // Throws what the net throws; the caller passes it to the waiters.
  void evaluate_batch(WorkerBuffers& b) {
    const Pitch* pitch = &b.batch.front().pos->pitch();
    b.ptrs.clear();
    for (const auto& r : b.batch) b.ptrs.push_back(r.pos);
    if (b.input_pitch != pitch || !b.input.defined()) {
      b.input = torch::empty({options.max_batch, kNumPlanes, pitch->grid_height(), pitch->grid_width()},
                             torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(device.is_cuda()));
      b.input_pitch = pitch;
    }
    const int64_t n = int64_t(b.batch.size());
    encode_positions(b.ptrs.data(), b.ptrs.size(), b.input.data_ptr<float>());
    torch::Tensor policy, value;
    {
      torch::InferenceMode guard;
      torch::Tensor x = b.input.narrow(0, 0, n).to(device, /*non_blocking=*/true);
      // On the CPU, forward passes run one at a time (encoding and result handling of the
      // workers still overlap): two at once through LibTorch 1.13's CPU kernels gave wrong
      // outputs now and then (the 16-submitter test failed about 1 run in 5 with 2 workers,
      // also with a separate copy of the net per worker; 0 in 30 with 1 worker).
      std::unique_lock<std::mutex> cpu_lock(cpu_forward_mu, std::defer_lock);
      if (!device.is_cuda()) cpu_lock.lock();
      const auto forward_start = Clock::now();
      NetOutput o = net->forward(x);
      policy = o.policy.to(torch::kCPU).contiguous();
      value = o.value.to(torch::kCPU);
      forward_ns.fetch_add(elapsed_ns(forward_start), std::memory_order_relaxed);
    }
    // Results go to a worker-local array (reusing the callers' vectors' capacity), then are
    // moved into the callers' Evaluations.
    auto& batch = b.batch;
    b.results.resize(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) b.results[i].policy_logits.swap(batch[i].out->policy_logits);
    outputs_to_evaluations(policy, value, b.ptrs.data(), b.ptrs.size(), b.results.data());
    for (size_t i = 0; i < batch.size(); ++i) {
      batch[i].out->value = b.results[i].value;
      batch[i].out->policy_logits.swap(b.results[i].policy_logits);
      if (cache.enabled()) cache.store(EvalCache::key(*batch[i].pos), *batch[i].out);
    }
    positions_done.fetch_add(batch.size(), std::memory_order_relaxed);
    batches_done.fetch_add(1, std::memory_order_relaxed);
  }

  PolicyValueNet net;
  std::mutex cpu_forward_mu;  // serialises CPU forward passes (see evaluate_batch)
  CheckpointMeta meta;
  ServiceOptions options;
  std::string name;
  torch::Device device;
  EvalCache cache;
  std::mutex mu;
  std::condition_variable queue_cv;
  std::deque<Request> queue;
  bool stop = false;
  std::vector<std::thread> workers;
  std::atomic<uint64_t> positions_done{0}, batches_done{0}, cache_hits{0};
  std::atomic<uint64_t> busy_ns{0}, forward_ns{0};
  static uint64_t elapsed_ns(Clock::time_point since) {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - since).count());
  }
};

NetEvaluator::NetEvaluator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NetEvaluator::~NetEvaluator() = default;

void NetEvaluator::evaluate(const Position& pos, Evaluation& out) {
  const Position* p = &pos;
  impl_->submit(&p, 1, &out);
}

void NetEvaluator::evaluate_many(const Position* const* positions, size_t n, Evaluation* out) {
  impl_->submit(positions, n, out);
}

std::string NetEvaluator::name() const { return impl_->name; }

ServiceStats NetEvaluator::stats() const {
  ServiceStats s;
  s.positions = impl_->positions_done.load();
  s.batches = impl_->batches_done.load();
  s.cache_hits = impl_->cache_hits.load();
  s.busy_s = 1e-9 * double(impl_->busy_ns.load());
  s.forward_s = 1e-9 * double(impl_->forward_ns.load());
  return s;
}

std::unique_ptr<NetEvaluator> make_net_evaluator(PolicyValueNet net, const CheckpointMeta& meta,
                                                 const ServiceOptions& options,
                                                 const std::string& name) {
  if (!net) throw std::invalid_argument("make_net_evaluator: no net");
  return std::make_unique<NetEvaluator>(
      std::make_unique<NetEvaluator::Impl>(std::move(net), meta, options, name + "@" + options.device));
}

std::unique_ptr<NetEvaluator> make_net_evaluator(const std::string& checkpoint_path,
                                                 const ServiceOptions& options) {
  options.validate();
  LoadedCheckpoint ck = load_checkpoint(checkpoint_path, options.device);
  return make_net_evaluator(std::move(ck.net), ck.meta, options, "net:" + checkpoint_path);
}

}  // namespace ps::nn
