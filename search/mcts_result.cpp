// The PUCT search's result (root children, best turn, principal variation), tree reuse between
// searches, the root's Dirichlet noise and its excluded turns (Search::Impl, search/mcts_impl.h);
// SearchResult::best_index and sample_turn.
#include "search/mcts_impl.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace ps {

using namespace puct;

namespace {

int64_t count_nodes(const Node* n) {
  int64_t k = 0;
  for_each_child(n, [&](const Node* c) { k += 1 + count_nodes(c); });
  return k;
}

int64_t count_logits(const Node* n) {
  int64_t k = n->logits ? 1 : 0;
  for_each_child(n, [&](const Node* c) { k += count_logits(c); });
  return k;
}

// single-file: omit begin
int64_t count_turn_state_bytes(const Node* n) {
  int64_t k = int64_t(n->turn_state.bytes());
  for_each_child(n, [&](const Node* c) { k += count_turn_state_bytes(c); });
  return k;
}
// single-file: omit end

// Best child for move choice and the principal variation: a proven win, else most visits
// among children not proven lost (ties: higher Q, then prior order).
const Node* best_child(const Node* n) {
  const Node* best = nullptr;
  auto key = [](const Node* c) {
    const int8_t pr = c->proven.load();
    const int32_t v = c->visits.load();
    const double q = v > 0 ? c->value_sum.load() / v : -2.0;
    return std::make_tuple(pr == 1 ? 1 : 0, pr == -1 ? 0 : 1, v, q, c->prior);
  };
  for_each_child(n, [&](const Node* c) {
    if (!best || key(c) > key(best)) best = c;
  });
  return best;
}

}  // namespace

void Search::Impl::prepare_root(const Position& pos) {
  if (have_tree && params.reuse_tree && &pos.pitch() == &root_pos.pitch() &&
      pos.variant() == root_pos.variant()) {
    if (root_pos.hash() == pos.hash()) return;
    Node* found = nullptr;
    for_each_child(root.get(), [&](Node* c) {
      if (found) return;
      if (c->hash == pos.hash()) found = c;
      for_each_child(c, [&](Node* g) {
        if (!found && g->hash == pos.hash()) found = g;
      });
    });
    if (found) {
      promote(found);
      root_pos = pos;
      root_noise.clear();
      check_root_children(main_worker);
      return;
    }
  }
  clear();
  root = std::make_unique<Node>();
  root->hash = pos.hash();
  node_count = 1;
  root_pos = pos;
  have_tree = true;
}

// Makes the node reached from the old root by `child` (and then `grandchild`, if any) the new
// root, freeing everything else.
void Search::Impl::promote(Node* target) {
  auto nr = std::make_unique<Node>();
  nr->visits.store(target->visits.load());
  nr->value_sum.store(target->value_sum.load());
  nr->proven.store(target->proven.load());
  nr->state.store(target->state.load());
  nr->complete.store(target->complete.load());
  nr->exhausted.store(target->exhausted.load());
  nr->capped.store(target->capped.load());
  nr->checked.store(target->checked.load());
  nr->logits = std::move(target->logits);
  // single-file: omit begin
  nr->turn_state = std::move(target->turn_state);
  // single-file: omit end
  nr->winner = target->winner;
  nr->hash = target->hash;
  nr->num_children.store(target->num_children.load());
  nr->first.store(target->first.load());
  target->first.store(nullptr);
  target->num_children.store(0);
  free_children(root.get());
  root = std::move(nr);
  node_count = 1 + count_nodes(root.get());
  logits_stored = count_logits(root.get());
  // single-file: omit begin
  turn_state_bytes = count_turn_state_bytes(root.get());
  // single-file: omit end
}

// single-file: omit begin (the exported bot plays without root noise)
void Search::Impl::add_root_noise() {
  const size_t n = root->num_children.load();
  if (!params.root_noise || n == 0 || !root_noise.empty()) return;
  std::gamma_distribution<double> gamma(params.dirichlet_alpha_total / double(n), 1.0);
  root_noise.resize(n);
  double sum = 0;
  for (auto& x : root_noise) sum += (x = float(gamma(rng)));
  if (sum <= 0) {
    for (auto& x : root_noise) x = float(1.0 / double(n));
  } else {
    for (auto& x : root_noise) x = float(x / sum);
  }
}
// single-file: omit end

