// The diagnosis behind the MCTS-minimax hybrid (docs/experiments/root-proof-step.md): for every
// game the player named PLAYER (default `model`, the ladder's name) lost in a tournament's or ladder's
// games.tsv (8x10 standard), replays the record and asks, turn by turn from the third turn on:
//  - alphabeta's turns: does a fresh-per-game `alphabeta` player (hand evaluation) given AB_MS
//    per turn score the position as a proven win? The first such turn, counted from the end
//    (the game's last turn is 1), is when alphabeta saw the win.
//  - the model's turns: does AlphaBetaPlayer::prove_root, given SHORT_MS and LONG_MS, prove the
//    turn the model played lost while not every turn is proven lost (a "blunder" the proof step
//    would have excluded)? And the first position where every turn is proven lost (LONG_MS).
// Usage: proof_diagnosis GAMES.tsv AB_MS SHORT_MS LONG_MS [PLAYER]; one line per lost game on
// stdout.
// Timed searches: figures depend on the machine's load.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/record.h"
#include "search/alphabeta.h"

using namespace ps;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, sep)) out.push_back(x);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    std::cerr << "usage: proof_diagnosis GAMES.tsv AB_MS SHORT_MS LONG_MS [PLAYER]\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "proof_diagnosis: cannot read " << argv[1] << "\n";
    return 1;
  }
  const int ab_ms = std::stoi(argv[2]);
  const int proof_ms[2] = {std::stoi(argv[3]), std::stoi(argv[4])};
  const std::string model = argc == 6 ? argv[5] : "model";
  const Pitch& pitch = Pitch::get(8, 10, 2);
  std::string line;
  std::getline(in, line);  // header: game player0 player1 winner termination detail opening record
  std::printf(
      "game turns ab_proven_win_from_end model_turns blunders_short blunders_long "
      "last_blunder_short_from_end last_blunder_long_from_end all_lost_from_end\n");
  while (std::getline(in, line)) {
    const std::vector<std::string> f = split(line, '\t');
    if (f.size() < 8 || f[3] == model || (f[1] != model && f[2] != model)) continue;
    const int model_side = f[1] == model ? 0 : 1;
    std::vector<std::string> turns;
    for (const std::string& t : split(f[7], ' '))
      if (!t.empty()) turns.push_back(t);
    const int n = int(turns.size());
    Game g(pitch, Variant::kStandard);
    AlphaBetaPlayer ab(1), provers[2] = {AlphaBetaPlayer(2), AlphaBetaPlayer(3)};
    int ab_first = -1, model_turns = 0, blunders[2] = {0, 0}, last_blunder[2] = {-1, -1}, all_lost = -1;
    for (int i = 0; i < n; ++i) {
      const int from_end = n - i;
      if (i >= 2 && g.position().side_to_move() != model_side) {
        ab.choose_turn(g, TurnBudget{ab_ms, -1});
        if (ab.last_info().score >= AlphaBetaPlayer::kWin - 1000 && ab_first < 0) ab_first = from_end;
      } else if (i >= 2) {
        ++model_turns;
        Position played = g.position();
        for (char c : turns[size_t(i)]) played.make_kick(c - '0');
        for (int k = 0; k < 2; ++k) {
          const AlphaBetaPlayer::RootProof proof = provers[k].prove_root(g.position(), proof_ms[k]);
          bool played_lost = false;
          for (const AlphaBetaPlayer::TurnProof& t : proof.turns)
            played_lost |= t.hash == played.hash() && t.proven == -1;
          const bool every_turn_lost = proof.complete && proof.lost() == int(proof.turns.size());
          if (played_lost && !every_turn_lost) {
            ++blunders[k];
            last_blunder[k] = from_end;
          }
          if (k == 1 && every_turn_lost && all_lost < 0) all_lost = from_end;
        }
      }
      g.play_turn(turns[size_t(i)]);
    }
    std::printf("%s %d %d %d %d %d %d %d %d\n", f[0].c_str(), n, ab_first, model_turns, blunders[0],
                blunders[1], last_blunder[0], last_blunder[1], all_lost);
    std::fflush(stdout);
  }
  return 0;
}
