// The rules a model plays, checked against the games' (the shipped models themselves are found
// by search/bot_player.h's default_model_path).
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/commands.h"

namespace ps::cmd {

void check_model_rules(const std::string& who, const std::string& model,
                       const std::vector<std::string>& pitches, const std::vector<std::string>& variants,
                       const std::string& pitch, const std::string& variant) {
  auto listed = [](const std::vector<std::string>& v, const std::string& x) {
    return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
  };
  auto first = [](const std::vector<std::string>& v) { return v[0] + (v.size() > 1 ? ", ..." : ""); };
  if (!listed(pitches, pitch))
    throw std::invalid_argument(who + ": " + model + " is not trained for pitch " + pitch +
                                " (its pitches: " + first(pitches) + ")");
  if (!listed(variants, variant))
    throw std::invalid_argument(who + ": " + model + " is not trained for variant " + variant +
                                " (its variants: " + first(variants) + ")");
}

}  // namespace ps::cmd
