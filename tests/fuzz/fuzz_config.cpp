// YAML config reading (core/config.h) through the torch-free config parsers: search params,
// net config, self-play config and tournament config. Errors must be ConfigError naming the
// source.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/config.h"
#include "fuzz_common.h"
#include "nn/net_config.h"
#include "search/params.h"
#include "selfplay/selfplay.h"
#include "tournament/tournament_config.h"

namespace {

template <class F>
void attempt(const std::string& text, F parse) {
  try {
    ps::ConfigReader r = ps::ConfigReader::from_string(text, "fuzz.yaml");
    parse(r);
  } catch (const ps::ConfigError& e) {
    ps::fuzz::expect(ps::fuzz::starts_with(e.what(), "fuzz.yaml"), "ConfigError without source",
                     e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] & 3) {
    case 0:
      attempt(text, [](ps::ConfigReader& r) {
        ps::parse_search_params(r);
        r.finish();
      });
      break;
    case 1:
      attempt(text, [](ps::ConfigReader& r) {
        ps::nn::parse_net_config(r);
        r.finish();
      });
      break;
    case 2:
      attempt(text, [](ps::ConfigReader& r) {
        ps::parse_selfplay_config(r);
        r.finish();
      });
      break;
    default:
      attempt(text, [](ps::ConfigReader& r) { ps::tour::parse_tournament_config(r); });
  }
  return 0;
}
