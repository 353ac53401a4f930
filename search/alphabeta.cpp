#include "search/alphabeta.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_set>

namespace ps {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kInf = 2 * AlphaBetaPlayer::kWin;
constexpr int kWinBound = AlphaBetaPlayer::kProvenBound;
// search_frontier takes its first children by selection, then sorts the rest.
constexpr size_t kFrontierSelections = 8;
constexpr int kEvalCap = 99999;

std::string digits(const uint8_t* kicks, int n) {
  std::string s(size_t(n), '0');
  for (int i = 0; i < n; ++i) s[size_t(i)] = char('0' + kicks[i]);
  return s;
}

// Mate scores are stored relative to the node so that a TT hit at another ply stays exact.
int to_tt(int score, int ply) {
  if (score > kWinBound) return score + ply;
  if (score < -kWinBound) return score - ply;
  return score;
}
int from_tt(int score, int ply) {
  if (score > kWinBound) return score - ply;
  if (score < -kWinBound) return score + ply;
  return score;
}

}  // namespace

void AlphaBetaPlayer::check_options(const Options& o) {
  if (o.default_time_ms < 1) throw OptionError("default_time_ms", "default_time_ms must be >= 1");
  if (o.max_depth < 1 || o.max_depth > 200) throw OptionError("max_depth", "max_depth must be in [1, 200]");
  if (o.tt_mb < 1 || o.tt_mb > 4096) throw OptionError("tt_mb", "tt_mb must be in [1, 4096]");
  if (o.lmr && !o.pvs) throw OptionError("pvs", "lmr needs pvs (its re-searches are null-window)");
  if (!(o.soft_stop > 0.0 && o.soft_stop <= 0.9))
    throw OptionError("soft_stop", "soft_stop must be in (0, 0.9] (a share of the turn's time)");
  if (o.lmr_first < 1) throw OptionError("lmr_first", "lmr_first must be >= 1");
  if (o.lmr_min_depth < 2) throw OptionError("lmr_min_depth", "lmr_min_depth must be >= 2");
  if (!(o.lmr_divisor > 0.0) || !std::isfinite(o.lmr_divisor))
    throw OptionError("lmr_divisor", "lmr_divisor must be > 0 and finite");
}

AlphaBetaPlayer::AlphaBetaPlayer(const Options& options, std::unique_ptr<LeafEvaluator> evaluator,
                                 uint64_t seed)
    : options_(options), eval_(std::move(evaluator)), rng_(seed) {
  check_options(options_);
  if (!eval_) eval_ = std::make_unique<HandEvaluator>();
  gen_.set_enumeration_limit(kEnumerationLimit);
  size_t entries = 1;
  while (entries * 2 * sizeof(TTEntry) <= size_t(options_.tt_mb) << 20) entries *= 2;
  tt_entries_ = entries;  // allocated by choose_turn, freed by new_game
}

void AlphaBetaPlayer::new_game(const Pitch& pitch, Variant variant) {
  // Between games (and, in `serve`, between turns) the table and the ply arrays are freed: an
  // idle player holds no search memory (in `serve`, 8 idle alphabeta games held 96 MB).
  std::vector<TTEntry>().swap(tt_);
  std::vector<Ply>().swap(plies_);
  // An evaluator for other rules (a value net of another pitch) says so now, not at the first
  // search, which may be turn 20 of a game.
  eval_->reset(Position(pitch, variant));
}

AlphaBetaPlayer::TTEntry* AlphaBetaPlayer::tt_probe(uint64_t key) {
  TTEntry& e = tt_[key & (tt_.size() - 1)];
  return e.key == key ? &e : nullptr;
}

void AlphaBetaPlayer::tt_store(uint64_t key, int depth, int score, int bound, uint64_t best,
                               int ply) {
  TTEntry& e = tt_[key & (tt_.size() - 1)];
  // Depth-preferred replacement, but always replace entries of another position from an
  // earlier search (their depth says nothing about this one's value).
  if (e.key == key && e.depth > depth && bound != 1) return;
  e.key = key;
  e.best = best;
  e.score = to_tt(score, ply);
  e.depth = int16_t(depth);
  e.bound = uint8_t(bound);
}

void AlphaBetaPlayer::check_time() {
  if (node_limit_ >= 0 && info_.nodes >= node_limit_) throw Aborted{};
  if (timed_ && Clock::now() >= deadline_) throw Aborted{};
}

