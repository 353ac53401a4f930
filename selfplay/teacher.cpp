#include "selfplay/teacher.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "core/field_check.h"
#include "search/leaf_evals.h"

namespace ps {

void TeacherOptions::validate() const {
  const FieldCheck check("selfplay.teacher.");
  check(player == "alphabeta", "player", "must be alphabeta (the one teacher that reports a root score)");
  check(nodes == -1 || nodes >= 1, "nodes", "must be >= 1, or -1 for no node budget");
  check(time_ms == -1 || time_ms >= 1, "time_ms", "must be >= 1, or -1 for no time limit");
  check(nodes >= 1 || time_ms >= 1, "nodes", "a budget is needed: set nodes or time_ms");
  check(tt_mb >= 1 && tt_mb <= 4096, "tt_mb", "must be in [1, 4096]");
  check(opening_turns >= 0, "opening_turns", "must be >= 0");
  check(random_turn_prob >= 0 && random_turn_prob <= 1, "random_turn_prob", "must be in [0, 1]");
  check(random_turns >= 0, "random_turns", "must be >= 0");
  check(std::isfinite(value_scale) && value_scale > 0, "value_scale", "must be > 0");
  try {
    (void)make_leaf_evaluator(leaf_eval(), 0);
  } catch (const LeafEvalError& e) {
    check(false, e.field(), e.what());
  }
}

LeafEvalSpec TeacherOptions::leaf_eval() const {
  LeafEvalSpec spec;
  spec.eval = eval;
  spec.noise_range = noise_range;
  spec.value_net = value_net;
  return spec;
}

TeacherOptions parse_teacher_options(ConfigReader& r) {
  TeacherOptions t;
  r.read(field("player", t.player), field("nodes", t.nodes), field("time_ms", t.time_ms),
         field("tt_mb", t.tt_mb), field("opening_turns", t.opening_turns),
         field("random_turn_prob", t.random_turn_prob), field("random_turns", t.random_turns),
         field("value_scale", t.value_scale), field("eval", t.eval), field("noise_range", t.noise_range),
         field("value_net", t.value_net));
  return r.finish_validated(t);
}

float teacher_value(int score, double scale) {
  if (AlphaBetaPlayer::is_proven(score)) return score > 0 ? 1.0f : -1.0f;
  return float(std::tanh(double(score) / scale));
}

TeacherChoice teacher_choose(AlphaBetaPlayer& teacher, const Game& game, const TeacherOptions& options) {
  TurnBudget budget;
  budget.visits = options.nodes;
  budget.time_ms = options.time_ms;
  TeacherChoice c;
  c.turn = teacher.choose_turn(game, budget);
  const AlphaBetaPlayer::Info& info = teacher.last_info();
  c.score = info.score;
  c.depth = info.depth;
  c.nodes = info.nodes;
  c.proven = AlphaBetaPlayer::is_proven(info.score);
  // depth 0 without a proof: a forced turn (the only legal one), or a budget too small for
  // the first iteration; either way the score is no search value.
  c.sampled = c.proven || c.depth >= 1;
  return c;
}

std::string safe_random_turn(const Position& pos, std::mt19937_64& rng) {
  TurnGenerator win;
  const int me = pos.side_to_move();
  for (int i = 0; i < 32; ++i) {
    Position end = pos;
    std::string turn = random_turn(pos, rng, &end);
    if (end.game_over() ? end.winner() == me : !win.find_winning_turn(end, nullptr)) return turn;
  }
  return "";
}

GameData play_teacher_game(const SelfplayConfig& cfg, const TeacherOptions& options, uint64_t game_seed,
                           SelfplayStats* stats, std::vector<ScoredResult>* scores) {
  std::mt19937_64 rng(game_seed);
  GameData data = new_game_data(cfg, rng, "teacher:" + options.player);
  const Pitch& pitch = Pitch::get(data.width, data.length, data.goal);
  AlphaBetaPlayer::Options ao;
  ao.tt_mb = options.tt_mb;
  const uint64_t teacher_seed = rng();
  AlphaBetaPlayer teacher(ao, make_leaf_evaluator(options.leaf_eval(), teacher_seed), teacher_seed);
  teacher.new_game(pitch, data.variant);

  Game game(pitch, data.variant);
  std::vector<int> sample_side, sample_score;
  int64_t searches = 0, nodes = 0;
  while (!game.position().game_over() && game.num_complete_turns() < cfg.max_turns) {
    const Position& pos = game.position();
    const int turn_index = game.num_complete_turns();
    const TeacherChoice c = teacher_choose(teacher, game, options);
    ++searches;
    nodes += c.nodes;
    if (c.sampled) {
      TrainingSample s;
      s.turn_index = uint16_t(std::min(turn_index, 0xFFFF));
      s.root_value = teacher_value(c.score, options.value_scale);
      s.policy.push_back({c.turn, 1});
      data.samples.push_back(std::move(s));
      sample_side.push_back(pos.side_to_move());
      sample_score.push_back(c.score);
    }
    const bool random = turn_index < options.opening_turns ||
                        (turn_index < options.random_turns &&
                         std::uniform_real_distribution<double>(0, 1)(rng) < options.random_turn_prob);
    std::string turn = random ? safe_random_turn(pos, rng) : "";
    game.play_turn(turn.empty() ? c.turn : turn);
  }
  const int winner = game.position().winner();
  finish_game_data(game, winner, sample_side, data);
  if (scores)
    for (size_t i = 0; i < data.samples.size(); ++i)
      if (!AlphaBetaPlayer::is_proven(sample_score[i]))
        scores->push_back({sample_score[i], data.samples[i].result});
  if (stats) {
    stats->searches += searches;
    stats->visits += nodes;
    count_game(data, game.position(), game.num_complete_turns(), -1, false, *stats);
  }
  return data;
}

double TeacherCalibration::mse_at(double scale) const {
  if (scores.empty()) return 0;
  double sum = 0;
  for (const ScoredResult& s : scores) {
    const double e = std::tanh(double(s.score) / scale) - double(s.result);
    sum += e * e;
  }
  return sum / double(scores.size());
}

TeacherCalibration teacher_calibration(std::vector<ScoredResult> scores) {
  TeacherCalibration c;
  c.scores = std::move(scores);
  c.positions = int64_t(c.scores.size());
  if (c.scores.empty()) return c;
  for (int i = 0; i <= 40; ++i) {
    const double scale = 25.0 * std::pow(2.0, i / 4.0);  // 25 ... 25,600, 4 steps per doubling
    const double mse = c.mse_at(scale);
    if (i == 0 || mse < c.best_mse) {
      c.best_mse = mse;
      c.best_scale = scale;
    }
  }
  return c;
}

TeacherRunStats run_teacher_selfplay(const SelfplayConfig& cfg, const TeacherOptions& options,
                                     const std::string& out_dir, const std::string& prefix,
                                     const SelfplayProgress& progress, const std::atomic<bool>* cancel) {
  cfg.validate();
  options.validate();
  TeacherRunStats out;
  std::mutex mu;
  out.games = run_games(
      cfg.games, cfg.concurrent_games, cfg.games_per_chunk, out_dir, prefix,
      [&](uint64_t game_seed, SelfplayStats* stats) {
        std::vector<ScoredResult> scores;
        GameData g = play_teacher_game(cfg, options, game_seed, stats, &scores);
        std::lock_guard<std::mutex> lock(mu);
        out.scores.insert(out.scores.end(), scores.begin(), scores.end());
        return g;
      },
      progress, cancel);
  return out;
}

}  // namespace ps
