// The network: shapes, value range, policy loss, config parsing, checkpoints.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <zlib.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include "core/checksum.h"
#include "core/fileutil.h"
#include "engine/record.h"
#include "nn/checkpoint.h"

using namespace ps;
using namespace ps::nn;

namespace {

std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "ps_nn_test";
  std::filesystem::create_directories(dir);
  return (dir / (name + "." + std::to_string(::getpid()))).string();
}

/// A tiny net whose batch-norm statistics are not the defaults (so buffers matter on load).
PolicyValueNet trained_tiny(uint64_t seed) {
  torch::manual_seed(seed);
  PolicyValueNet net(NetConfig::tiny());
  net->train();
  std::vector<Position> ps;
  ps.emplace_back(Pitch::standard(), Variant::kStandard);
  ps.push_back(parse_kicks(Pitch::standard(), Variant::kStandard, "0123").position());
  torch::NoGradGuard ng;
  for (int i = 0; i < 3; ++i) net->forward(encode_batch(ps) + 0.1 * i);
  net->eval();
  return net;
}

std::vector<Position> sample_positions(const Pitch& pitch) {
  std::vector<Position> ps;
  ps.emplace_back(pitch, Variant::kStandard);
  ps.push_back(parse_kicks(pitch, Variant::kStandard, "1").position());
  ps.push_back(parse_kicks(pitch, Variant::kNoBounce, "345").position());
  return ps;
}

}  // namespace

TEST_CASE("forward shapes on both pitches, value in [-1, 1]", "[nn]") {
  torch::manual_seed(1);
  PolicyValueNet net(NetConfig::tiny());
  net->eval();
  torch::InferenceMode guard;
  for (const Pitch* pitch : {&Pitch::get(8, 10, 2), &Pitch::get(8, 12, 2)}) {
    torch::Tensor x = encode_batch(sample_positions(*pitch));
    CHECK(x.sizes() == torch::IntArrayRef({3, kNumPlanes, pitch->grid_height(), pitch->grid_width()}));
    NetOutput o = net->forward(x);
    CHECK(o.policy.sizes() == torch::IntArrayRef({3, 8, pitch->grid_height(), pitch->grid_width()}));
    CHECK(o.value.sizes() == torch::IntArrayRef({3}));
    CHECK(o.moves_left.sizes() == torch::IntArrayRef({3}));
    CHECK(o.value.abs().max().item<float>() <= 1.0f);
    CHECK(torch::allclose(o.value, torch::tanh(o.value_logit)));
  }
  CHECK_THROWS_WITH(net->forward(torch::zeros({1, 3, 13, 9})), Catch::Contains("expected input"));
}

TEST_CASE("mixed-pitch batches are rejected with a clear error", "[nn]") {
  std::vector<Position> ps = {Position(Pitch::get(8, 10, 2), Variant::kStandard),
                              Position(Pitch::get(8, 12, 2), Variant::kStandard)};
  CHECK_THROWS_WITH(encode_batch(ps), Catch::Contains("position 1 is on pitch 8x12"));
}

TEST_CASE("policy loss is the chain cross-entropy and trains", "[nn]") {
  torch::manual_seed(2);
  PolicyValueNet net(NetConfig::tiny());
  const Pitch& pitch = Pitch::standard();
  Position start(pitch, Variant::kStandard);
  std::vector<PolicyTarget> targets = {make_policy_target(start, {{"0", 1.0f}})};
  torch::Tensor x = encode_batch(std::vector<Position>{start});
  // With all-zero logits, a single-kick target over 8 legal directions costs log(8).
  torch::Tensor zeros = torch::zeros({1, 8, pitch.grid_height(), pitch.grid_width()});
  CHECK(policy_loss(zeros, targets).item<float>() == Approx(std::log(8.0f)).epsilon(1e-5));
  // A few SGD steps lower the loss.
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1));
  net->train();
  float first = 0, last = 0;
  for (int i = 0; i < 10; ++i) {
    opt.zero_grad();
    torch::Tensor loss = policy_loss(net->forward(x).policy, targets);
    loss.backward();
    opt.step();
    (i == 0 ? first : last) = loss.item<float>();
  }
  CHECK(last < first);
  CHECK_THROWS_WITH(policy_loss(zeros, {}), Catch::Contains("0 targets for a batch of 1"));
}

