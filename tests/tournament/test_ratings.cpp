#include <catch2/catch.hpp>

#include <cmath>

#include "tournament/ratings.h"

using namespace ps::tour;

namespace {

std::vector<GameOutcome> games(int winner, int loser, int count) {
  return std::vector<GameOutcome>(size_t(count), GameOutcome{winner, loser});
}

void add(std::vector<GameOutcome>& v, int winner, int loser, int count) {
  auto g = games(winner, loser, count);
  v.insert(v.end(), g.begin(), g.end());
}

const double kEloPerNat = 400.0 / std::log(10.0);

}  // namespace

TEST_CASE("two players 3-1: MLE difference is 400 log10(3) with the Fisher-information interval",
          "[ratings]") {
  std::vector<GameOutcome> g;
  add(g, 0, 1, 3);
  add(g, 1, 0, 1);
  RatingOptions o;
  o.anchor = 1;
  RatingResult r = compute_ratings(2, g, o);
  REQUIRE(r.converged);
  CHECK(r.prior_draws_used == 0.0);
  CHECK(r.players[1].elo == Approx(0.0).margin(1e-9));
  CHECK(r.players[0].elo == Approx(400.0 * std::log10(3.0)).epsilon(1e-9));  // 190.85
  CHECK(r.players[0].elo == Approx(190.85).margin(0.01));
  // Fisher information of theta: n p (1 - p) = 4 * 3/4 * 1/4 = 0.75 (natural units).
  const double se = std::sqrt(1.0 / 0.75) * kEloPerNat;
  CHECK(r.players[0].stderr_elo == Approx(se).epsilon(1e-6));
  CHECK(r.players[0].ci95 == Approx(1.959964 * se).epsilon(1e-5));
  CHECK(r.players[1].ci95 == 0.0);
  CHECK(r.players[0].games == 4);
  CHECK(r.players[0].wins == 3);
  CHECK(elo_from_score(0.75) == Approx(190.85).margin(0.01));
}

TEST_CASE("three players whose scores fit strengths 4:2:1 exactly", "[ratings]") {
  // If exp(theta) = 4, 2, 1 then P(A>B) = 4/6 = 2/3, P(B>C) = 2/3, P(A>C) = 4/5. With results
  // A-B 2-1, B-C 2-1, A-C 4-1 each player's wins equal their expected wins at those strengths
  // (A: 3 * 2/3 + 5 * 4/5 = 6 = 2 + 4; B: 3 * 1/3 + 3 * 2/3 = 3 = 1 + 2), so that is the MLE:
  // A = 400 log10(4) = 240.82, B = 400 log10(2) = 120.41, C = 0.
  std::vector<GameOutcome> g;
  add(g, 0, 1, 2);
  add(g, 1, 0, 1);
  add(g, 1, 2, 2);
  add(g, 2, 1, 1);
  add(g, 0, 2, 4);
  add(g, 2, 0, 1);
  RatingOptions o;
  o.anchor = 2;
  RatingResult r = compute_ratings(3, g, o);
  REQUIRE(r.converged);
  CHECK(r.players[0].elo == Approx(240.82).margin(0.01));
  CHECK(r.players[1].elo == Approx(120.41).margin(0.01));
  CHECK(r.players[2].elo == Approx(0.0).margin(1e-9));
  // Moving the anchor shifts every rating by the same amount.
  o.anchor = 0;
  RatingResult s = compute_ratings(3, g, o);
  CHECK(s.players[0].elo == Approx(0.0).margin(1e-9));
  CHECK(s.players[1].elo == Approx(-120.41).margin(0.01));
  CHECK(s.players[2].elo == Approx(-240.82).margin(0.01));
  // Observed information for theta_A, theta_B (C fixed): with n p (1 - p) per pair
  // AB: 3 * 2/9 = 2/3, BC: 2/3, AC: 5 * 4/25 = 4/5, the matrix is
  // [[2/3 + 4/5, -2/3], [-2/3, 2/3 + 2/3]]; its inverse's diagonal gives the variances.
  const double a = 2.0 / 3 + 4.0 / 5, b = -2.0 / 3, d = 4.0 / 3;
  const double det = a * d - b * b;
  CHECK(r.players[0].stderr_elo == Approx(std::sqrt(d / det) * kEloPerNat).epsilon(1e-6));
  CHECK(r.players[1].stderr_elo == Approx(std::sqrt(a / det) * kEloPerNat).epsilon(1e-6));
}

