// The inference service returns, for concurrent submitters, what a direct forward pass returns.
#include <catch2/catch.hpp>

#include <random>
#include <thread>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "engine/record.h"
#include "engine/turns.h"
#include "nn/checkpoint.h"
#include "tests/nn/helpers.h"

using namespace ps;
using namespace ps::nn;
using ps::testing::mixed_positions;

namespace {

PolicyValueNet random_tiny() {
  torch::manual_seed(9);
  PolicyValueNet net(NetConfig::tiny());
  net->eval();
  return net;
}

void require_same(const Evaluation& a, const Evaluation& b) {
  // Batched and single forward passes may round differently in the last bits (kernel choice
  // depends on the batch size), hence the tiny tolerance.
  REQUIRE(a.value == Approx(b.value).margin(1e-5));
  REQUIRE(a.policy_logits.size() == b.policy_logits.size());
  for (size_t i = 0; i < a.policy_logits.size(); ++i)
    REQUIRE(a.policy_logits[i] == Approx(b.policy_logits[i]).margin(1e-4));
}

// Serial batch-1 forward passes of the positions: what the service must return.
std::vector<Evaluation> serial_evaluations(PolicyValueNet& net, const std::vector<Position>& positions) {
  std::vector<Evaluation> out(positions.size());
  for (size_t i = 0; i < positions.size(); ++i) {
    const Position* p = &positions[i];
    evaluate_direct(net, &p, 1, &out[i]);
  }
  return out;
}

// A CPU service of net with 2 workers.
std::unique_ptr<NetEvaluator> two_worker_service(PolicyValueNet net, int max_batch, int batch_timeout_us) {
  ServiceOptions opt;
  opt.max_batch = max_batch;
  opt.batch_timeout_us = batch_timeout_us;
  opt.workers = 2;
  CheckpointMeta meta;
  meta.net = net->config();
  return make_net_evaluator(net, meta, opt);
}

// 16 submitters at once evaluate every position through the service; all match `expected`.
void require_concurrent_same(NetEvaluator& service, const std::vector<Position>& positions,
                             const std::vector<Evaluation>& expected) {
  const auto got = ps::testing::evaluate_concurrently(service, positions, 16);
  for (const auto& per_thread : got)
    for (size_t i = 0; i < positions.size(); ++i) require_same(per_thread[i], expected[i]);
}

}  // namespace

TEST_CASE("service matches a direct forward pass for 16 concurrent submitters", "[nn]") {
  PolicyValueNet net = random_tiny();
  const std::vector<Position> positions = mixed_positions(48, 3);
  const std::vector<Evaluation> expected = serial_evaluations(net, positions);
  // Both sides to move appear (the rotation is exercised).
  int side1 = 0;
  for (const auto& p : positions) side1 += p.side_to_move();
  REQUIRE(side1 > 0);
  REQUIRE(side1 < int(positions.size()));

  auto service = two_worker_service(net, 8, 2000);
  require_concurrent_same(*service, positions, expected);
  const ServiceStats st = service->stats();
  CHECK(st.positions == 16 * positions.size());
  CHECK(st.mean_batch() > 1.0);  // requests were actually batched

  // evaluate_many across pitches.
  std::vector<const Position*> ptrs;
  for (const auto& p : positions) ptrs.push_back(&p);
  std::vector<Evaluation> many(positions.size());
  service->evaluate_many(ptrs.data(), ptrs.size(), many.data());
  for (size_t i = 0; i < positions.size(); ++i) require_same(many[i], expected[i]);
}

// Regression: without the service's CPU forward lock, 2 workers gave wrong outputs
// (a policy logit of -0.0128 for 0.0170; this test and the 16-submitter one above failed in
// 14 of 30 runs on the loaded 2-core machine, 2026-12-01). Many rounds of 16 submitters over
// 2 workers, every result within 1e-5 (value) / 1e-4 (logits) of a serial batch-1 pass.
TEST_CASE("a CPU service with 2 workers returns what serial forward passes return, many rounds", "[nn]") {
  PolicyValueNet net = random_tiny();
  const std::vector<Position> positions = mixed_positions(24, 7);
  const std::vector<Evaluation> expected = serial_evaluations(net, positions);
  auto service = two_worker_service(net, 4, 0);
  for (int round = 0; round < 10; ++round) require_concurrent_same(*service, positions, expected);
  CHECK(service->stats().positions == 10 * 16 * positions.size());
}

