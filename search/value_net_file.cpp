#include "search/value_net_file.h"

#include <cstring>

#include "core/checksum.h"
#include "core/fileutil.h"

namespace ps {

namespace {

constexpr char kMagic[4] = {'P', 'S', 'V', 'N'};
constexpr uint32_t kMaxLayers = 16;

void put_u32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(char((v >> (8 * i)) & 0xff));
}
void put_u64(std::string& s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(char((v >> (8 * i)) & 0xff));
}
void put_f32(std::string& s, float f) {
  uint32_t v;
  std::memcpy(&v, &f, 4);
  put_u32(s, v);
}

// Bounds-checked little-endian reader; every failure names the file and the field.
class Reader {
 public:
  Reader(const std::string& name, const std::string& bytes, size_t end)
      : name_(name), bytes_(bytes), end_(end) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw ValueNetError("value net " + name_ + ": " + what);
  }
  void need(size_t n, const char* field) const {
    if (end_ - pos_ < n)
      fail(std::string("truncated (the file ends inside ") + field + ")");
  }
  uint32_t u32(const char* field) {
    need(4, field);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(uint8_t(bytes_[pos_ + size_t(i)])) << (8 * i);
    pos_ += 4;
    return v;
  }
  float f32(const char* field) {
    const uint32_t v = u32(field);
    float f;
    std::memcpy(&f, &v, 4);
    return f;
  }
  size_t left() const { return end_ - pos_; }

 private:
  const std::string& name_;
  const std::string& bytes_;
  size_t end_;
  size_t pos_ = 0;
};

}  // namespace

std::string value_net_bytes(const ValueNet& net) {
  net.validate();
  std::string s(kMagic, 4);
  put_u32(s, kValueNetFileVersion);
  put_u32(s, uint32_t(net.width));
  put_u32(s, uint32_t(net.length));
  put_u32(s, uint32_t(net.goal));
  put_u32(s, uint32_t(net.variant));
  put_f32(s, net.value_scale);
  put_u32(s, uint32_t(net.layers.size()));
  for (const DenseLayer& l : net.layers) {
    put_u32(s, uint32_t(l.in));
    put_u32(s, uint32_t(l.out));
  }
  for (const DenseLayer& l : net.layers) {
    for (float w : l.weight) put_f32(s, w);
    for (float b : l.bias) put_f32(s, b);
  }
  put_u64(s, fnv1a64_bytes(s.data(), s.size()));
  return s;
}

void save_value_net(const ValueNet& net, const std::string& path) {
  write_file_atomic(path, value_net_bytes(net));
}

ValueNet parse_value_net(const std::string& name, const std::string& bytes) {
  Reader head(name, bytes, bytes.size());
  if (bytes.size() < 4 || std::memcmp(bytes.data(), kMagic, 4) != 0)
    head.fail(bytes.size() < 4 ? "truncated (shorter than the magic)"
                               : "not a value-net file (bad magic; expected PSVN)");
  if (bytes.size() < 8 + 8) head.fail("truncated (no room for version and checksum)");
  // The checksum first: every later error is then about a file written that way, not noise.
  const size_t body = bytes.size() - 8;
  uint64_t sum = 0;
  for (int i = 0; i < 8; ++i) sum |= uint64_t(uint8_t(bytes[body + size_t(i)])) << (8 * i);
  Reader r(name, bytes, body);
  r.u32("magic");
  const uint32_t version = r.u32("version");
  if (version != kValueNetFileVersion)
    r.fail("unsupported version " + std::to_string(version) + " (this build reads version " +
           std::to_string(kValueNetFileVersion) + ")");
  if (fnv1a64_bytes(bytes.data(), body) != sum)
    r.fail("checksum mismatch (the file is truncated or corrupted)");
  ValueNet net;
  const uint32_t w = r.u32("width"), l = r.u32("length"), g = r.u32("goal");
  const uint32_t variant = r.u32("variant");
  net.value_scale = r.f32("value_scale");
  if (w > 1000 || l > 1000 || g > 1000) r.fail("impossible pitch size");
  net.width = int(w);
  net.length = int(l);
  net.goal = int(g);
  if (variant >= uint32_t(kNumVariants)) r.fail("unknown variant " + std::to_string(variant));
  net.variant = Variant(variant);
  const uint32_t n = r.u32("num_layers");
  if (n < 2 || n > kMaxLayers)
    r.fail("num_layers " + std::to_string(n) + " out of range [2, " + std::to_string(kMaxLayers) + "]");
  net.layers.resize(n);
  uint64_t floats = 0;
  for (auto& layer : net.layers) {
    const uint32_t in = r.u32("layer sizes"), out = r.u32("layer sizes");
    if (in < 1 || out < 1 || in > 100000 || out > 4096) r.fail("a layer size is out of range");
    layer.in = int(in);
    layer.out = int(out);
    floats += uint64_t(in) * out + out;
  }
  // Allocate only what the file holds.
  if (floats * 4 != r.left())
    r.fail(floats * 4 > r.left() ? "truncated (the weights are shorter than the layer sizes say)"
                                 : "trailing bytes after the weights");
  for (auto& layer : net.layers) {
    layer.weight.resize(size_t(layer.in) * size_t(layer.out));
    for (float& x : layer.weight) x = r.f32("weights");
    layer.bias.resize(size_t(layer.out));
    for (float& x : layer.bias) x = r.f32("biases");
  }
  try {
    net.validate();
  } catch (const std::invalid_argument& e) {
    r.fail(e.what());
  }
  net.finalize();
  return net;
}

ValueNet load_value_net(const std::string& path) {
  std::string bytes;
  try {
    bytes = read_file(path);
  } catch (const std::exception& e) {
    throw ValueNetError("value net " + path + ": cannot read the file (" + e.what() + ")");
  }
  return parse_value_net(path, bytes);
}

}  // namespace ps
