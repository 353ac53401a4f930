// The bot's side of the CodinGame protocol (tournament/protocol.h: ProtocolBot::run) with the
// random player, the input as the referee's lines. Errors must be ProtocolError naming the line.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_common.h"
#include "search/baselines.h"
#include "tournament/protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::ostringstream out, log;
  ps::RandomPlayer player(1);
  ps::tour::ProtocolBotOptions options;
  options.first_turn_ms = 2000;  // generous: a slow sanitizer build must not fall back
  options.turn_ms = 2000;
  ps::tour::ProtocolBot bot(player, options);
  try {
    bot.run(in, out, &log);
  } catch (const ps::tour::ProtocolError& e) {
    ps::fuzz::expect(ps::fuzz::starts_with(e.what(), "protocol line "),
                     "ProtocolError without line", e.what());
  }
  return 0;
}