TEST_CASE("net config from YAML", "[nn]") {
  auto r = ConfigReader::from_string("preset: tiny\nchannels: 24\n", "net.yaml");
  NetConfig c = parse_net_config(r);
  CHECK(c.blocks == 2);
  CHECK(c.channels == 24);
  auto bad = ConfigReader::from_string("blocks: 2\nchanels: 8\n", "net.yaml");
  CHECK_THROWS_WITH(parse_net_config(bad), Catch::Contains("chanels"));
  auto bad2 = ConfigReader::from_string("channels: 8\nglobal_pool_channels: 8\n", "net.yaml");
  CHECK_THROWS_WITH(parse_net_config(bad2), Catch::Contains("global_pool_channels"));
  // An unknown preset names the key's line too, as every other key's error does.
  auto preset = ConfigReader::from_string("blocks: 2\npreset: huge\n", "net.yaml");
  CHECK_THROWS_WITH(parse_net_config(preset),
                    "net.yaml: preset (line 2): unknown net preset 'huge' (expected tiny or medium)");
  // Every key of the field table is read and compared.
  auto all = ConfigReader::from_string(
      "preset: tiny\nblocks: 3\nchannels: 20\nglobal_pool_every: 3\nglobal_pool_channels: 5\n"
      "policy_channels: 6\nvalue_channels: 7\nvalue_hidden: 9\nmoves_left_head: false\n",
      "net.yaml");
  const NetConfig a = parse_net_config(all);
  CHECK(a.summary() == "3x20 gp3/5 p6 v7/9");
  for (const auto& [key, field] : NetConfig::kIntFields) {
    NetConfig b = a;
    b.*field += 1;
    CHECK_FALSE(b == a);
  }
  NetConfig b = a;
  CHECK(b == a);
  b.moves_left_head = true;
  CHECK(b != a);
  for (const char* f : {"net-tiny.yaml", "net-medium.yaml"}) {
    auto rf = ConfigReader::from_file(std::string(PS_SOURCE_DIR) + "/configs/" + f);
    CHECK_NOTHROW(parse_net_config(rf));
  }
}

TEST_CASE("checkpoint round-trip gives identical outputs", "[nn]") {
  PolicyValueNet net = trained_tiny(3);
  CheckpointMeta meta;
  meta.net = net->config();
  meta.pitches = {"8x10", "8x12"};
  meta.variants = {"standard"};
  meta.training_step = 1234;
  meta.note = "unit test";
  const std::string path = temp_path("roundtrip.psnet");
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(1e-3));
  {  // one step so the optimizer has state
    net->train();
    opt.zero_grad();
    net->forward(encode_batch(sample_positions(Pitch::standard()))).value.sum().backward();
    opt.step();
    net->eval();
  }
  save_checkpoint(path, net, meta, &opt);
  LoadedCheckpoint ck = load_checkpoint(path);
  CHECK(ck.meta.net == net->config());
  CHECK(ck.meta.training_step == 1234);
  CHECK(ck.meta.pitches == meta.pitches);
  CHECK(ck.meta.note == "unit test");
  CHECK(ck.has_optimizer);
  CHECK(read_checkpoint_meta(path).training_step == 1234);
  torch::InferenceMode guard;
  for (const Pitch* pitch : {&Pitch::get(8, 10, 2), &Pitch::get(8, 12, 2)}) {
    torch::Tensor x = encode_batch(sample_positions(*pitch));
    NetOutput a = net->forward(x), b = ck.net->forward(x);
    CHECK(torch::equal(a.policy, b.policy));
    CHECK(torch::equal(a.value, b.value));
    CHECK(torch::equal(a.moves_left, b.moves_left));
  }
  std::remove(path.c_str());
}

