// A protocol engine for the tests: a test player behind ProtocolBot on stdin/stdout.
//   ps_test_bot [first|random|slow] [--seed N] [--first-turn-ms MS] [--turn-ms MS] [--sleep-ms MS]
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include "tests/tournament/test_players.h"
#include "tournament/protocol.h"

int main(int argc, char** argv) {
  std::string kind = "first";
  uint64_t seed = 1;
  int64_t sleep_ms = 1000;
  ps::tour::ProtocolBotOptions opts;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> long long {
      if (i + 1 >= argc) {
        std::cerr << "ps_test_bot: " << a << " needs a value\n";
        std::exit(2);
      }
      return std::atoll(argv[++i]);
    };
    if (a == "--seed") seed = uint64_t(value());
    else if (a == "--first-turn-ms") opts.first_turn_ms = value();
    else if (a == "--turn-ms") opts.turn_ms = value();
    else if (a == "--sleep-ms") sleep_ms = value();
    else if (a == "first" || a == "random" || a == "slow") kind = a;
    else {
      std::cerr << "ps_test_bot: unknown argument '" << a << "'\n";
      return 2;
    }
  }
  std::unique_ptr<ps::Player> player;
  if (kind == "first") player = std::make_unique<ps::tour::test::FirstTurnPlayer>();
  else if (kind == "random") player = std::make_unique<ps::tour::test::RandomTurnPlayer>(seed);
  else player = std::make_unique<ps::tour::test::SlowPlayer>(sleep_ms);
  try {
    ps::tour::ProtocolBot bot(*player, opts);
    bot.run(std::cin, std::cout, &std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "ps_test_bot: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
