// A scripted misbehaving protocol engine for the referee tests. It follows the game (applying
// the digits it receives kick by kick) and plays the first distinct turn, except that from
// answer number --at N (default 1) on it misbehaves as --mode says, as soon as the mode is
// possible in the position:
//   ok          never misbehaves
//   illegal     a single kick in a direction that is not legal here
//   incomplete  only the first kick of a turn that needs more kicks (a bounce)
//   garbage     the line "hello world"
//   late        sleeps --sleep-ms (default 3000) before answering
//   hang        never answers, and ignores the end of its input
//   crash       abort() (killed by SIGABRT)
//   exit        exit(3) without answering
//   partial     writes "0" without a newline, then exits
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "engine/record.h"
#include "engine/turns.h"

int main(int argc, char** argv) {
  std::string mode = "ok";
  int at = 1;
  int sleep_ms = 3000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--mode") mode = argv[i + 1];
    else if (a == "--at") at = std::atoi(argv[i + 1]);
    else if (a == "--sleep-ms") sleep_ms = std::atoi(argv[i + 1]);
  }
  std::string line;
  if (!std::getline(std::cin, line)) return 0;
  ps::Game game(ps::Pitch::standard(), ps::Variant::kStandard);
  ps::TurnGenerator gen;
  int answers = 0;
  std::string len, turn;
  while (std::getline(std::cin, len) && std::getline(std::cin, turn)) {
    if (turn != "-")
      for (char c : turn) game.kick(c - '0');
    ++answers;
    const ps::Position& pos = game.position();
    auto turns = gen.generate(pos);
    std::string answer = turns.front().kicks;
    if (answers >= at) {
      if (mode == "illegal") {
        for (int d = 0; d < 8; ++d)
          if (!pos.is_legal(d)) {
            answer = std::string(1, char('0' + d));
            break;
          }
      } else if (mode == "incomplete") {
        for (const auto& t : turns)
          if (t.kicks.size() >= 2) {
            answer = t.kicks.substr(0, 1);
            break;
          }
      } else if (mode == "garbage") {
        answer = "hello world";
      } else if (mode == "late") {
        std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
      } else if (mode == "hang") {
        for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
      } else if (mode == "crash") {
        std::abort();
      } else if (mode == "exit") {
        std::exit(3);
      } else if (mode == "partial") {
        std::cout << "0" << std::flush;
        std::exit(0);
      }
    }
    std::cout << answer << std::endl;
    try {
      game.play_turn(answer);
    } catch (const std::exception&) {
      // The referee ends the game after a bad answer; nothing more will come.
    }
  }
  return 0;
}