Position AlphaBetaPlayer::child_position(const Position& pos, const Ply& p, const Child& c) const {
  Position end = pos;
  for (int i = 0; i < c.num_kicks; ++i) end.make_kick(p.kicks[c.kicks_at + size_t(i)]);
  return end;
}

void AlphaBetaPlayer::generate(const Position& pos, int ply, uint64_t tt_best, bool sort, int cut) {
  // plies_ is sized once per choose_turn (max_depth + 1): resizing here would move the ply
  // arrays that the callers up the stack are iterating over.
  Ply& p = plies_[size_t(ply)];
  p.children.clear();
  p.kicks.clear();
  p.cut_candidate = -1;
  const int me = pos.side_to_move();
  auto add = [&](const Position& end, const uint8_t* k, int n) {
    if (ply == 0 &&
        std::find(excluded_root_.begin(), excluded_root_.end(), end.hash()) != excluded_root_.end())
      return;
    Child c;
    c.kicks_at = uint32_t(p.kicks.size());
    c.num_kicks = uint16_t(n);
    c.winner = int8_t(end.winner());
    c.hash = end.hash();
    c.eval = 0;
    bool cut_here = false;
    if (end.game_over()) {
      c.order = end.winner() == me ? kInf : -kInf;
    } else {
      c.eval = std::clamp(eval_->evaluate_child(pos, k, n, end), -kEvalCap, kEvalCap);
      c.order = -c.eval;
      // A cut: the child reaches `cut` and the opponent cannot win at once from it (the
      // frontier's score of a child; a child that fails the check stays an ordinary one).
      if (-c.eval >= cut) {
        if ((++info_.nodes & 15) == 0) check_time();
        cut_here = !win_.find_winning_turn(end, nullptr);
      }
    }
    if (c.hash == tt_best && tt_best != 0) c.order = kInf + 1;
    p.kicks.insert(p.kicks.end(), k, k + n);
    p.children.push_back(c);
    if (cut_here) {
      p.cut_candidate = int(p.children.size()) - 1;
      gen_.stop();  // the rest of the turns are neither needed nor enumerated
    }
  };
  const TurnGenerator::Stats st = gen_.for_each_turn(pos, add);
  p.complete = st.complete || st.stopped;
  if (!st.complete && !st.stopped) {
    // Over the enumeration limit the turns found are the lexicographically first ones: add
    // random chains so that the children cover the whole position.
    std::unordered_set<uint64_t> seen;
    for (const Child& c : p.children) seen.insert(c.hash);
    std::vector<uint8_t> k;
    for (int i = 0; i < kRandomTurns; ++i) {
      Position end = pos;
      const std::string s = random_turn(pos, rng_, &end);
      if (!seen.insert(end.hash()).second) continue;
      k.assign(s.begin(), s.end());
      for (uint8_t& d : k) d = uint8_t(d - '0');
      add(end, k.data(), int(k.size()));
    }
    // The root's previous answer stays a child (the random chains differ from one call to the
    // next): a cut-off iteration must search it first to answer soundly.
    if (ply == 0 && !root_answer_.empty() && !seen.count(root_answer_hash_)) {
      Position end = pos;
      k.assign(root_answer_.begin(), root_answer_.end());
      for (uint8_t& d : k) {
        d = uint8_t(d - '0');
        end.make_kick(d);
      }
      add(end, k.data(), int(k.size()));
    }
  }
  if (sort)
    std::stable_sort(p.children.begin(), p.children.end(),
                     [](const Child& a, const Child& b) { return a.order > b.order; });
}

bool AlphaBetaPlayer::tt_first(const Position& pos, int ply, uint64_t tt_best) {
  Ply& p = plies_[size_t(ply)];
  p.tt_kicks.clear();
  bool found = false;
  gen_.for_each_turn(pos, [&](const Position& end, const uint8_t* k, int n) {
    if (end.hash() != tt_best) return;
    // A turn that ends the game needs no search: the node's own loop scores it.
    if (!end.game_over()) {
      p.tt_kicks.assign(k, k + n);
      found = true;
    }
    gen_.stop();
  });
  check_time();
  return found;
}