TEST_CASE("optimizer state restores for an exact resume", "[nn]") {
  PolicyValueNet net = trained_tiny(4);
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(1e-2));
  torch::Tensor x = encode_batch(sample_positions(Pitch::standard()));
  auto step = [&](PolicyValueNet& n, torch::optim::Adam& o) {
    n->train();
    o.zero_grad();
    n->forward(x).value.pow(2).sum().backward();
    o.step();
  };
  step(net, opt);
  CheckpointMeta meta;
  meta.net = net->config();
  const std::string path = temp_path("resume.psnet");
  save_checkpoint(path, net, meta, &opt);
  LoadedCheckpoint ck = load_checkpoint(path);
  torch::optim::Adam opt2(ck.net->parameters(), torch::optim::AdamOptions(1e-2));
  load_optimizer_state(path, opt2);
  step(net, opt);
  step(ck.net, opt2);
  auto pa = net->parameters(), pb = ck.net->parameters();
  REQUIRE(pa.size() == pb.size());
  for (size_t i = 0; i < pa.size(); ++i) REQUIRE(torch::allclose(pa[i], pb[i], 1e-6, 1e-7));
  // A file saved without an optimizer says so.
  save_checkpoint(path, net, meta);
  CHECK_THROWS_WITH(load_optimizer_state(path, opt2), Catch::Contains("no optimizer state"));
  std::remove(path.c_str());
}

TEST_CASE("corrupted or mismatching checkpoints give clear errors", "[nn]") {
  PolicyValueNet net = trained_tiny(5);
  CheckpointMeta meta;
  meta.net = net->config();
  const std::string path = temp_path("bad.psnet");
  save_checkpoint(path, net, meta);
  const std::string good = read_file(path);

  SECTION("missing file") {
    CHECK_THROWS_AS(load_checkpoint(temp_path("does-not-exist")), CheckpointError);
  }
  SECTION("not a checkpoint") {
    write_file_atomic(path, "hello, this is not a net at all");
    CHECK_THROWS_WITH(load_checkpoint(path), Catch::Contains("bad magic"));
  }
  SECTION("truncated") {
    write_file_atomic(path, good.substr(0, good.size() / 2));
    CHECK_THROWS_WITH(load_checkpoint(path), Catch::Contains("truncated"));
  }
  SECTION("one flipped byte") {
    std::string bad = good;
    bad[bad.size() / 2] ^= 0x5A;
    write_file_atomic(path, bad);
    CHECK_THROWS_WITH(load_checkpoint(path), Catch::Contains("checksum mismatch"));
  }
  SECTION("another input format version") {
    CheckpointMeta old = meta;
    old.input_format_version = kInputFormatVersion + 1;
    save_checkpoint(path, net, old);
    CHECK_THROWS_WITH(load_checkpoint(path), Catch::Contains("input format version"));
  }
  SECTION("metadata does not match the net") {
    CheckpointMeta wrong = meta;
    wrong.net.channels = 32;
    CHECK_THROWS_WITH(save_checkpoint(path, net, wrong), Catch::Contains("differs"));
  }
  SECTION("bad device") {
    CHECK_THROWS_WITH(load_checkpoint(path, "tpu:3"), Catch::Contains("bad device"));
  }
  std::remove(path.c_str());
}

TEST_CASE("a checkpoint trained on a GPU with another LibTorch loads here, optimizer included",
          "[nn]") {
  // Written by tools/device_check.sh on an H200 (LibTorch 2.11 + CUDA 13, `papersoccer train`
  // with device cuda, SGD, 60 steps): its optimizer momenta were CUDA tensors when saved.
  const std::string path =
      std::string(PS_SOURCE_DIR) + "/tests/nn/data/cuda-libtorch2.11-sgd-step60.ckpt";
  LoadedCheckpoint ck = load_checkpoint(path, "cpu");
  CHECK(ck.meta.training_step == 60);
  CHECK(ck.meta.net == NetConfig::tiny());
  REQUIRE(ck.has_optimizer);
  torch::optim::SGD opt(ck.net->parameters(),
                        torch::optim::SGDOptions(0.02).momentum(0.9).nesterov(true));
  load_optimizer_state(path, opt);
  size_t states = 0;
  for (const auto& kv : opt.state()) {
    (void)kv;
    ++states;
  }
  CHECK(states == ck.net->parameters().size());
  // One training step on the CPU with the restored momenta.
  ck.net->train();
  opt.zero_grad();
  ck.net->forward(encode_batch(sample_positions(Pitch::standard()))).value.sum().backward();
  opt.step();
  torch::InferenceMode guard;
  ck.net->eval();
  NetOutput o = ck.net->forward(encode_batch(sample_positions(Pitch::standard())));
  CHECK(o.value.abs().max().item<float>() <= 1.0f);
}

