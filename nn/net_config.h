// Architecture of the policy/value network (torch-free, library ps_nn_core), read from YAML with
// ps::ConfigReader. Examples: configs/net-tiny.yaml, configs/net-medium.yaml.
//
// Keys (defaults = the "medium" preset):
//   preset: tiny | medium   start from a preset, then apply the keys below      (medium)
//   blocks: 6               residual blocks in the trunk (>= 1)
//   channels: 64            trunk channels C (>= 4)
//   global_pool_every: 3    every k-th block is a global-pooling-bias block (KataGo style:
//                           part of the block's first conv is pooled over the pitch, mean,
//                           size-scaled mean and max, and turned into per-channel biases);
//                           0 = none
//   global_pool_channels: 16  channels pooled in such a block (1 .. C-1)
//   policy_channels: 32     policy head: 1x1 conv C -> P, BN, ReLU, 1x1 conv P -> 8
//   value_channels: 32      value head: 1x1 conv C -> V, BN, ReLU, masked global pooling
//   value_hidden: 64        ... -> FC 3V -> value_hidden, ReLU -> FC -> value (tanh) and aux
//   moves_left_head: true   auxiliary output: turns until the game ends (trainer's choice)
// The net is fully convolutional: one net plays any pitch size.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "core/config.h"

namespace ps::nn {

struct NetConfig {
  int blocks = 6;
  int channels = 64;
  int global_pool_every = 3;
  int global_pool_channels = 16;
  int policy_channels = 32;
  int value_channels = 32;
  int value_hidden = 64;
  bool moves_left_head = true;

  /// The int fields above by their YAML and checkpoint-JSON key, in this order; the one bool,
  /// moves_left_head, comes after them. One list for parsing, comparing and storing a NetConfig.
  static const std::array<std::pair<const char*, int NetConfig::*>, 7> kIntFields;

  /// A lower bound on the net's parameter count (the convolutions and the value output), so a
  /// file's size can be checked against its metadata before the net is built.
  int64_t min_parameters() const;

  /// 2 blocks x 16 channels: for CPU tests.
  static NetConfig tiny();
  /// 6 blocks x 64 channels (the defaults).
  static NetConfig medium();
  /// A preset by name ("tiny", "medium"); throws std::invalid_argument naming the bad name.
  static NetConfig preset(const std::string& name);

  /// Throws std::invalid_argument naming the first bad field and its value.
  void validate() const;
  /// Is block i (0-based) a global-pooling block?
  bool is_global_pool_block(int i) const {
    return global_pool_every > 0 && (i + 1) % global_pool_every == 0;
  }
  /// "6x64 gp3/16 p32 v32/64 ml" style summary for logs.
  std::string summary() const;
  bool operator==(const NetConfig& o) const;
  bool operator!=(const NetConfig& o) const { return !(*this == o); }
};

/// Reads the keys above from r (calls r.finish(), so unknown keys are errors) and validates.
/// Throws ps::ConfigError naming the key.
NetConfig parse_net_config(ConfigReader& r);

/// True for the device names LibTorch code here accepts: "cpu", "cuda", "cuda:N" (N up to 3
/// digits, no leading zero).
/// Only the spelling: whether the device exists is checked when it is opened.
bool is_device_name(const std::string& name);

}  // namespace ps::nn
