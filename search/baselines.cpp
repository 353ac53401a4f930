#include "search/baselines.h"

#include "search/leaf_eval.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>


namespace ps {

namespace {

void check_playable(const Game& game, const char* who) {
  if (game.position().game_over())
    throw std::invalid_argument(std::string(who) + ": the game is over");
  if (!game.position().turn_start())
    throw std::invalid_argument(std::string(who) + ": the position is in the middle of a turn");
}

std::string digits(const uint8_t* kicks, int n) {
  std::string s(size_t(n), '0');
  for (int i = 0; i < n; ++i) s[size_t(i)] = char('0' + kicks[i]);
  return s;
}

}  // namespace

// --- RandomPlayer ---------------------------------------------------------------------------

RandomPlayer::RandomPlayer(uint64_t seed) : rng_(seed) {
  gen_.set_enumeration_limit(kEnumerationLimit);
}

std::string RandomPlayer::choose_turn(const Game& game, const TurnBudget&) {
  check_playable(game, "random player");
  std::string chosen;
  uint64_t seen = 0;
  const TurnGenerator::Stats st =
      gen_.for_each_turn(game.position(), [&](const Position&, const uint8_t* kicks, int n) {
        ++seen;
        // Reservoir sampling of size one: keep the seen-th turn with probability 1/seen.
        if (std::uniform_int_distribution<uint64_t>(0, seen - 1)(rng_) == 0) chosen = digits(kicks, n);
      });
  // Too many turns to enumerate: a random chain instead (uniform per kick, not per turn).
  if (!st.complete) return random_turn(game.position(), rng_);
  if (chosen.empty()) throw std::logic_error("random player: no legal turn in an unfinished game");
  return chosen;
}

// --- GreedyPlayer ---------------------------------------------------------------------------

int GreedyPlayer::goal_distance(const Pitch& pitch, int p, int player) {
  return ps::goal_distance(pitch, p, player);
}

GreedyPlayer::GreedyPlayer(uint64_t seed) : rng_(seed) {
  gen_.set_enumeration_limit(kEnumerationLimit);
}

std::string GreedyPlayer::choose_turn(const Game& game, const TurnBudget&) {
  check_playable(game, "greedy player");
  const Position& pos = game.position();
  std::string kicks;
  if (gen_.find_winning_turn(pos, &kicks)) return kicks;
  const int me = pos.side_to_move();
  struct Cand {
    std::string kicks;
    int key;  // lower is better: losing turns last, then distance
  };
  std::vector<Cand> cands;
  auto add = [&](const Position& end, std::string k) {
    const bool loses = end.game_over() && end.winner() != me;
    cands.push_back({std::move(k), (loses ? 1 << 20 : 0) + goal_distance(pos.pitch(), end.ball(), me)});
  };
  const TurnGenerator::Stats st = gen_.for_each_turn(
      pos, [&](const Position& end, const uint8_t* k, int n) { add(end, digits(k, n)); });
  if (!st.complete) {
    // Over the enumeration limit the list holds the lexicographically first turns only: add
    // random chains so that the candidates cover the whole position.
    for (int i = 0; i < kRandomTurns; ++i) {
      Position end = pos;
      std::string k = random_turn(pos, rng_, &end);
      add(end, std::move(k));
    }
  }
  if (cands.empty()) throw std::logic_error("greedy player: no legal turn in an unfinished game");
  std::shuffle(cands.begin(), cands.end(), rng_);  // random among equal keys
  std::stable_sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) { return a.key < b.key; });
  const uint64_t kicks0 = check_.kicks_made();
  int checked = 0;
  for (const Cand& c : cands) {
    if (c.key >= (1 << 20)) break;  // only losing turns are left
    // Bounded: at most kMaxChecks win checks and kCheckKicks kicks of checking per turn.
    if (checked++ >= kMaxChecks || check_.kicks_made() - kicks0 > kCheckKicks) return c.kicks;
    Position end = pos;
    for (char d : c.kicks) end.make_kick(d - '0');
    if (end.game_over()) return c.kicks;  // cannot happen (wins were taken above), but safe
    if (!check_.find_winning_turn(end, nullptr)) return c.kicks;
  }
  return cands.front().kicks;  // every turn loses or lets the opponent win: the closest one
}

// --- UctPlayer ------------------------------------------------------------------------------

UctPlayer::UctPlayer(const Options& options, uint64_t seed) : options_(options), rng_(seed) {
  if (options_.default_visits < 1) throw std::invalid_argument("uct player: default_visits must be >= 1");
  if (!(options_.exploration >= 0)) throw std::invalid_argument("uct player: exploration must be >= 0");
  if (options_.max_children < 1) throw std::invalid_argument("uct player: max_children must be >= 1");
  if (options_.max_nodes < 1) throw std::invalid_argument("uct player: max_nodes must be >= 1");
  gen_.set_enumeration_limit(kEnumerationLimit);
}

