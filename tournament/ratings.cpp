#include "tournament/ratings.h"

#include <Eigen/Dense>

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "core/plural.h"

namespace ps::tour {

namespace {

constexpr double kEloPerNat = 400.0 / 2.302585092994046;  // 400 / ln(10)

// log(1 / (1 + exp(-x))) without overflow.
double log_sigmoid(double x) { return x >= 0 ? -std::log1p(std::exp(-x)) : x - std::log1p(std::exp(x)); }
double sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

// Every vertex of `members` reaches every other along edges i -> j where adj(i, j) holds.
template <class Adj>
bool strongly_connected(const std::vector<int>& members, int n, Adj adj) {
  if (members.size() <= 1) return true;
  for (int dir = 0; dir < 2; ++dir) {
    std::vector<char> seen(size_t(n), 0);
    std::vector<int> stack{members[0]};
    seen[size_t(members[0])] = 1;
    size_t reached = 1;
    while (!stack.empty()) {
      const int i = stack.back();
      stack.pop_back();
      for (int j : members) {
        if (seen[size_t(j)]) continue;
        if (dir == 0 ? adj(i, j) : adj(j, i)) {
          seen[size_t(j)] = 1;
          ++reached;
          stack.push_back(j);
        }
      }
    }
    if (reached != members.size()) return false;
  }
  return true;
}

// The Bradley-Terry model of one rating: win counts between the players of the anchor's
// component and the free variables (every member but the anchor, whose rating stays 0).
struct BradleyTerry {
  int n = 0;
  std::vector<double> wins;       // wins[i * n + j]: i beat j (plus virtual draws)
  std::vector<int> members;       // the anchor's component of the "played each other" graph
  std::vector<int> var_of;        // free variable of a player, -1 for the anchor and others
  std::vector<int> free_players;  // player of each free variable
  double& W(int i, int j) { return wins[size_t(i) * size_t(n) + size_t(j)]; }
  double W(int i, int j) const { return wins[size_t(i) * size_t(n) + size_t(j)]; }
  bool met(int i, int j) const { return W(i, j) + W(j, i) > 0; }

  double log_likelihood(const std::vector<double>& t) const {
    double ll = 0;
    for (int i : members)
      for (int j : members)
        if (i != j && W(i, j) > 0) ll += W(i, j) * log_sigmoid(t[size_t(i)] - t[size_t(j)]);
    return ll;
  }
  // Gradient and Hessian of the log-likelihood over the free variables at t.
  void derivatives(const std::vector<double>& t, Eigen::VectorXd& grad, Eigen::MatrixXd& hess) const {
    grad.setZero();
    hess.setZero();
    for (size_t a = 0; a < members.size(); ++a)
      for (size_t b = a + 1; b < members.size(); ++b) {
        const int i = members[a], j = members[b];
        const double nij = W(i, j) + W(j, i);
        if (nij <= 0) continue;
        const double p = sigmoid(t[size_t(i)] - t[size_t(j)]);
        const double g = W(i, j) - nij * p;  // d/d theta_i; d/d theta_j is -g
        const double h = nij * p * (1 - p);
        const int vi = var_of[size_t(i)], vj = var_of[size_t(j)];
        if (vi >= 0) {
          grad(vi) += g;
          hess(vi, vi) -= h;
        }
        if (vj >= 0) {
          grad(vj) -= g;
          hess(vj, vj) -= h;
        }
        if (vi >= 0 && vj >= 0) {
          hess(vi, vj) += h;
          hess(vj, vi) += h;
        }
      }
  }
};

// Counts the games into bt.wins and each player's games and wins into res.
void count_games(const std::vector<GameOutcome>& games, BradleyTerry& bt, RatingResult& res) {
  const int n = bt.n;
  for (const GameOutcome& g : games) {
    if (g.winner < 0 || g.winner >= n || g.loser < 0 || g.loser >= n || g.winner == g.loser)
      throw std::invalid_argument("compute_ratings: bad game (winner " + std::to_string(g.winner) +
                                  ", loser " + std::to_string(g.loser) + ")");
    bt.W(g.winner, g.loser) += 1.0;
    res.players[size_t(g.winner)].games++;
    res.players[size_t(g.winner)].wins++;
    res.players[size_t(g.loser)].games++;
  }
}

// The players connected to the anchor by games, in search order.
std::vector<int> anchor_component(const BradleyTerry& bt, int anchor) {
  std::vector<int> members;
  std::vector<char> seen(size_t(bt.n), 0);
  std::vector<int> stack{anchor};
  seen[size_t(anchor)] = 1;
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    members.push_back(i);
    for (int j = 0; j < bt.n; ++j)
      if (!seen[size_t(j)] && bt.met(i, j)) {
        seen[size_t(j)] = 1;
        stack.push_back(j);
      }
  }
  return members;
}

// "1 virtual draw", "2 virtual draws", "0.5 virtual draws" (std::to_string wrote "1.000000").
std::string virtual_draws_text(double draws) {
  if (draws == std::floor(draws) && std::fabs(draws) < 1e15) return counted(int64_t(draws), "virtual draw");
  std::ostringstream os;
  os << draws << " virtual draws";
  return os.str();
}

// Adds virtual draws to every pair of members that met when the maximum likelihood does not
// exist (or when asked); notes why in res.
void add_prior_draws(const RatingOptions& options, BradleyTerry& bt, RatingResult& res) {
  const bool exists = strongly_connected(bt.members, bt.n, [&](int i, int j) { return bt.W(i, j) > 0; });
  double prior = options.prior_draws;
  if (prior < 0 || (prior == 0 && !exists)) prior = exists ? 0.0 : 1.0;
  if (!exists) {
    if (!res.note.empty()) res.note += "; ";
    res.note +=
        "maximum likelihood does not exist (some players only won or only lost against "
        "part of the field): added " +
        virtual_draws_text(prior) + " per pair that met";
  }
  res.prior_draws_used = prior;
  if (prior > 0)
    for (int i : bt.members)
      for (int j : bt.members)
        if (i != j && bt.met(i, j)) {
          bt.W(i, j) += prior / 2;  // each pair visited twice: (i, j) and (j, i)
        }
  // Note: met() now also holds for the same pairs as before (only pairs that met got a prior).
}

// Newton's method with backtracking from theta = 0 (natural units); sets res.iterations and
// res.converged and returns theta.
std::vector<double> maximise_likelihood(const BradleyTerry& bt, const RatingOptions& options,
                                        RatingResult& res) {
  const int m = int(bt.free_players.size());
  std::vector<double> theta(size_t(bt.n), 0.0);  // anchor stays 0
  if (m == 0) {
    res.converged = true;
    return theta;
  }
  Eigen::VectorXd grad(m);
  Eigen::MatrixXd hess(m, m);
  double ll = bt.log_likelihood(theta);
  for (res.iterations = 0; res.iterations < options.max_iterations; ++res.iterations) {
    bt.derivatives(theta, grad, hess);
    const Eigen::VectorXd step = (-hess).ldlt().solve(grad);
    if (!step.allFinite()) break;
    // Backtracking keeps every step an ascent step (Newton may overshoot far from the optimum).
    double scale = 1.0;
    std::vector<double> next = theta;
    for (int tries = 0; tries < 40; ++tries, scale *= 0.5) {
      for (int v = 0; v < m; ++v)
        next[size_t(bt.free_players[size_t(v)])] =
            theta[size_t(bt.free_players[size_t(v)])] + scale * step(v);
      const double nll = bt.log_likelihood(next);
      if (nll >= ll - 1e-12) {
        ll = nll;
        break;
      }
    }
    theta = next;
    if (scale * step.cwiseAbs().maxCoeff() < options.tolerance) {
      res.converged = true;
      ++res.iterations;
      break;
    }
  }
  return theta;
}

}  // namespace

