#include "valuenet/value_net_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/byte_io.h"
#include "core/checksum.h"
#include "core/file_kind.h"
#include "core/fileutil.h"

namespace ps {

namespace {

constexpr uint32_t kMaxLayers = 16;

// Every failure names the file and the field.
class Reader : public ByteReader {
 public:
  Reader(const std::string& name, const std::string& bytes, size_t end)
      : ByteReader(bytes.data(), end), name_(name) {}
  [[noreturn]] void fail(const std::string& what) const override {
    throw ValueNetError("value net " + name_ + ": " + what);
  }

 private:
  std::string truncated(const char* field) const override {
    return std::string("truncated (the file ends inside ") + field + ")";
  }
  const std::string& name_;
};

}  // namespace

std::string value_net_bytes(const ValueNet& net) {
  net.validate();
  ByteWriter w;
  w.raw(kValueNetMagic, 4);
  for (uint32_t v : {net.window_points ? 3u
                     : net.window      ? 2u
                                       : 1u,
                     uint32_t(net.width), uint32_t(net.length), uint32_t(net.goal), uint32_t(net.variant)})
    w.put<uint32_t>(v);
  if (net.window) w.put<uint32_t>(uint32_t(net.window));
  w.put<float>(net.value_scale);
  w.put<uint32_t>(uint32_t(net.layers.size()));
  for (const DenseLayer& l : net.layers) {
    w.put<uint32_t>(uint32_t(l.in));
    w.put<uint32_t>(uint32_t(l.out));
  }
  for (const DenseLayer& l : net.layers) {
    for (float x : l.weight) w.put<float>(x);
    for (float b : l.bias) w.put<float>(b);
  }
  std::string& s = w.str();
  w.put<uint64_t>(fnv1a64_bytes(s.data(), s.size()));
  return s;
}

void save_value_net(const ValueNet& net, const std::string& path) {
  write_file_atomic(path, value_net_bytes(net));
}

namespace {

// The fields after the version: pitch, variant, ball window (version >= 2) and value scale.
void read_rules(Reader& r, uint32_t version, ValueNet& net) {
  const uint32_t w = r.get<uint32_t>("width"), l = r.get<uint32_t>("length"), g = r.get<uint32_t>("goal");
  const uint32_t variant = r.get<uint32_t>("variant");
  if (version >= 2) {
    const uint32_t window = r.get<uint32_t>("window");
    if (window < 1 || window > uint32_t(ValueNet::kMaxWindow))
      r.fail("ball window " + std::to_string(window) + " out of range [1, " +
             std::to_string(ValueNet::kMaxWindow) + "] (a version-2 or -3 file has one)");
    net.window = int(window);
    net.window_points = version >= 3;
  }
  net.value_scale = r.get<float>("value_scale");
  if (!std::isfinite(net.value_scale) || net.value_scale <= 0 || net.value_scale > 99999)
    r.fail("value_scale " + std::to_string(net.value_scale) + " is not in (0, 99999]");
  if (w > 1000 || l > 1000 || g > 1000) r.fail("impossible pitch size");
  net.width = int(w);
  net.length = int(l);
  net.goal = int(g);
  if (variant >= uint32_t(kNumVariants)) r.fail("unknown variant " + std::to_string(variant));
  net.variant = Variant(variant);
}

// The layer sizes, then the weights and biases of every layer: exactly as many bytes as the
// sizes say are left (checked before anything is allocated), each weight finite and within 1e6.
void read_layers(Reader& r, ValueNet& net) {
  const uint32_t n = r.get<uint32_t>("num_layers");
  if (n < 2 || n > kMaxLayers)
    r.fail("num_layers " + std::to_string(n) + " out of range [2, " + std::to_string(kMaxLayers) + "]");
  net.layers.resize(n);
  uint64_t floats = 0;
  for (auto& layer : net.layers) {
    const uint32_t in = r.get<uint32_t>("layer sizes"), out = r.get<uint32_t>("layer sizes");
    if (in < 1 || out < 1 || in > 100000 || out > 4096) r.fail("a layer size is out of range");
    layer.in = int(in);
    layer.out = int(out);
    floats += uint64_t(in) * out + out;
  }
  // Allocate only what the file holds.
  if (floats * 4 != r.left())
    r.fail(floats * 4 > r.left() ? "truncated (the weights are shorter than the layer sizes say)"
                                 : "trailing bytes after the weights");
  // A checksum-valid file of NaN, infinite or huge weights (3e38 loaded) would be played: every
  // evaluation garbage. A trained net's weights are far below the bound.
  constexpr float kMaxWeight = 1e6f;
  auto weight = [&](const char* what, size_t layer_index) {
    const float x = r.get<float>(what);
    if (!std::isfinite(x) || std::abs(x) > kMaxWeight) {
      char value[32];
      std::snprintf(value, sizeof value, "%g", double(x));
      r.fail("layer " + std::to_string(layer_index) + ": " + what + " holds " + value +
             ": not finite, or above 1e6 in magnitude");
    }
    return x;
  };
  for (size_t i = 0; i < net.layers.size(); ++i) {
    auto& layer = net.layers[i];
    layer.weight.resize(size_t(layer.in) * size_t(layer.out));
    for (float& x : layer.weight) x = weight("weights", i);
    layer.bias.resize(size_t(layer.out));
    for (float& x : layer.bias) x = weight("biases", i);
  }
}

}  // namespace

ValueNet parse_value_net(const std::string& name, const std::string& bytes) {
  Reader head(name, bytes, bytes.size());
  if (std::string problem = foreign_file_problem(bytes, FileKind::ValueNet); !problem.empty())
    head.fail(problem);
  // Shorter than the magic is truncated only when the bytes there begin it (a 3-byte text file
  // is not a value net at all).
  if (std::memcmp(bytes.data(), kValueNetMagic, std::min<size_t>(4, bytes.size())) != 0)
    head.fail("not a value-net file (bad magic; expected PSVN)");
  if (bytes.size() < 4) head.fail("truncated (shorter than the magic)");
  if (bytes.size() < 8 + 8) head.fail("truncated (no room for version and checksum)");
  // The checksum first: every later error is then about a file written that way, not noise.
  const size_t body = bytes.size() - 8;
  const uint64_t sum = get_le<uint64_t>(bytes.data() + body);
  Reader r(name, bytes, body);
  r.get<uint32_t>("magic");
  const uint32_t version = r.get<uint32_t>("version");
  if (version < 1 || version > kValueNetFileVersion)
    r.fail("unsupported version " + std::to_string(version) + " (this build reads versions 1 to " +
           std::to_string(kValueNetFileVersion) + ")");
  if (fnv1a64_bytes(bytes.data(), body) != sum)
    r.fail("checksum mismatch (the file is truncated or corrupted)");
  ValueNet net;
  read_rules(r, version, net);
  read_layers(r, net);
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
    bytes = read_file(path, kMaxValueNetBytes);
  } catch (const std::exception& e) {
    throw ValueNetError("value net " + path + ": cannot read the file (" + e.what() + ")");
  }
  return parse_value_net(path, bytes);
}

ValueNet load_value_net(const std::string& path, const std::string& given_by) {
  try {
    return load_value_net(path);
  } catch (const ValueNetError& e) {
    throw ValueNetError(given_by + ": " + e.what());
  }
}

}  // namespace ps