SearchResult Search::Impl::make_result() const {
  SearchResult r;
  const Node* rt = root.get();
  // single-file: omit begin (the exported bot plays best_turn: no room for the root's list)
  r.children.reserve(rt->num_children.load());
  for_each_child(rt, [&](const Node* c) {
    RootChild rc;
    rc.kicks = kicks_of(c);
    rc.visits = c->visits.load();
    rc.q = rc.visits > 0 ? float(c->value_sum.load() / rc.visits) : 0.0f;
    rc.prior = c->prior;
    rc.proven = c->proven.load();
    r.children.push_back(std::move(rc));
  });
  // single-file: omit end
  r.root_visits = rt->visits.load();
  r.root_proven = -rt->proven.load();
  r.root_value = r.root_proven != 0  ? float(r.root_proven)
                 : r.root_visits > 0 ? float(-rt->value_sum.load() / r.root_visits)
                                     : 0.0f;
  if (const Node* b = best_child(rt)) r.best_turn = kicks_of(b);
  // single-file: omit begin (the exported bot plays best_turn: no room for the variation)
  for (const Node* n = rt; n;) {
    const Node* b = best_child(n);
    if (!b) break;
    r.principal_variation.push_back(kicks_of(b));
    if (b->visits.load() == 0) break;
    n = b;
  }
  // single-file: omit end
  r.tree_nodes = node_count.load();
  return r;
}

// single-file: omit begin (the exported bot shows no variations, has no proof step, plays best_turn)
std::vector<std::string> Search::Impl::variation(const std::string& first_turn, int max_turns) const {
  std::vector<std::string> pv;
  const Node* first = nullptr;
  if (root)
    for_each_child(root.get(), [&](const Node* c) {
      if (!first && kicks_of(c) == first_turn) first = c;
    });
  for (const Node* n = first; n && int(pv.size()) < max_turns; n = best_child(n)) {
    pv.push_back(kicks_of(n));
    if (n->visits.load() == 0) break;
  }
  return pv;
}

// Marks the root's children listed in excluded_root_turns proven lost for the root's side to
// move (the MCTS-solver's mark: never selected, never played while a turn not proven lost
// exists; when every listed child is lost the solver widens the root).
void Search::Impl::exclude_root_children() {
  if (excluded_root_turns.empty()) return;
  std::sort(excluded_root_turns.begin(), excluded_root_turns.end());
  for_each_child(root.get(), [&](Node* c) {
    if (std::binary_search(excluded_root_turns.begin(), excluded_root_turns.end(), c->hash)) {
      c->proven.store(-1, std::memory_order_relaxed);
      c->checked.store(1, std::memory_order_relaxed);
    }
  });
  excluded_root_turns.clear();
}

int SearchResult::best_index() const {
  for (size_t i = 0; i < children.size(); ++i)
    if (children[i].kicks == best_turn) return int(i);
  return -1;
}

std::string sample_turn(const SearchResult& result, double temperature, std::mt19937_64& rng) {
  if (result.children.empty()) throw std::invalid_argument("sample_turn: the search result has no turns");
  if (!(temperature > 0) || result.root_proven != 0) return result.best_turn;
  std::vector<double> w(result.children.size(), 0.0);
  double total = 0, max_visits = 0;
  for (const auto& c : result.children)
    if (c.proven != -1) max_visits = std::max(max_visits, double(c.visits));
  if (max_visits <= 0) return result.best_turn;
  for (size_t i = 0; i < w.size(); ++i) {
    const auto& c = result.children[i];
    if (c.proven == -1 || c.visits == 0) continue;
    // Normalised by the largest count so that small temperatures do not overflow.
    w[i] = std::pow(double(c.visits) / max_visits, 1.0 / temperature);
    total += w[i];
  }
  if (!(total > 0)) return result.best_turn;
  std::uniform_real_distribution<double> u(0.0, total);
  double x = u(rng);
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] <= 0) continue;
    if (x < w[i]) return result.children[i].kicks;
    x -= w[i];
  }
  for (size_t i = w.size(); i-- > 0;)
    if (w[i] > 0) return result.children[i].kicks;
  return result.best_turn;
}
// single-file: omit end

}  // namespace ps