int AlphaBetaPlayer::search_frontier(const Position& pos, int alpha, int beta, int ply, uint64_t tt_best) {
  // One turn above the leaves the score is the best child's static score, lowered to a loss
  // for a child whose side to move can win at once. Unless a cut comes first (below), every
  // child is evaluated (for that maximum and for the TT move of the next iteration), but the
  // children are taken best-evaluated
  // first by selection instead of a full sort, and a child that cannot beat the best score so
  // far ends the node: every later one evaluates no higher, and the win check can only lower a
  // score. So a node pays its evaluations, one selection scan per child taken (usually one or
  // two) and their win checks, where it sorted all its children and win-checked each.
  //
  // A cut node pays less: generate() ends the enumeration at the first child (generation
  // order) whose static score reaches beta and from which the opponent cannot win at once; that
  // score is the node's (a lower bound, as the best child's was) and the later turns are never
  // enumerated. A child that reaches beta but fails the win check stays an ordinary child;
  // without a cut the node proceeds as an all-node.
  generate(pos, ply, tt_best, /*sort=*/false, beta);
  check_time();
  Ply& p = plies_[size_t(ply)];
  if (p.cut_candidate >= 0) {
    const Child& c = p.children[size_t(p.cut_candidate)];
    ++info_.leaves;
    tt_store(pos.hash(), 1, -c.eval, 2, c.hash, ply);
    return -c.eval;
  }
  const int me = pos.side_to_move();
  const int alpha0 = alpha;
  int best = -kInf;
  uint64_t best_hash = 0;
  for (size_t i = 0; i < p.children.size(); ++i) {
    // Selection: the highest ordering key among children[i..] (ties: the earlier, as the
    // stable sort would have them) moves to position i. A node that takes more than a few
    // children (its best ones let the opponent win at once) sorts the rest instead: the same
    // order, without a scan per child.
    if (i < kFrontierSelections) {
      size_t m = i;
      for (size_t j = i + 1; j < p.children.size(); ++j)
        if (p.children[j].order > p.children[m].order) m = j;
      if (m != i)
        std::rotate(p.children.begin() + long(i), p.children.begin() + long(m),
                    p.children.begin() + long(m) + 1);
    } else if (i == kFrontierSelections) {
      std::stable_sort(p.children.begin() + long(i), p.children.end(),
                       [](const Child& a, const Child& b) { return a.order > b.order; });
    }
    const Child& c = p.children[i];
    int score;
    if (c.winner >= 0) {
      score = c.winner == me ? kWin - ply : -(kWin - ply);
      // A turn that loses at once is ordered below every other child, so the rest lose at once
      // too and score the same: one of them is enough (a late position can hold hundreds, and
      // taking each by selection cost the node a scan of its children per child: 80% of a
      // search's time in such positions, and 60 ms past a 90-ms deadline).
      if (c.winner != me && best > -kInf) break;
    } else {
      score = -c.eval;
      // Past the TT move the children come in falling evaluation: none of the rest can do better.
      if (score <= best && c.order <= kInf) break;
      if ((++info_.nodes & 15) == 0) check_time();
      const Position child = child_position(pos, p, c);
      if (win_.find_winning_turn(child, nullptr)) {
        score = -(kWin - ply - 1);
      } else {
        ++info_.leaves;
      }
    }
    if (score > best) {
      best = score;
      best_hash = c.hash;
    }
    if (score > alpha) alpha = score;
    if (alpha >= beta) break;
  }
  tt_store(pos.hash(), 1, best, best <= alpha0 ? 3 : best >= beta ? 2 : 1, best_hash, ply);
  return best;
}

bool AlphaBetaPlayer::tt_cut(const Position& pos, int depth, int alpha, int beta, int ply, uint64_t& tt_best,
                             int& score) {
  TTEntry* e = tt_probe(pos.hash());
  if (!e) return false;
  tt_best = e->best;
  if (e->depth < depth || ply == 0) return false;
  score = from_tt(e->score, ply);
  return e->bound == 1 || (e->bound == 2 && score >= beta) || (e->bound == 3 && score <= alpha);
}

int AlphaBetaPlayer::search_tt_move(const Position& pos, int depth, int alpha, int beta, int ply) {
  const Ply& p = plies_[size_t(ply)];
  Position child = pos;
  for (uint8_t k : p.tt_kicks) child.make_kick(k);
  eval_->push_turn(pos, p.tt_kicks.data(), int(p.tt_kicks.size()));
  const int score = -search(child, depth - 1, -beta, -alpha, ply + 1);
  eval_->pop_turn();
  return score;
}

