#include "export/net_weights.h"

#include <cmath>
#include <map>

namespace ps::single_file {

namespace {

using Tensors = std::map<std::string, torch::Tensor>;

const torch::Tensor& get(const Tensors& t, const std::string& name) {
  auto it = t.find(name);
  if (it == t.end()) throw std::invalid_argument("single file: the net has no tensor " + name);
  return it->second;
}

std::vector<float> to_vector(const torch::Tensor& t) {
  torch::Tensor c = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

// A weight tensor [out, ...] (conv or linear) with an optional bias or batch norm after it.
Layer make_layer(const Tensors& t, const std::string& name, const std::string& weight,
                 const std::string& bias, const std::string& bn, int rows = -1) {
  const torch::Tensor& w = get(t, weight);
  Layer l;
  l.name = name;
  l.out = int(w.size(0));
  l.fan_in = int(w.numel() / w.size(0));
  l.weights = to_vector(w);
  l.bias.assign(size_t(l.out), 0.0f);
  if (!bias.empty()) l.bias = to_vector(get(t, bias));
  if (!bn.empty()) {
    const std::vector<float> gamma = to_vector(get(t, bn + ".weight")),
                             beta = to_vector(get(t, bn + ".bias")),
                             mean = to_vector(get(t, bn + ".running_mean")),
                             var = to_vector(get(t, bn + ".running_var"));
    if (gamma.size() != size_t(l.out))
      throw std::invalid_argument("single file: " + bn + " does not match " + weight);
    const double eps = 1e-5;  // torch::nn::BatchNorm2d's default, as nn/net.cpp builds them
    for (int r = 0; r < l.out; ++r) {
      const double s = double(gamma[size_t(r)]) / std::sqrt(double(var[size_t(r)]) + eps);
      for (int k = 0; k < l.fan_in; ++k) {
        float& x = l.weights[size_t(r) * l.fan_in + k];
        x = float(double(x) * s);
      }
      l.bias[size_t(r)] = float(double(beta[size_t(r)]) + (double(l.bias[size_t(r)]) - mean[size_t(r)]) * s);
    }
  }
  if (rows >= 0 && rows < l.out) {  // keep the first rows only (value_out: not moves-left)
    l.out = rows;
    l.weights.resize(size_t(rows) * l.fan_in);
    l.bias.resize(size_t(rows));
  }
  return l;
}

}  // namespace

NetWeights net_weights(nn::PolicyValueNet& net) {
  Tensors t;
  for (const auto& p : net->named_parameters()) t[p.key()] = p.value();
  for (const auto& b : net->named_buffers()) t[b.key()] = b.value();
  NetWeights out;
  out.config = net->config();
  const nn::NetConfig& c = out.config;
  out.layers.push_back(make_layer(t, "input_conv", "input_conv.weight", "", "input_bn"));
  for (int i = 0; i < c.blocks; ++i) {
    const std::string b = "block" + std::to_string(i) + ".";
    out.layers.push_back(make_layer(t, b + "conv1", b + "conv1.weight", "", b + "bn1"));
    if (c.is_global_pool_block(i))
      out.layers.push_back(make_layer(t, b + "pool_fc", b + "pool_fc.weight", b + "pool_fc.bias", ""));
    out.layers.push_back(make_layer(t, b + "conv2", b + "conv2.weight", "", b + "bn2"));
  }
  out.layers.push_back(make_layer(t, "policy_conv", "policy_conv.weight", "", "policy_bn"));
  out.layers.push_back(make_layer(t, "policy_out", "policy_out.weight", "policy_out.bias", ""));
  out.layers.push_back(make_layer(t, "value_conv", "value_conv.weight", "", "value_bn"));
  out.layers.push_back(make_layer(t, "value_fc", "value_fc.weight", "value_fc.bias", ""));
  out.layers.push_back(make_layer(t, "value_out", "value_out.weight", "value_out.bias", "", 1));
  check_layer_shapes(out);
  return out;
}

}  // namespace ps::single_file
