#include "search/descent.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace ps {

namespace {

using Clock = std::chrono::steady_clock;

Position after_turn(const Position& pos, const std::string& kicks) {
  Position end = pos;
  for (char d : kicks) end.make_kick(d - '0');
  return end;
}

}  // namespace

DescentSearch::DescentSearch(Evaluator& evaluator, const SearchParams& params, uint64_t seed)
    : eval_(evaluator), params_(params), rng_(seed) {
  params_.validate();
}

void DescentSearch::clear() { nodes_.clear(); }

// Node values are for the node's side to move; a child that ends the game is valued for the
// player opposite its parent's mover, so that a parent is always the negamax of its children.
void DescentSearch::expand(uint32_t n, const Position& pos, int max_turns) {
  const int me = pos.side_to_move();
  std::vector<Node> kids;
  std::string win;
  bool complete = true;
  if (win_.find_winning_turn(pos, &win)) {
    Node c;
    c.kicks = win;
    c.value = -1.0f;
    c.proven = -1;
    c.prior = 1.0f;
    kids.push_back(std::move(c));
  } else {
    Evaluation ev;
    eval_.evaluate(pos, ev);
    ++evaluations_;
    BestFirstOptions o = root_turn_options(params_);
    o.max_turns = max_turns;
    const BestFirstResult bf = best_first_turns(pos, ev.policy_logits.data(), o);
    complete = bf.complete;
    std::vector<Position> ends;
    std::vector<size_t> to_eval;
    ends.reserve(bf.turns.size());
    for (const Turn& t : bf.turns) {
      Node c;
      c.kicks = t.kicks;
      c.prior = t.prior;
      ends.push_back(after_turn(pos, t.kicks));
      const Position& end = ends.back();
      if (end.game_over()) {
        c.proven = end.winner() == me ? -1 : 1;
        c.value = float(c.proven);
      } else if (win_.find_winning_turn(end, nullptr)) {
        c.proven = 1;  // the opponent scores at once
        c.value = 1.0f;
      } else {
        to_eval.push_back(kids.size());
      }
      kids.push_back(std::move(c));
    }
    if (!to_eval.empty()) {
      std::vector<const Position*> batch;
      for (size_t i : to_eval) batch.push_back(&ends[i]);
      std::vector<Evaluation> out(batch.size());
      eval_.evaluate_many(batch.data(), batch.size(), out.data());
      evaluations_ += int64_t(batch.size());
      for (size_t k = 0; k < to_eval.size(); ++k) kids[to_eval[k]].value = out[k].value;
    }
  }
  nodes_[n].first_child = uint32_t(nodes_.size());
  nodes_[n].num_children = uint32_t(kids.size());
  nodes_[n].expanded = true;
  nodes_[n].complete = complete;
  nodes_[n].max_turns = max_turns;
  for (Node& c : kids) nodes_.push_back(std::move(c));
  update(n);
}

void DescentSearch::update(uint32_t n) {
  Node& node = nodes_[n];
  if (!node.expanded || node.num_children == 0) return;
  float best = -2.0f;
  bool won = false, all_lost = true;
  for (uint32_t i = 0; i < node.num_children; ++i) {
    const Node& c = nodes_[node.first_child + i];
    best = std::max(best, -c.value);
    won |= c.proven == -1;
    all_lost &= c.proven == 1;
  }
  node.value = best;
  node.all_lost = all_lost;
  node.proven = won ? 1 : (all_lost && node.complete) ? -1 : 0;
  if (node.proven) node.value = float(node.proven);
}

uint32_t DescentSearch::best_child(uint32_t n) const {
  const Node& node = nodes_[n];
  uint32_t best = node.first_child;
  for (uint32_t i = 1; i < node.num_children; ++i) {
    const uint32_t k = node.first_child + i;
    const Node& c = nodes_[k];
    const Node& b = nodes_[best];
    if (-c.value > -b.value || (-c.value == -b.value && c.selections < b.selections)) best = k;
  }
  return best;
}

uint32_t DescentSearch::select_child(uint32_t n) const {
  const double c = params_.ubfm_exploration;
  if (c <= 0) return best_child(n);
  const Node& node = nodes_[n];
  double total = 0;  // the node's own count is not kept at the root: its children's sum
  for (uint32_t i = 0; i < node.num_children; ++i) total += nodes_[node.first_child + i].selections;
  const double log_n = std::log(1.0 + total);
  uint32_t best = node.first_child;
  double best_score = -1e9;
  for (uint32_t i = 0; i < node.num_children; ++i) {
    const uint32_t k = node.first_child + i;
    const Node& ch = nodes_[k];
    double score = -double(ch.value);
    if (ch.proven == 0) score += c * std::sqrt(log_n / (1.0 + double(ch.selections)));
    if (score > best_score) {
      best_score = score;
      best = k;
    }
  }
  return best;
}