int AlphaBetaPlayer::search_child(const Position& pos, const Ply& p, const Child& c, size_t i, int depth,
                                  int alpha, int beta, int ply) {
  const Position child = child_position(pos, p, c);
  // The child searched to depth d with window (a, b) of this node's side.
  auto descend = [&](int d, int a, int b) {
    // A leaf: its evaluation is the one generate() made for the move ordering (the same
    // position, so the same score), and the evaluator need not descend into it.
    if (d == 0) return -search(child, 0, -b, -a, ply + 1, c.eval);
    eval_->push_turn(pos, p.kicks.data() + c.kicks_at, c.num_kicks);
    const int s = -search(child, d, -b, -a, ply + 1);
    eval_->pop_turn();
    return s;
  };
  if (i == 0 || !options_.pvs) return descend(depth - 1, alpha, beta);
  const int r = reduction(depth, i);
  int score = descend(depth - 1 - r, alpha, alpha + 1);
  if (score > alpha && r > 0) score = descend(depth - 1, alpha, alpha + 1);
  if (score > alpha && score < beta) score = descend(depth - 1, alpha, beta);
  return score;
}

int AlphaBetaPlayer::search(const Position& pos, int depth, int alpha, int beta, int ply, int static_eval) {
  // The clock every 16 nodes (a few ns each) and after every turn generation, which alone can
  // take milliseconds in a dense position.
  if ((++info_.nodes & 15) == 0) check_time();
  uint64_t tt_best = 0;
  int tt_score = 0;
  if (tt_cut(pos, depth, alpha, beta, ply, tt_best, tt_score)) return tt_score;
  // The root searches the previous iteration's answer first, whatever the table holds now (its
  // root entry may have been replaced): a cut-off iteration's best is then that answer or a
  // turn that beat it at the new depth.
  if (ply == 0) tt_best = root_answer_hash_;
  // The engine's win check: a won turn needs no search (and no leaf is scored statically when
  // its side to move can score at once).
  // (Not at the root: search_turn checked it, or a winning turn there may be excluded.)
  if (ply > 0 && win_.find_winning_turn(pos, nullptr)) return kWin - ply;
  if (depth == 0) {
    ++info_.leaves;
    if (static_eval != kNoEval) return static_eval;
    return std::clamp(eval_->evaluate_current(pos), -kEvalCap, kEvalCap);
  }
  if (depth == 1 && ply > 0) return search_frontier(pos, alpha, beta, ply, tt_best);
  const int me = pos.side_to_move();
  const int alpha0 = alpha;
  int best = -kInf;
  uint64_t best_hash = 0;
  // The TT move first, before the other turns are generated and evaluated: enumerate only up
  // to it and search it; a cut there spares the node the evaluation and sorting of every other
  // child (staged move generation, as chess programs do with the hash move).
  bool tt_searched = false;
  if (ply > 0 && tt_best != 0 && tt_first(pos, ply, tt_best)) {
    const int score = search_tt_move(pos, depth, alpha, beta, ply);
    tt_searched = true;
    best = score;
    best_hash = tt_best;
    if (score > alpha) alpha = score;
    if (alpha >= beta) {
      tt_store(pos.hash(), depth, best, 2, best_hash, ply);
      return best;
    }
  }
  generate(pos, ply, tt_best);
  check_time();
  const Ply& p = plies_[size_t(ply)];
  for (size_t i = 0; i < p.children.size(); ++i) {
    const Child& c = p.children[i];
    if (tt_searched && c.hash == tt_best) continue;  // searched above (it sorts first: i = 0)
    const int score = c.winner >= 0 ? (c.winner == me ? kWin - ply : -(kWin - ply))
                                    : search_child(pos, p, c, i, depth, alpha, beta, ply);
    if (score > best) {
      best = score;
      best_hash = c.hash;
      if (ply == 0) {
        root_best_ = digits(p.kicks.data() + c.kicks_at, c.num_kicks);
        root_best_hash_ = c.hash;
        root_best_score_ = score;
      }
    }
    if (score > alpha) alpha = score;
    if (alpha >= beta) break;
  }
  tt_store(pos.hash(), depth, best, best <= alpha0 ? 3 : best >= beta ? 2 : 1, best_hash, ply);
  return best;
}