TEST_CASE("a negative cache_entries is an error naming it, from code and from a config", "[nn]") {
  // Regression: the cache was sized before the options were checked: std::length_error.
  PolicyValueNet net = random_tiny();
  CheckpointMeta meta;
  meta.net = net->config();
  ServiceOptions opt;
  opt.cache_entries = -1;
  CHECK_THROWS_WITH(make_net_evaluator(net, meta, opt, "net:test"),
                    Catch::Contains("service.cache_entries: must be >= 0, not -1"));
  ps::ConfigReader r = ps::ConfigReader::from_string("cache_entries: -5\n", "s.yaml");
  CHECK_THROWS_AS(parse_service_options(r), ps::ConfigError);
  ps::ConfigReader r2 = ps::ConfigReader::from_string("cache_entries: -5\n", "s.yaml");
  CHECK_THROWS_WITH(parse_service_options(r2),
                    Catch::Contains("s.yaml: cache_entries (line 1): must be >= 0, not -5"));
}

TEST_CASE("service cache, restrictions and errors", "[nn]") {
  PolicyValueNet net = random_tiny();
  CheckpointMeta meta;
  meta.net = net->config();
  meta.pitches = {"8x10"};
  meta.variants = {"standard", "no-bounce"};
  ServiceOptions opt;
  opt.cache_entries = 1024;
  opt.batch_timeout_us = 0;
  auto service = make_net_evaluator(net, meta, opt, "net:test");
  CHECK(service->name() == "net:test@cpu");
  Position pos = parse_kicks(Pitch::standard(), Variant::kStandard, "12").position();
  Evaluation a, b, direct;
  service->evaluate(pos, a);
  service->evaluate(pos, b);
  CHECK(service->stats().cache_hits == 1);
  CHECK(a.policy_logits == b.policy_logits);
  const Position* p = &pos;
  evaluate_direct(net, &p, 1, &direct);
  require_same(a, direct);

  Evaluation e;
  CHECK_THROWS_WITH(service->evaluate(Position(Pitch::get(8, 12, 2), Variant::kStandard), e),
                    Catch::Contains("not trained for pitch 8x12"));
  CHECK_THROWS_WITH(service->evaluate(Position(Pitch::standard(), Variant::kSingleBounce), e),
                    Catch::Contains("single-bounce"));
  Position done = parse_kicks(Pitch::standard(), Variant::kStandard, "0000").position();
  while (!done.game_over()) done.make_kick(__builtin_ctz(done.legal_kicks()));
  CHECK_THROWS_WITH(service->evaluate(done, e), Catch::Contains("finished"));

  ServiceOptions bad;
  bad.device = "cuda:7";
  if (!torch::cuda::is_available())
    CHECK_THROWS_WITH(make_net_evaluator(net, meta, bad), Catch::Contains("CUDA is not available"));
  bad.device = "gpu";
  CHECK_THROWS_WITH(make_net_evaluator(net, meta, bad),
                    Catch::Contains("service.device: 'gpu' is not a device"));
  auto cfg = ConfigReader::from_string("device: cpu\nmax_batch: 0\n", "svc.yaml");
  CHECK_THROWS_WITH(parse_service_options(cfg), Catch::Contains("max_batch"));
}

#if defined(__GLIBC__)
TEST_CASE("a CPU service keeps freed memory mapped: a 16 MiB block comes from the heap", "[nn]") {
  // glibc maps blocks of 128 KiB or more separately by default and unmaps them when freed, so
  // each forward pass faulted its activation tensors in again (docs/experiments/selfplay-throughput.md). A
  // CPU
  // service raises the mmap threshold (and the trim threshold) for the whole process.
  const size_t bytes = size_t(16) << 20;
  auto touch = [](void* p) { static_cast<volatile char*>(p)[0] = 1; };
  // Control (when this process has not raised the thresholds yet, as under ctest, which runs
  // each test case alone): before any service, such a block is a mapping of its own.
  const size_t mapped0 = mallinfo2().hblkhd;
  void* before = std::malloc(bytes);
  REQUIRE(before != nullptr);
  touch(before);
  const bool defaults = mallinfo2().hblkhd > mapped0;
  ServiceOptions so;
  so.device = "cpu";
  auto service = make_net_evaluator(random_tiny(), CheckpointMeta{}, so, "test");
  const size_t mapped1 = mallinfo2().hblkhd;
  void* during = std::malloc(bytes);
  REQUIRE(during != nullptr);
  touch(during);
  CHECK(mallinfo2().hblkhd == mapped1);  // from the heap, not a mapping of its own
  std::free(during);
  std::free(before);
  if (!defaults) WARN("this process had raised malloc's mmap threshold before the test");
}
#endif