void DescentSearch::backup(const std::vector<uint32_t>& path) {
  for (size_t i = path.size(); i-- > 0;) update(path[i]);
}

SearchResult DescentSearch::run(const Position& root, const SearchLimits& limits) {
  if (root.game_over()) throw std::invalid_argument("descent search: the game is over");
  if (!root.turn_start())
    throw std::invalid_argument("descent search: the position is in the middle of a turn");
  const auto t0 = Clock::now();
  int64_t visits = limits.visits, time_ms = limits.time_ms;
  if (visits < 0 && time_ms < 0) {
    visits = params_.visits;
    time_ms = params_.time_ms;
  }
  const auto deadline = t0 + std::chrono::milliseconds(time_ms < 0 ? 0 : time_ms);
  auto out_of_budget = [&](int64_t expansions) {
    if (expansions == 0) return false;  // the root is always expanded
    if (visits >= 0 && expansions >= visits) return true;
    if (time_ms >= 0 && Clock::now() >= deadline) return true;
    return int64_t(nodes_.size()) >= kMaxNodes;
  };
  nodes_.clear();
  nodes_.emplace_back();
  evaluations_ = 0;
  max_depth_ = 0;
  const bool descent = params_.algorithm == "descent";
  int64_t expansions = 0;
  std::vector<uint32_t> path;
  while (nodes_[0].proven == 0 && !out_of_budget(expansions)) {
    path.assign(1, 0);
    Position pos = root;
    for (;;) {
      const uint32_t n = path.back();
      if (nodes_[n].proven != 0) break;
      // A leaf, or (widening) a node whose listed turns all lose while more turns exist:
      // list twice as many (one more network call for the logits; the old children are
      // dropped from the tree).
      const bool widen = nodes_[n].expanded && !nodes_[n].complete && nodes_[n].all_lost;
      if (!nodes_[n].expanded || widen) {
        const int first = n == 0 ? params_.root_initial_turns : params_.initial_turns;
        // Doubling saturates: a node listed with "every turn" (1 << 30) overflowed an int
        // (UBSan, tactics test "UBFM and Descent take wins").
        const int wider =
            int(std::min<int64_t>(int64_t(2) * nodes_[n].max_turns, std::numeric_limits<int>::max()));
        expand(n, pos, widen ? wider : first);
        ++expansions;
        if (!descent || out_of_budget(expansions)) break;
        continue;
      }
      const uint32_t c = select_child(n);
      ++nodes_[c].selections;
      for (char d : nodes_[c].kicks) pos.make_kick(d - '0');
      path.push_back(c);
      max_depth_ = std::max(max_depth_, int(path.size()) - 1);
      if (pos.game_over()) break;
    }
    backup(path);
  }
  return result(root, expansions, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
}

SearchResult DescentSearch::result(const Position& root, int64_t expansions, double ms) const {
  SearchResult r;
  const Node& rn = nodes_[0];
  r.root_value = rn.value;
  r.root_proven = rn.proven;
  r.new_visits = expansions;
  r.root_visits = expansions;
  r.evaluations = evaluations_;
  r.tree_nodes = int64_t(nodes_.size());
  r.max_depth = max_depth_;
  r.elapsed_ms = ms;
  for (uint32_t i = 0; i < rn.num_children; ++i) {
    const Node& c = nodes_[rn.first_child + i];
    RootChild rc;
    rc.kicks = c.kicks;
    rc.visits = c.selections;
    rc.q = -c.value;
    rc.prior = c.prior;
    rc.proven = -c.proven;
    r.children.push_back(rc);
  }
  if (rn.num_children > 0) {
    r.best_turn = nodes_[best_child(0)].kicks;
    r.principal_variation = line_from(best_child(0), 1 << 20);
  }
  return r;
}

// Node n's turn, then the best child at each expanded node below it (a finished game or a
// proven leaf is never expanded, so the line ends there).
std::vector<std::string> DescentSearch::line_from(uint32_t n, int max_turns) const {
  std::vector<std::string> line{nodes_[n].kicks};
  while (int(line.size()) < max_turns && nodes_[n].expanded && nodes_[n].num_children > 0) {
    n = best_child(n);
    line.push_back(nodes_[n].kicks);
  }
  return line;
}

std::vector<std::string> DescentSearch::variation(const std::string& first_turn, int max_turns) const {
  if (nodes_.empty() || max_turns < 1) return {};
  const Node& rn = nodes_[0];
  for (uint32_t i = 0; i < rn.num_children; ++i)
    if (nodes_[rn.first_child + i].kicks == first_turn) return line_from(rn.first_child + i, max_turns);
  return {};
}

}  // namespace ps
