// The PUCT search (AlphaZero's, over whole turns): Search's public functions, a search's run
// and the root's turn list (Search::Impl, search/mcts_impl.h; the other concepts in
// mcts_expand.cpp, mcts_select.cpp and mcts_result.cpp).
#include "search/mcts.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "engine/turns.h"
#include "search/mcts_impl.h"
#include "search/policy_temperature.h"

namespace ps {

using namespace puct;

void Search::Impl::clear() {
  if (root) free_children(root.get());
  root.reset();
  have_tree = false;
  root_noise.clear();
  node_count = 0;
  logits_stored = 0;
  // single-file: omit begin
  turn_state_bytes = 0;
  // single-file: omit end
}

SearchResult Search::Impl::run(const Position& pos, const SearchLimits& limits) {
  if (pos.game_over()) throw std::invalid_argument("search: the game is over");
  if (!pos.turn_start()) throw std::invalid_argument("search: position is in the middle of a turn");
  stop.store(false, std::memory_order_relaxed);
  const auto t0 = Clock::now();
  int64_t visits = limits.visits, time_ms = limits.time_ms;
  if (visits < 0 && time_ms < 0) {
    visits = params.time_ms > 0 ? -1 : params.visits;
    time_ms = params.time_ms;
  }
  visit_limit = visits >= 0 ? visits : INT64_MAX;
  has_deadline = time_ms >= 0;
  deadline = t0 + std::chrono::milliseconds(std::max<int64_t>(time_ms, 0));
  started = 0;
  evaluations = 0;
  collisions = 0;
  // single-file: omit begin
  resumed_generations = 0;
  // single-file: omit end
  stop = false;
  try {
    prepare_root(pos);
    ensure_root_children(root.get());
    // single-file: omit begin (the exported bot has no proof step and plays without root noise)
    exclude_root_children();
    if (limits.root_noise) {
      add_root_noise();
    } else {
      root_noise.clear();
    }
    // single-file: omit end
    run_workers(root.get());
  } catch (...) {
    clear();
    throw;
  }
  SearchResult r = make_result();
  r.new_visits = started.load();
  r.evaluations = evaluations.load();
  r.collisions = collisions.load();
  // single-file: omit begin
  r.resumed_generations = resumed_generations.load();
  // single-file: omit end
  r.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  return r;
}

// The root's turn list before the descents: a fresh root is expanded; a reused one gets its
// root-sized list (from the logits kept at its expansion when there are some); a root proven
// lost lists some turns to play.
void Search::Impl::ensure_root_children(Node* rt) {
  if (rt->state.load() == kExpanded && rt->num_children.load() == 0) {
    // A reused node proven at its creation (the side to move could score at once, or every
    // turn lost) was never expanded and stores no turns, not even its winning one. Expand
    // it as a fresh root: the win check then adds the scoring turn, which best_child plays
    // (listing turns by prior alone played a non-scoring turn of a won position).
    rt->state.store(kUnexpanded);
    rt->complete.store(0);
    rt->exhausted.store(0);
    rt->checked.store(0);  // expand must run the win check again to list the scoring turn
  }
  if (rt->state.load() == kUnexpanded) {
    rt->state.store(kExpanding);
    w_path_root(main_worker);
    const double v = expand(rt, root_pos, true, main_worker);
    backup(main_worker.path, v);
  } else if (rt->num_children.load() == 0 ||
             (rt->proven.load() == 0 && !rt->complete.load() &&
              int(rt->num_children.load()) < params.root_initial_turns && !rt->exhausted.load())) {
    // A reused root (or a proven one without children) gets its root-sized turn list,
    // from the logits kept at its expansion when there are some.
    const float* logits = rt->logits.get();
    if (!logits) {
      evaluator.evaluate(root_pos, main_worker.eval);
      evaluations.fetch_add(1);
      check_eval(root_pos, main_worker.eval);
      logits = main_worker.eval.policy_logits.data();
    }
    generate_children(rt, root_pos, logits, std::max(params.root_initial_turns, 1), 0.0, main_worker, true);
    release_logits_if_done(rt);
  }
  if (rt->num_children.load() == 0) {
    // A root proven lost by the win check has no children: list some turns to play.
    main_worker.zero_logits.assign(size_t(root_pos.pitch().num_points()) * 8, 0.0f);
    generate_children(rt, root_pos, main_worker.zero_logits.data(), params.initial_turns, 0.0, main_worker,
                      true);
  }
}

void Search::Impl::w_path_root(Worker& w) {
  w.path.clear();
  w.path.push_back(root.get());
}

BestFirstOptions root_turn_options(const SearchParams& params) {
  BestFirstOptions opt;  // as generate_children builds them
  opt.max_turns = std::max(params.root_initial_turns, params.initial_turns);
  opt.min_remaining_mass = 0.0;  // a root is not cut by widen_min_remaining_mass
  opt.max_expansions = params.turn_gen_max_expansions;
  opt.sum_chains = params.sum_chains;
  return opt;
}

// The single-file bot (export/single_file.h) searches at policy temperature 1 (its parameters
// are fixed): the tempering is left out of it, and so is search/policy_temperature.h (with the
// member that holds it). The policy temperature is applied here, once for the whole search
// (search/policy_temperature.h).
Search::Search(Evaluator& evaluator, const SearchParams& params, uint64_t seed) {
  Evaluator* ev = &evaluator;
  // single-file: omit begin (the exported bot searches at temperature 1)
  if (params.policy_temperature != 1.0) {
    tempered_ = std::make_unique<PolicyTemperatureEvaluator>(evaluator, params.policy_temperature);
    ev = tempered_.get();
  }
  // single-file: omit end
  impl_ = std::make_unique<Impl>(*ev, params, seed);
}
Search::~Search() = default;
SearchResult Search::run(const Position& pos, const SearchLimits& limits) { return impl_->run(pos, limits); }
void Search::clear() { impl_->clear(); }
// single-file: omit begin (the exported bot shows no variations)
std::vector<std::string> Search::variation(const std::string& first_turn, int max_turns) const {
  return impl_->variation(first_turn, max_turns);
}
// single-file: omit end
// single-file: omit begin
void Search::set_turn_state_budget(int64_t bytes) {
  if (bytes < 0)
    throw std::invalid_argument("search: turn state budget must be >= 0 bytes, got " + std::to_string(bytes));
  impl_->turn_state_budget = bytes;
}
// single-file: omit end
// single-file: omit begin
void Search::exclude_root_turns(std::vector<uint64_t> hashes) {
  impl_->excluded_root_turns = std::move(hashes);
}
// single-file: omit end
const SearchParams& Search::params() const { return impl_->params; }
std::mt19937_64& Search::rng() { return impl_->rng; }

}  // namespace ps