int AlphaBetaPlayer::reduction(int depth, size_t index) const {
  if (!options_.lmr || depth < options_.lmr_min_depth || index < size_t(options_.lmr_first)) return 0;
  // In double first: a tiny divisor makes the quotient too large for an int (an
  // lmr_divisor of 1e-300 turned it negative and the search ran below depth 0 off its ply arrays).
  const double r = 1.0 + std::log(double(depth)) * std::log(double(index)) / options_.lmr_divisor;
  return int(std::min(r, double(depth - 2)));  // the reduced search keeps at least one turn
}

std::vector<std::string> AlphaBetaPlayer::principal_variation(const Position& root, int max_len) {
  std::vector<std::string> pv;
  Position pos = root;
  TurnGenerator g;
  g.set_enumeration_limit(kEnumerationLimit);
  while (int(pv.size()) < max_len && !pos.game_over()) {
    const TTEntry* e = tt_probe(pos.hash());
    if (!e || e->best == 0) break;
    std::string found;
    Position next = pos;
    g.for_each_turn(pos, [&](const Position& end, const uint8_t* k, int n) {
      if (found.empty() && end.hash() == e->best) {
        found = digits(k, n);
        next = end;
      }
    });
    if (found.empty()) break;
    pv.push_back(found);
    pos = next;
  }
  return pv;
}

void AlphaBetaPlayer::allocate() {
  if (tt_.size() != tt_entries_) tt_.assign(tt_entries_, TTEntry{});
  if (plies_.size() < size_t(options_.max_depth) + 1) plies_.resize(size_t(options_.max_depth) + 1);
}

int AlphaBetaPlayer::RootProof::winning_index() const {
  int best = -1;
  for (size_t i = 0; i < turns.size(); ++i)
    if (turns[i].proven == 1 && (best < 0 || turns[i].depth < turns[size_t(best)].depth)) best = int(i);
  return best;
}

int AlphaBetaPlayer::RootProof::lost() const {
  int n = 0;
  for (const TurnProof& t : turns) n += t.proven == -1;
  return n;
}

AlphaBetaPlayer::RootProof AlphaBetaPlayer::prove_root(const Position& root, int64_t time_ms) {
  if (root.game_over()) throw std::invalid_argument("alphabeta proof: the game is over");
  if (!root.turn_start())
    throw std::invalid_argument("alphabeta proof: the position is in the middle of a turn");
  if (time_ms < 1) throw std::invalid_argument("alphabeta proof: time_ms must be >= 1");
  const auto t0 = Clock::now();
  info_ = Info{};
  root_answer_.clear();  // no previous answer to keep among the root's turns
  node_limit_ = -1;
  timed_ = true;
  deadline_ = t0 + std::chrono::milliseconds(time_ms);
  allocate();
  RootProof proof;
  auto finish = [&] {
    proof.nodes = info_.nodes;
    proof.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return proof;
  };
  std::string won;
  if (win_.find_winning_turn(root, &won)) {
    Position end = root;
    for (char k : won) end.make_kick(k - '0');
    proof.turns.push_back({won, end.hash(), 1, 0});
    return finish();
  }
  eval_->reset(root);
  generate(root, 0, 0);
  // plies_[0] is the root's: the searches below start at ply 1 and never touch it.
  const Ply& p = plies_[0];
  const int me = root.side_to_move();
  int open = 0;
  for (const Child& c : p.children) {
    TurnProof t{digits(p.kicks.data() + c.kicks_at, c.num_kicks), c.hash, 0, 0};
    if (c.winner >= 0) t.proven = c.winner == me ? 1 : -1;
    open += t.proven == 0;
    proof.turns.push_back(std::move(t));
    if (proof.turns.back().proven == 1) return finish();  // a turn that wins at once
  }
  proof.complete = p.complete;
  try {
    for (int depth = 1; depth <= options_.max_depth && open > 0; ++depth) {
      for (size_t i = 0; i < p.children.size(); ++i) {
        TurnProof& t = proof.turns[i];
        if (t.proven != 0) continue;
        const Child& c = p.children[i];
        const Position child = child_position(root, p, c);
        eval_->reset(root);  // an aborted search leaves the evaluator's path anywhere
        eval_->push_turn(root, p.kicks.data() + c.kicks_at, c.num_kicks);
        // The opponent's score after the turn, against the proven-result bound from both sides.
        if (search(child, depth - 1, kWinBound, kWinBound + 1, 1) > kWinBound) {
          t.proven = -1;
        } else if (search(child, depth - 1, -kWinBound - 1, -kWinBound, 1) < -kWinBound) {
          t.proven = 1;
        }
        eval_->pop_turn();
        if (t.proven == 0) continue;
        t.depth = depth;
        --open;
        if (t.proven == 1) {
          proof.depth = depth;
          return finish();
        }
      }
      proof.depth = depth;
    }
  } catch (const Aborted&) {}
  return finish();
}

