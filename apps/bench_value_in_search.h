// `bench value-net --games N`: how much of a value net's knowledge a search turns into play.
//
// The same value net is handed to two searches, each playing N games against one opponent, the
// PUCT search (search/mcts.h) at `visits` visits with uniform per-kick priors and value 0 at every
// leaf:
//   - the PUCT search at the same visits with the net's value at its leaves (uniform priors),
//     and with that value negated (a sign check: it must score lower);
//   - the same PUCT search with a one-turn minimax over each leaf's first `leaf_replies` turns
//     (SearchParams::leaf_reply_turns), with the net's value, its negation and value 0;
//   - alpha-beta over complete turns (search/alphabeta.h) to a fixed depth of 1 and of 2 turns
//     with the net, and to depth 2 with the random evaluation (what breadth alone gives).
// Openings of 3 random turns, one per pair of games, colours swapped; one thread. Each row
// prints wins / games with a 95% Wilson interval. It measures a search, not a net: a value worth
// nothing to a search also teaches nothing to a loop that learns through that search
// (docs/experiments/resnet-loop-learning.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "valuenet/value_net.h"

namespace ps::cmd {

/// Plays the rows above and prints them on stdout. games: even, >= 2; visits >= 1;
/// leaf_replies in 1..256. Throws std::runtime_error when the openings cannot be generated
/// (tour::generate_openings).
void bench_value_in_search(const std::shared_ptr<const ValueNet>& net, const std::string& name, int games,
                           int visits, int leaf_replies, uint64_t seed);

}  // namespace ps::cmd