void UctPlayer::expand(uint32_t node, const Position& pos) {
  std::vector<Node> kids;
  std::string win;
  const int8_t chooser = int8_t(pos.side_to_move());
  if (gen_.find_winning_turn(pos, &win)) {
    Node c;
    c.kicks = win;
    c.chooser = chooser;
    c.winner = chooser;
    kids.push_back(std::move(c));
  } else {
    const size_t cap = size_t(options_.max_children);
    uint64_t seen = 0;
    const TurnGenerator::Stats st = gen_.for_each_turn(pos, [&](const Position& end, const uint8_t* k, int n) {
      ++seen;
      size_t slot = kids.size();
      if (kids.size() >= cap) {  // reservoir sampling of size cap
        const uint64_t j = std::uniform_int_distribution<uint64_t>(0, seen - 1)(rng_);
        if (j >= cap) return;
        slot = size_t(j);
      } else {
        kids.emplace_back();
      }
      Node& c = kids[slot];
      c.kicks = digits(k, n);
      c.chooser = chooser;
      c.winner = int8_t(end.winner());
    });
    if (!st.complete) {
      // Over the enumeration limit: the sample so far covers only the lexicographically first
      // turns. Replace half of it by random chains (deduplicated by their end position).
      std::vector<uint64_t> ends;
      const size_t want = std::max<size_t>(1, std::min(cap, kids.size()) / 2);
      size_t slot = kids.size() > want ? kids.size() - want : 0;
      kids.resize(std::min(kids.size(), cap));
      for (size_t tries = 0; tries < 4 * want && slot < cap; ++tries) {
        Position end = pos;
        std::string k = random_turn(pos, rng_, &end);
        if (std::find(ends.begin(), ends.end(), end.hash()) != ends.end()) continue;
        ends.push_back(end.hash());
        if (slot >= kids.size()) kids.emplace_back();
        Node& c = kids[slot++];
        c.kicks = std::move(k);
        c.chooser = chooser;
        c.winner = int8_t(end.winner());
      }
    }
    std::shuffle(kids.begin(), kids.end(), rng_);  // unvisited children are tried in this order
  }
  nodes_[node].first_child = uint32_t(nodes_.size());
  nodes_[node].num_children = uint32_t(kids.size());
  nodes_[node].expanded = true;
  for (auto& k : kids) nodes_.push_back(std::move(k));
}

int UctPlayer::rollout(Position pos) {
  while (!pos.game_over()) {
    unsigned legal = pos.legal_kicks();
    int pick = std::uniform_int_distribution<int>(0, __builtin_popcount(legal) - 1)(rng_);
    while (pick--) legal &= legal - 1;
    pos.make_kick(__builtin_ctz(legal));
  }
  return pos.winner();
}

std::string UctPlayer::choose_turn(const Game& game, const TurnBudget& budget) {
  check_playable(game, "uct player");
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  int64_t visits = budget.visits;
  if (visits < 0 && budget.time_ms < 0) visits = options_.default_visits;
  const bool timed = budget.time_ms >= 0;
  const auto deadline = t0 + std::chrono::microseconds(budget.time_ms * 900);  // 10% margin
  const Position& root_pos = game.position();
  nodes_.clear();
  nodes_.emplace_back();
  nodes_[0].chooser = int8_t(root_pos.side_to_move() ^ 1);
  expand(0, root_pos);
  last_playouts_ = 0;
  std::vector<uint32_t> path;
  // A single turn (e.g. the winning one) needs no playouts.
  // Bounded memory: the search ends early once the tree holds max_nodes nodes.
  while (nodes_[0].num_children > 1 && (visits < 0 || last_playouts_ < visits) &&
         !(timed && Clock::now() >= deadline) && int64_t(nodes_.size()) < options_.max_nodes) {
    path.assign(1, 0);
    Position pos = root_pos;
    uint32_t cur = 0;
    int winner = -1;
    while (true) {
      if (nodes_[cur].winner >= 0) {
        winner = nodes_[cur].winner;
        break;
      }
      if (!nodes_[cur].expanded) expand(cur, pos);
      const Node& n = nodes_[cur];
      uint32_t pick = UINT32_MAX;
      double best = -1e300;
      const double log_n = std::log(double(std::max<int64_t>(n.visits, 1)));
      for (uint32_t i = n.first_child; i < n.first_child + n.num_children; ++i) {
        const Node& c = nodes_[i];
        if (c.visits == 0) {
          pick = i;
          break;
        }
        const double s = c.wins / double(c.visits) +
                         options_.exploration * std::sqrt(log_n / double(c.visits));
        if (s > best) {
          best = s;
          pick = i;
        }
      }
      const bool fresh = nodes_[pick].visits == 0;
      for (char d : nodes_[pick].kicks) pos.make_kick(d - '0');
      path.push_back(pick);
      cur = pick;
      if (fresh) {
        winner = nodes_[cur].winner >= 0 ? nodes_[cur].winner : rollout(pos);
        break;
      }
    }
    for (uint32_t i : path) {
      nodes_[i].visits += 1;
      if (nodes_[i].chooser == winner) nodes_[i].wins += 1.0;
    }
    ++last_playouts_;
  }
  last_root_.clear();
  const Node& r = nodes_[0];
  size_t best = 0;
  for (uint32_t i = r.first_child; i < r.first_child + r.num_children; ++i) {
    const Node& c = nodes_[i];
    last_root_.push_back({c.kicks, c.visits, c.visits ? c.wins / double(c.visits) : 0.0});
    const RootStat& b = last_root_[best];
    const RootStat& x = last_root_.back();
    if (x.visits > b.visits || (x.visits == b.visits && x.mean > b.mean)) best = last_root_.size() - 1;
  }
  // The tree is rebuilt every turn: free it now, so that a player kept between turns (a game
  // of `serve`, a tournament game) holds no search memory while it waits (in `serve`,
  // 8 idle uct games held 167 MB).
  std::vector<Node>().swap(nodes_);
  return last_root_[best].kicks;
}

}  // namespace ps