double elo_from_score(double p) { return 400.0 * std::log10(p / (1.0 - p)); }

double elo_for_print(double elo, int decimals) {
  const double scale = std::pow(10.0, decimals);
  const double rounded = std::round(elo * scale) / scale;
  return rounded == 0.0 ? 0.0 : rounded;  // -0.0 == 0.0 too: both become +0.0
}

RatingResult compute_ratings(int num_players, const std::vector<GameOutcome>& games,
                             const RatingOptions& options) {
  if (num_players <= 0) throw std::invalid_argument("compute_ratings: no players");
  if (options.anchor < 0 || options.anchor >= num_players)
    throw std::invalid_argument("compute_ratings: anchor index " + std::to_string(options.anchor) +
                                " outside [0, " + std::to_string(num_players) + ")");
  const int n = num_players;
  BradleyTerry bt;
  bt.n = n;
  bt.wins.assign(size_t(n) * size_t(n), 0.0);
  RatingResult res;
  res.anchor = options.anchor;
  res.players.assign(size_t(n), PlayerRating{});
  count_games(games, bt, res);

  bt.members = anchor_component(bt, options.anchor);
  for (PlayerRating& p : res.players) p.elo = std::numeric_limits<double>::quiet_NaN();
  if (const int unrated = n - int(bt.members.size()); unrated > 0)
    res.note = counted(unrated, "player") + (unrated == 1 ? " has" : " have") +
               " no chain of games to the anchor and " + (unrated == 1 ? "is" : "are") + " not rated";
  add_prior_draws(options, bt, res);

  bt.var_of.assign(size_t(n), -1);
  for (int i : bt.members)
    if (i != options.anchor) {
      bt.var_of[size_t(i)] = int(bt.free_players.size());
      bt.free_players.push_back(i);
    }
  const std::vector<double> theta = maximise_likelihood(bt, options, res);

  // Covariance from the observed Fisher information at the maximum.
  const int m = int(bt.free_players.size());
  Eigen::MatrixXd cov;
  if (m > 0) {
    Eigen::VectorXd grad(m);
    Eigen::MatrixXd hess(m, m);
    bt.derivatives(theta, grad, hess);
    cov = (-hess).inverse();
  }
  for (int i : bt.members) {
    PlayerRating& r = res.players[size_t(i)];
    r.rated = true;
    r.elo = theta[size_t(i)] * kEloPerNat;
    const int v = bt.var_of[size_t(i)];
    r.stderr_elo = v >= 0 ? std::sqrt(std::max(0.0, cov(v, v))) * kEloPerNat : 0.0;
    r.ci95 = 1.959963984540054 * r.stderr_elo;
  }
  return res;
}

}  // namespace ps::tour