namespace {

uint64_t header_u64(const std::string& file, size_t off) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(uint8_t(file[off + size_t(i)])) << (8 * i);
  return v;
}

/// Recomputes the CRC-32 of the zip entry `name` (stored, not deflated) in a torch archive, in
/// its local header and its central directory entry, as a hostile editor would.
void fix_zip_crc(std::string& zip, const std::string& name) {
  auto u32 = [&](size_t off) { return uint32_t(header_u64(zip.substr(off, 4) + std::string(4, '\0'), 0)); };
  auto put32 = [&](size_t off, uint32_t v) {
    for (int i = 0; i < 4; ++i) zip[off + size_t(i)] = char((v >> (8 * i)) & 0xFF);
  };
  // Sizes and offset from the central directory (the writer puts the CRC in a data descriptor
  // after the data, not in the local header).
  const std::string central("PK\x01\x02", 4);
  for (size_t c = zip.find(central); c != std::string::npos; c = zip.find(central, c + 4)) {
    if (zip.compare(c + 46, name.size(), name) != 0) continue;
    const uint32_t size = u32(c + 20), local = u32(c + 42);
    const uint32_t data = local + 30 + (u32(local + 26) & 0xFFFF) + (u32(local + 28) & 0xFFFF);
    const uint32_t crc = uint32_t(crc32(0, reinterpret_cast<const Bytef*>(zip.data() + data), size));
    put32(c + 16, crc);
    if (zip.compare(data + size, 4, "PK\x07\x08") == 0) put32(data + size + 4, crc);
    return;
  }
  FAIL("no zip entry " << name);
}

}  // namespace

TEST_CASE("a crafted checkpoint (one archive byte changed, checksum recomputed) is an error, not a crash",
          "[nn]") {
  // Regression: `analyse` and `bot` died with SIGSEGV in LibTorch's
  // ScriptTypeParser::parseClassConstant on such a file: the class declaration line
  // "  meta : str" became "  meta = str", an assignment without a type that LibTorch's
  // importer takes for a class constant and dereferences the missing type of.
  PolicyValueNet net = trained_tiny(7);
  CheckpointMeta meta;
  meta.net = net->config();
  const std::string path = temp_path("crafted.psnet");
  save_checkpoint(path, net, meta);
  const std::string good = read_file(path);
  std::string payload = good.substr(24);
  const size_t at = payload.find("  meta : str\n");
  REQUIRE(at != std::string::npos);
  payload[at + 7] = '=';

  write_file_atomic(path, checkpoint_file_bytes(payload));
  CHECK_THROWS_WITH(load_checkpoint(path),
                    Catch::StartsWith("checkpoint " + path + ": corrupted or foreign archive: ") &&
                        Catch::Contains("code/__torch__.py: CRC-32 mismatch"));
  // With the zip's own CRC recomputed too, the declaration itself is refused.
  fix_zip_crc(payload, "archive/code/__torch__.py");
  write_file_atomic(path, checkpoint_file_bytes(payload));
  CHECK_THROWS_WITH(load_checkpoint(path),
                    Catch::Contains("code/__torch__.py:4: '  meta = str' is not a declaration"));
  CHECK_THROWS_AS(read_checkpoint_meta(path), CheckpointError);
  CHECK_THROWS_AS(load_checkpoint_bytes("mem", checkpoint_file_bytes(payload)), CheckpointError);
  std::remove(path.c_str());
}

