#include "tournament/openings.h"

#include <random>
#include <set>
#include <stdexcept>

#include "core/plural.h"
#include "engine/record.h"
#include "engine/turns.h"

namespace ps::tour {

namespace {

// Winner of a game finished with uniformly random distinct turns (a random chain where a
// position has more turns than the generator's enumeration limit).
int random_playout(Position pos, TurnGenerator& gen, std::mt19937_64& rng) {
  std::vector<Turn> turns;
  while (!pos.game_over()) {
    TurnGenerator::Stats st;
    turns = gen.generate(pos, &st);
    if (!st.complete || turns.empty()) {
      random_turn(pos, rng, &pos);
      continue;
    }
    const Turn& t = turns[std::uniform_int_distribution<size_t>(0, turns.size() - 1)(rng)];
    for (char c : t.kicks) pos.make_kick(c - '0');
  }
  return pos.winner();
}

}  // namespace

std::string opening_record(const std::vector<std::string>& turns) {
  std::string s;
  for (const std::string& t : turns) s += (s.empty() ? "" : " ") + t;
  return s;
}

std::vector<std::vector<std::string>> generate_openings(const Pitch& pitch, Variant variant,
                                                        const OpeningOptions& options) {
  if (options.count < 1) throw std::invalid_argument("openings: count must be >= 1");
  if (options.turns < 0) throw std::invalid_argument("openings: turns must be >= 0");
  if (options.turns == 0) return {std::vector<std::string>{}};
  std::mt19937_64 rng(options.seed * 0x9E3779B97F4A7C15ull + 0x5eed);
  TurnGenerator gen;
  gen.set_enumeration_limit(int64_t(1) << 18);  // bounded; see random_playout
  std::vector<std::vector<std::string>> out;
  std::set<uint64_t> seen;
  for (int attempt = 0; attempt < options.max_attempts && int(out.size()) < options.count; ++attempt) {
    Game game(pitch, variant);
    std::vector<std::string> turns;
    bool ok = true;
    for (int t = 0; t < options.turns && ok; ++t) {
      std::vector<Turn> list = gen.generate(game.position());
      if (list.empty()) { ok = false; break; }
      const Turn& pick = list[std::uniform_int_distribution<size_t>(0, list.size() - 1)(rng)];
      game.play_turn(pick.kicks);
      turns.push_back(pick.kicks);
      if (game.position().game_over()) ok = false;
    }
    if (!ok) continue;
    const Position& pos = game.position();
    if (gen.find_winning_turn(pos) || gen.all_turns_lose(pos)) continue;
    if (seen.count(pos.hash())) continue;
    if (options.balance_rollouts > 0) {
      int wins0 = 0;
      for (int r = 0; r < options.balance_rollouts; ++r) wins0 += random_playout(pos, gen, rng) == 0;
      const double share = double(wins0) / options.balance_rollouts;
      if (share < 0.5 - options.max_imbalance || share > 0.5 + options.max_imbalance) continue;
    }
    seen.insert(pos.hash());
    out.push_back(std::move(turns));
  }
  if (int(out.size()) < options.count)
    throw std::runtime_error("openings: found only " + std::to_string(out.size()) + " of " +
                             counted(options.count, "balanced opening") + " of " +
                             counted(options.turns, "turn") + " in " +
                             counted(options.max_attempts, "attempt"));
  return out;
}

}  // namespace ps::tour
