// Elo ratings by maximum likelihood over all games (the Bradley-Terry model).
//
// Model (Bradley & Terry 1952; Zermelo 1929): player i beats player j with probability
//   P(i > j) = 1 / (1 + 10^((R_j - R_i) / 400)),
// R in Elo points. The ratings maximise the log-likelihood of all game results at once (not an
// incremental Elo update), as BayesElo (R. Coulom) and Ordo (M. Ballicora) do for chess. There
// are no draws in Paper Soccer, so every game is one win and one loss.
//
// Existence: the maximum is finite exactly when the directed graph "i beat j at least once" is
// strongly connected (Ford 1957). A player with only wins or only losses has no finite MLE; like
// BayesElo's prior, RatingOptions::prior_draws then adds virtual drawn games (half a win and
// half a loss) to every pair that played, which keeps all ratings finite.
//
// Intervals: 95% intervals are +-1.96 standard errors from the inverse of the observed Fisher
// information (minus the Hessian of the log-likelihood at the maximum) with the anchor's rating
// held fixed, so they measure uncertainty relative to the anchor.
#pragma once

#include <string>
#include <vector>

namespace ps::tour {

/// One decided game between two player indices.
struct GameOutcome {
  int winner = 0;
  int loser = 0;
};

struct RatingOptions {
  /// Player index whose rating is fixed at 0 Elo.
  int anchor = 0;
  /// Virtual drawn games added to every pair that met (each counts half a win for both).
  /// Negative = automatic: 0 when the maximum-likelihood estimate exists, else 1.
  double prior_draws = -1.0;
  int max_iterations = 200;
  double tolerance = 1e-10;  ///< stop when the largest Newton step is below this (natural units)
};

struct PlayerRating {
  double elo = 0.0;       ///< rating in Elo points, anchor = 0 (NaN when not rated)
  double stderr_elo = 0;  ///< standard error in Elo points (0 for the anchor)
  double ci95 = 0.0;      ///< half-width of the 95% interval in Elo points (1.96 stderr)
  int games = 0;
  int wins = 0;
  /// False when the player is not connected to the anchor by games (elo is NaN then).
  bool rated = false;
};

struct RatingResult {
  std::vector<PlayerRating> players;
  int anchor = 0;
  double prior_draws_used = 0.0;  ///< virtual draws per pair actually added
  int iterations = 0;             ///< Newton iterations made
  bool converged = false;
  std::string note;               ///< why a prior was used or players are unrated; "" otherwise
};

/// Maximum-likelihood Bradley-Terry ratings of num_players players from the games (Newton's
/// method on the concave log-likelihood). Throws std::invalid_argument when a game or the anchor
/// names a player index outside [0, num_players) or a game has winner == loser.
RatingResult compute_ratings(int num_players, const std::vector<GameOutcome>& games,
                             const RatingOptions& options = {});

/// Elo difference that gives expected score p (0 < p < 1): 400 log10(p / (1 - p)).
double elo_from_score(double p);

/// An Elo value rounded to `decimals` decimals for printing, with a value that rounds to zero
/// made +0 (printf writes -0.04 at one decimal, and negative zero itself, as "-0.0"). NaN stays
/// NaN.
double elo_for_print(double elo, int decimals);

}  // namespace ps::tour
