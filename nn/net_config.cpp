#include "nn/net_config.h"

#include <stdexcept>

#include "core/field_check.h"

namespace ps::nn {

const std::array<std::pair<const char*, int NetConfig::*>, 7> NetConfig::kIntFields = {{
    {"blocks", &NetConfig::blocks},
    {"channels", &NetConfig::channels},
    {"global_pool_every", &NetConfig::global_pool_every},
    {"global_pool_channels", &NetConfig::global_pool_channels},
    {"policy_channels", &NetConfig::policy_channels},
    {"value_channels", &NetConfig::value_channels},
    {"value_hidden", &NetConfig::value_hidden},
}};

NetConfig NetConfig::tiny() {
  NetConfig c;
  c.blocks = 2;
  c.channels = 16;
  c.global_pool_every = 2;
  c.global_pool_channels = 4;
  c.policy_channels = 8;
  c.value_channels = 8;
  c.value_hidden = 16;
  return c;
}

NetConfig NetConfig::medium() { return NetConfig{}; }

NetConfig NetConfig::preset(const std::string& name) {
  if (name == "tiny") return tiny();
  if (name == "medium") return medium();
  throw std::invalid_argument("unknown net preset '" + name + "' (expected tiny or medium)");
}

void NetConfig::validate() const {
  const FieldCheck check("net config: ");
  check(blocks >= 1 && blocks <= 256, "blocks", "must be in 1..256, not " + std::to_string(blocks));
  check(channels >= 4 && channels <= 4096, "channels", "must be in 4..4096, not " + std::to_string(channels));
  check(global_pool_every >= 0, "global_pool_every",
        "must be >= 0, not " + std::to_string(global_pool_every));
  check(global_pool_every == 0 || (global_pool_channels >= 1 && global_pool_channels < channels),
        "global_pool_channels", "must be in 1..channels-1, not " + std::to_string(global_pool_channels));
  check(policy_channels >= 1 && policy_channels <= 4096, "policy_channels",
        "must be in 1..4096, not " + std::to_string(policy_channels));
  check(value_channels >= 1 && value_channels <= 4096, "value_channels",
        "must be in 1..4096, not " + std::to_string(value_channels));
  check(value_hidden >= 1 && value_hidden <= 65536, "value_hidden",
        "must be in 1..65536, not " + std::to_string(value_hidden));
}

int64_t NetConfig::min_parameters() const {
  const int64_t c = channels;
  // The stem's 3x3 convolution over the input planes, two 3x3 convolutions per block, the
  // heads' 1x1 convolutions and the value head's output layer: a lower bound on the count.
  return 9 * 18 * c + int64_t(blocks) * 2 * 9 * c * c + c * policy_channels + c * value_channels +
         value_hidden;
}

std::string NetConfig::summary() const {
  std::string s = std::to_string(blocks) + "x" + std::to_string(channels);
  if (global_pool_every > 0)
    s += " gp" + std::to_string(global_pool_every) + "/" + std::to_string(global_pool_channels);
  s += " p" + std::to_string(policy_channels) + " v" + std::to_string(value_channels) + "/" +
       std::to_string(value_hidden);
  if (moves_left_head) s += " ml";
  return s;
}

bool NetConfig::operator==(const NetConfig& o) const {
  for (const auto& [key, field] : kIntFields)
    if (this->*field != o.*field) return false;
  return moves_left_head == o.moves_left_head;
}

NetConfig parse_net_config(ConfigReader& r) {
  NetConfig c = r.get_parsed("preset", "medium", NetConfig::preset);
  for (const auto& [key, field] : NetConfig::kIntFields) c.*field = r.get<int>(key, c.*field);
  c.moves_left_head = r.get<bool>("moves_left_head", c.moves_left_head);
  return r.finish_validated(c);
}

bool is_device_name(const std::string& name) {
  if (name == "cpu" || name == "cuda") return true;
  if (name.rfind("cuda:", 0) != 0 || name.size() == 5 || name.size() > 8) return false;
  // LibTorch reads no leading zero ("cuda:007" is refused when the device is opened).
  if (name[5] == '0' && name.size() > 6) return false;
  return name.find_first_not_of("0123456789", 5) == std::string::npos;
}

}  // namespace ps::nn