TEST_CASE(
    "checkpoint garbage with valid checksums is refused: non-finite weights, bad variances, pitches, sizes",
    "[nn]") {
  const std::string path = temp_path("garbage.psnet");
  SECTION("a NaN or infinite weight") {
    for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
      PolicyValueNet net = trained_tiny(3);
      {
        torch::NoGradGuard no_grad;
        net->parameters().front().view(-1)[0] = bad;
      }
      CheckpointMeta meta;
      meta.net = net->config();
      save_checkpoint(path, net, meta);
      CHECK_THROWS_WITH(load_checkpoint(path), Catch::Contains(path) && Catch::Contains("is not finite"));
    }
  }
  SECTION("a negative batch-norm variance") {
    PolicyValueNet net = trained_tiny(3);
    bool found = false;
    {
      torch::NoGradGuard no_grad;
      for (auto& b : net->named_buffers())
        if (!found && b.key().find("running_var") != std::string::npos) {
          b.value().view(-1)[0] = -1.0f;
          found = true;
        }
    }
    REQUIRE(found);
    CheckpointMeta meta;
    meta.net = net->config();
    save_checkpoint(path, net, meta);
    CHECK_THROWS_WITH(load_checkpoint(path),
                      Catch::Contains("running_var") && Catch::Contains("negative variance"));
  }
  SECTION("a pitch the rules do not allow") {
    PolicyValueNet net = trained_tiny(3);
    CheckpointMeta meta;
    meta.net = net->config();
    for (const char* pitch : {"9x10", "0x00", "1000000x1000000"}) {
      meta.pitches = {pitch};
      save_checkpoint(path, net, meta);
      CHECK_THROWS_WITH(read_checkpoint_meta(path), Catch::Contains("bad metadata: pitch"));
    }
  }
  SECTION("metadata asking for a net larger than the file") {
    // The stored metadata says 96 channels for a 16-channel net's 2-bytes-per-parameter file: refused
    // before the net is built (4096 channels took 2.5 GB and 10 s before the shapes were checked).
    PolicyValueNet net = trained_tiny(3);
    CheckpointMeta meta;
    meta.net = net->config();
    save_checkpoint(path, net, meta);
    std::string payload = read_file(path).substr(24);
    const size_t at = payload.find("\"channels\":16");
    REQUIRE(at != std::string::npos);
    payload.replace(at, 13, "\"channels\":96");
    fix_zip_crc(payload, "archive/data.pkl");
    write_file_atomic(path, checkpoint_file_bytes(payload));
    CHECK_THROWS_WITH(load_checkpoint(path),
                      Catch::Contains("parameters, more than its") && Catch::Contains(path));
    NetConfig huge = NetConfig::tiny();
    huge.value_hidden = 1000000000;
    CHECK_THROWS_WITH(huge.validate(), Catch::Contains("value_hidden"));
    huge = NetConfig::tiny();
    huge.policy_channels = 100000000;
    CHECK_THROWS_WITH(huge.validate(), Catch::Contains("policy_channels"));
  }
  std::remove(path.c_str());
}

TEST_CASE("checkpoint checksum is standard FNV-1a 64, files with the old basis still load", "[nn]") {
  // Regression: the offset basis lacked a digit (1469598103934665603, not
  // 14695981039346656037), so standard tools could not verify the checksum.
  CHECK(fnv1a64_bytes("a", 1) == 0xaf63dc4c8601ec8cull);  // the published FNV-1a 64 test vector
  CHECK(fnv1a64_bytes("", 0) == 0xcbf29ce484222325ull);   // = the standard offset basis
  PolicyValueNet net = trained_tiny(9);
  CheckpointMeta meta;
  meta.net = net->config();
  const std::string path = temp_path("fnv.psnet");
  save_checkpoint(path, net, meta);
  std::string file = read_file(path);
  CHECK(header_u64(file, 16) == fnv1a64_bytes(file.data() + 24, file.size() - 24, 14695981039346656037ull));
  CHECK_NOTHROW(load_checkpoint(path));

  // The same payload under the old basis (every file written before the fix) loads too.
  const uint64_t legacy = fnv1a64_bytes(file.data() + 24, file.size() - 24, 1469598103934665603ull);
  for (int i = 0; i < 8; ++i) file[16 + size_t(i)] = char((legacy >> (8 * i)) & 0xFF);
  write_file_atomic(path, file);
  CHECK(load_checkpoint(path).meta.net == net->config());
  // Any other value is a mismatch.
  file[16] ^= 1;
  write_file_atomic(path, file);
  CHECK_THROWS_WITH(load_checkpoint(path), Catch::Contains("checksum mismatch"));
  std::remove(path.c_str());
}
