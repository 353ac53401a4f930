// Statistics of match results, shared by the loop, the ladder and the report (Elo from a
// score: tournament/ratings.h).
#pragma once

#include <utility>

namespace ps {

/// Wilson score interval of wins out of games (Wilson 1927), as fractions in [0, 1]; z = 1.96
/// gives the 95% interval. {0, 1} when games <= 0.
std::pair<double, double> wilson_interval(int wins, int games, double z = 1.959963984540054);

}  // namespace ps
