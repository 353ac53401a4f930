// Ratings of a run: Bradley-Terry Elo (tournament/ratings.h) over every evaluation game of the
// finished generations (RUNDIR/eval/gen-*/outcomes.json), random anchored at 0 (greedy when
// random played no game, else generation 0), written to
// RUNDIR/ratings.json with the cross table. Recomputed from all games after each generation, so
// `run` and the gatekeeper role rate the same games the same way.
#pragma once

#include <string>
#include <vector>

#include "tournament/ratings.h"

namespace ps {

struct Outcome {
  std::string winner, loser;
};

/// Every evaluation game of the finished generations (eval/gen-*/outcomes.json, in name order).
/// Throws std::runtime_error naming a malformed file.
std::vector<Outcome> load_outcomes(const std::string& eval_dir);

struct Ratings {
  std::vector<std::string> names;  ///< baselines first (random, greedy), then networks by name
  tour::RatingResult result;       ///< empty with fewer than two players
  std::vector<std::vector<int>> wins;  ///< wins[i][j]: games names[i] won against names[j]
  std::string anchor;
  /// Index of a name, -1 when absent.
  int index(const std::string& n) const;
  /// Elo and 95% interval half-width of a name (NaN when absent).
  std::pair<double, double> elo(const std::string& n) const;
};

Ratings rate_all(const std::vector<Outcome>& outcomes);
/// ratings.json: anchor, players (name, elo, rated, ci95, games, wins), crosstable; atomic.
void write_ratings_json(const Ratings& r, const std::string& path);

}  // namespace ps