// single-file: omit begin
std::string AlphaBetaPlayer::choose_turn(const Game& game, const TurnBudget& budget) {
  return search_turn(game.position(), budget);
}
// single-file: omit end

std::string AlphaBetaPlayer::search_turn(const Position& root, const TurnBudget& budget) {
  if (root.game_over()) throw std::invalid_argument("alphabeta player: the game is over");
  if (!root.turn_start())
    throw std::invalid_argument("alphabeta player: the position is in the middle of a turn");
  const auto t0 = Clock::now();
  info_ = Info{};
  root_answer_.clear();  // none yet: generate() at the root keeps nothing extra
  node_limit_ = budget.visits >= 0 ? std::max<int64_t>(budget.visits, 1) : -1;
  const int64_t time_ms =
      budget.time_ms >= 0 ? budget.time_ms : (budget.visits >= 0 ? -1 : options_.default_time_ms);
  timed_ = time_ms >= 0;
  // 90% of the budget is the hard stop; a new iteration starts only before soft_stop of it.
  deadline_ = t0 + std::chrono::microseconds(std::max<int64_t>(time_ms, 1) * 900);
  const auto soft = t0 + std::chrono::microseconds(
                             int64_t(double(std::max<int64_t>(time_ms, 1)) * 1000.0 * options_.soft_stop));

  allocate();
  std::string answer;
  if (excluded_root_.empty() && win_.find_winning_turn(root, &answer)) {
    info_.score = kWin;
    info_.pv = {answer};
    return answer;
  }
  // An answer before any search: the best-ordered turn (never a turn that loses at once when
  // another exists, since those are ordered last).
  eval_->reset(root);
  generate(root, 0, 0);
  {
    const Ply& p = plies_[0];
    if (p.children.empty()) return "";  // every turn excluded
    const Child& c = p.children.front();
    answer = digits(p.kicks.data() + c.kicks_at, c.num_kicks);
    if (p.children.size() == 1) return answer;
    root_answer_ = answer;
    root_answer_hash_ = c.hash;
  }
  int changed_at = 0;  // the depth of a cut-off iteration that changed the answer
  for (int depth = 1; depth <= options_.max_depth; ++depth) {
    root_best_.clear();
    eval_->reset(root);  // an aborted iteration leaves the evaluator's path anywhere
    int score;
    try {
      score = search(root, depth, -kInf, kInf, 0);
    } catch (const Aborted&) {
      // The previous answer is searched first, so a cut-off iteration's best is that answer or
      // a turn that beat its score at the new depth; then the score is that turn's there.
      if (!root_best_.empty() && root_best_ != answer) {
        answer = root_best_;
        info_.score = root_best_score_;
        changed_at = depth;
      }
      break;
    }
    answer = root_best_;
    root_answer_ = answer;
    root_answer_hash_ = root_best_hash_;
    info_.depth = depth;
    info_.score = score;
    if (score > kWinBound || score < -kWinBound) break;  // proven
    if (node_limit_ >= 0 && info_.nodes >= node_limit_) break;
    if (timed_ && Clock::now() >= soft) break;
  }
  info_.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (changed_at > 0) {
    // The table's line from the root is the last completed iteration's, which starts with
    // another turn: the line is the answer, then the table's line from its position.
    Position after = root;
    for (char k : answer) after.make_kick(k - '0');
    info_.pv = principal_variation(after, changed_at - 1);
    info_.pv.insert(info_.pv.begin(), answer);
  } else {
    info_.pv = principal_variation(root, std::max(info_.depth, 1));
    if (info_.pv.empty() || info_.pv.front() != answer) info_.pv.insert(info_.pv.begin(), answer);
  }
  return answer;
}

}  // namespace ps