TEST_CASE("a rock-paper-scissors cycle rates everyone equal", "[ratings]") {
  std::vector<GameOutcome> g;
  add(g, 0, 1, 2);
  add(g, 1, 0, 1);
  add(g, 1, 2, 2);
  add(g, 2, 1, 1);
  add(g, 2, 0, 2);
  add(g, 0, 2, 1);
  RatingResult r = compute_ratings(3, g, {});
  for (const auto& p : r.players) CHECK(p.elo == Approx(0.0).margin(1e-7));
}

TEST_CASE("a perfect score has no MLE: the automatic prior keeps ratings finite", "[ratings]") {
  RatingResult r = compute_ratings(2, games(0, 1, 10), RatingOptions{1});
  CHECK(r.prior_draws_used == 1.0);
  CHECK_FALSE(r.note.empty());
  // One virtual draw: 10.5 wins of 11 -> 400 log10(10.5 / 0.5) = 400 log10(21).
  CHECK(r.players[0].elo == Approx(400.0 * std::log10(21.0)).epsilon(1e-8));
  CHECK(std::isfinite(r.players[0].ci95));
  // An explicit prior is used as given even when the MLE exists.
  std::vector<GameOutcome> g = games(0, 1, 3);
  add(g, 1, 0, 1);
  RatingOptions o{1, 2.0};
  RatingResult p = compute_ratings(2, g, o);
  CHECK(p.players[0].elo == Approx(400.0 * std::log10(4.0 / 2.0)).epsilon(1e-8));
}

TEST_CASE("players without games against the anchor's group are not rated", "[ratings]") {
  std::vector<GameOutcome> g;
  add(g, 0, 1, 2);
  add(g, 1, 0, 2);
  add(g, 2, 3, 1);
  add(g, 3, 2, 1);
  RatingResult r = compute_ratings(4, g, RatingOptions{0});
  CHECK(r.players[0].rated);
  CHECK(r.players[1].rated);
  CHECK(r.players[1].elo == Approx(0.0).margin(1e-9));
  CHECK_FALSE(r.players[2].rated);
  CHECK(std::isnan(r.players[3].elo));
  CHECK(r.note == "2 players have no chain of games to the anchor and are not rated");
  std::vector<GameOutcome> pair;
  add(pair, 0, 1, 2);
  add(pair, 1, 0, 2);
  CHECK(compute_ratings(3, pair, RatingOptions{0}).note ==
        "1 player has no chain of games to the anchor and is not rated");
}

TEST_CASE("notes name their counts in words: one virtual draw, not 1.000000 virtual draw(s)", "[ratings]") {
  CHECK_THAT(compute_ratings(2, games(0, 1, 10), RatingOptions{1}).note,
             Catch::EndsWith("added 1 virtual draw per pair that met"));
  CHECK_THAT(compute_ratings(2, games(0, 1, 10), RatingOptions{1, 0.5}).note,
             Catch::EndsWith("added 0.5 virtual draws per pair that met"));
}

TEST_CASE("elo_for_print: a rating that rounds to zero prints as 0, never -0", "[ratings]") {
  // Regression: an equal player's rating (-1e-12 from the Newton steps) printed as "-0.0".
  CHECK(std::signbit(elo_for_print(-1e-12, 1)) == false);
  CHECK(std::signbit(elo_for_print(-0.0, 0)) == false);
  CHECK(std::signbit(elo_for_print(-0.04, 1)) == false);
  CHECK(elo_for_print(-0.06, 1) == Approx(-0.1));
  CHECK(elo_for_print(-0.4, 0) == 0.0);
  CHECK(elo_for_print(123.456, 2) == Approx(123.46));
  CHECK(std::isnan(elo_for_print(std::nan(""), 1)));
}

TEST_CASE("compute_ratings rejects bad indices", "[ratings]") {
  CHECK_THROWS_AS(compute_ratings(2, {{0, 2}}, {}), std::invalid_argument);
  CHECK_THROWS_AS(compute_ratings(2, {{1, 1}}, {}), std::invalid_argument);
  CHECK_THROWS_AS(compute_ratings(2, {}, RatingOptions{5}), std::invalid_argument);
}
