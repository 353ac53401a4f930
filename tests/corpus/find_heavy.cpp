// Searches random games for adversarial positions of the turn generator and prints them as
// corpus lines (tests/corpus/positions.tsv): W L G variant kicks kind states.
//   find_heavy W L G VARIANT GAMES SEED
// Games are played with engine random_turn (uniform per kick, avoiding kicks that lose at once),
// which draws long zig-zag chains and fills the pitch with tangles. At every turn start it
// counts the distinct mid-turn positions + turn ends (limit 2M) and reports, per kind:
//   tangle     the position with the most states over all games
//   midtangle  the first position over 2^18 states (the players' enumeration limit)
//   longwin    the position whose shortest winning turn is longest (exact: bisection over a
//              win search pruned at L kicks)
//   deadend    the most turns that lose at once (bounces into dead ends / own goals) while a
//              non-losing turn still exists
// Not a test: a tool to (re)build the committed corpus.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "engine/record.h"
#include "engine/turns.h"

using namespace ps;

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: find_heavy W L G VARIANT GAMES SEED\n");
    return 2;
  }
  const Pitch& pitch = Pitch::get(std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3]));
  const Variant variant = parse_variant(argv[4]);
  const int games = std::atoi(argv[5]);
  std::mt19937_64 rng(std::strtoull(argv[6], nullptr, 10));
  TurnGenerator gen, check;
  gen.set_enumeration_limit(int64_t(2) << 20);
  struct Best {
    int64_t score = -1;
    std::string kicks;
    std::string note;
  } tangle, midtangle, longwin, deadend;
  for (int gi = 0; gi < games; ++gi) {
    Game game(pitch, variant);
    std::string flat;
    while (!game.position().game_over()) {
      const Position& pos = game.position();
      const int me = pos.side_to_move();
      int64_t losing = 0;
      const TurnGenerator::Stats st = gen.for_each_turn(pos, [&](const Position& end, const uint8_t*, int) {
        if (end.game_over() && end.winner() != me) ++losing;
      });
      const int64_t states = gen.states_held();
      if (states > tangle.score)
        tangle = {states, flat, "states=" + std::to_string(states) + (st.complete ? "" : "+")};
      if (midtangle.score < 0 && states > (int64_t(1) << 18))
        midtangle = {states, flat, "states=" + std::to_string(states) + (st.complete ? "" : "+")};
      std::string win;
      check.set_state_budget(int64_t(1) << 20);
      if (check.find_winning_turn(pos, &win)) {
        // The shortest winning chain, by bisection over a search pruned at L kicks: every chain
        // into a mid-turn position has the same length (each kick draws one new segment), so
        // the pruned search decides exactly whether a win of <= L kicks exists.
        const int k0 = pos.num_kicks();
        int lo = 0, hi = int(win.size());  // no win of <= lo kicks; a win of hi kicks
        bool exact = true;
        while (hi - lo > 1) {
          const int mid_len = (lo + hi) / 2;
          std::string w;
          const bool has = check.find_turn(
              pos, [me](const Position& e) { return e.winner() == me; },
              [k0, mid_len](const Position& m) { return m.num_kicks() - k0 >= mid_len; }, &w);
          if (!check.last_search_complete()) { exact = false; break; }
          if (has) hi = int(w.size()); else lo = mid_len;
        }
        if (exact && hi > longwin.score)
          longwin = {hi, flat, "shortest win " + std::to_string(hi) + " kicks"};
      }
      if (st.complete && losing < int64_t(st.distinct) && losing > deadend.score)
        deadend = {losing, flat, "losing=" + std::to_string(losing) + "/" + std::to_string(st.distinct)};
      std::string t = random_turn(pos, rng);
      game.play_turn(t);
      flat += t;
    }
  }
  for (auto* b : {&tangle, &midtangle, &longwin, &deadend}) {
    const char* kind = b == &tangle      ? "tangle"
                       : b == &midtangle ? "midtangle"
                       : b == &longwin   ? "longwin"
                                         : "deadend";
    if (b->score < 0) continue;
    std::printf("%d\t%d\t%d\t%s\t%s\t%s\t%s\n", pitch.width(), pitch.length(), pitch.goal(),
                variant_name(variant), b->kicks.empty() ? "-" : b->kicks.c_str(), kind, b->note.c_str());
  }
  return 0;
}
