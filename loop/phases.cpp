#include "loop/phases.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "core/checksum.h"
#include "core/fileutil.h"
#include "core/progress.h"
#include "core/stats.h"
#include "loop/export_model.h"
#include "loop/players.h"
#include "loop/run_ratings.h"
#include "nn/service.h"
#include "report/report.h"
#include "selfplay/reference.h"
#include "tournament/ratings.h"
#include "tournament/tournament.h"

namespace ps {

namespace fs = std::filesystem;
using json = nlohmann::json;

RunContext::RunContext(const RunConfig& config, const std::atomic<bool>* cancel_flag, bool writes_state)
    : cfg(config), paths(config.dir), cancel(cancel_flag), owns_state(writes_state),
      t_start_(std::chrono::steady_clock::now()) {
  state = read_run_state(paths.state);
  if (state.started.empty()) state.started = now_iso();
  base_seconds_ = state.seconds;
}

double RunContext::elapsed() const {
  return base_seconds_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start_).count();
}

void RunContext::save_state(const std::string& phase) {
  if (!owns_state) return;
  verify_claims();
  state.seconds = elapsed();
  write_run_state(state, paths.state, phase);
}

json selfplay_log_line(int generation, const std::string& network, const std::string& session,
                       bool final, const SelfplayStats& st) {
  return {{"generation", generation},
          {"network", network},
          {"session", session},
          {"final", final},
          {"games", st.games},
          {"samples", st.samples},
          {"full_samples", st.full_samples},
          {"mean_game_turns", st.mean_game_turns()},
          {"mean_root_turns", st.mean_root_turns()},
          {"games_per_s", st.games_per_s()},
          {"samples_per_s", st.samples_per_s()},
          {"seconds", st.seconds},
          {"wins", {st.wins[0], st.wins[1]}},
          {"false_resignations", st.false_resignations},
          {"playthroughs", st.playthroughs}};
}

bool play_generation(RunContext& ctx, int g) {
  const RunConfig& cfg = ctx.cfg;
  const std::string net = gen_name(g);
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "gen%04d", g - 1);
  ctx.save_state("selfplay " + net);
  auto eval = shared_net_evaluator(ctx.paths.checkpoint_of(ctx.state.best), cfg.service);
  ProgressLine line;
  // This session's totals go to logs/selfplay.jsonl after every chunk of games and at its end
  // (the report keeps each session's last line), and state.json's wall time with them: a
  // killed process loses at most a chunk's worth of both.
  const std::string session = now_iso() + "/" + std::to_string(::getpid());
  auto log_selfplay = [&](const SelfplayStats& st, bool done) {
    append_line(ctx.paths.logs + "/selfplay.jsonl", selfplay_log_line(g, ctx.state.best, session, done, st).dump());
    ctx.save_state("selfplay " + net);
  };
  SelfplayStats st = run_selfplay(
      cfg.selfplay, *eval, ctx.state.best, ctx.paths.data, prefix,
      [&](const SelfplayStats& s, int64_t target) {
        const double rate = s.games_per_s();
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "gen %d self-play (%s): %lld/%lld games, %.2f games/s, %.0f positions/s, "
                      "%.1f turns/game, ETA %s",
                      g, ctx.state.best.c_str(), (long long)s.games, (long long)target, rate,
                      s.samples_per_s(), s.mean_game_turns(),
                      format_duration(rate > 0 ? (target - s.games) / rate : 0).c_str());
        line.update(buf);
        // Under the chunk writer's lock, between this game's chunk write and the next one's.
        ctx.verify_claims_or_exit();
        if (s.games % cfg.selfplay.games_per_chunk == 0 && s.games < target) log_selfplay(s, false);
      },
      ctx.cancel);
  line.finish();
  if (st.games > 0) log_selfplay(st, true);
  return !ctx.stopped();
}

int64_t samples_with_prefix(const std::string& data_dir, const std::string& prefix) {
  int64_t n = 0;
  std::vector<std::string> warnings;  // bad games are reported when the trainer reads them
  for (const auto& e : fs::directory_iterator(data_dir)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".psd" || name.rfind(prefix + "-", 0) != 0) continue;
    for (const GameData& game : read_chunk(e.path().string(), &warnings))
      n += int64_t(game.samples.size());
  }
  return n;
}

int64_t generation_steps(const TrainConfig& t, int64_t new_samples) {
  if (t.rows_per_sample <= 0) return t.steps;
  const double rows = t.rows_per_sample * double(new_samples);
  const int64_t cap = std::max<int64_t>(1, int64_t(std::ceil(rows / double(t.batch_size))));
  return std::min(t.steps, cap);
}

bool train_generation(RunContext& ctx, int g, int64_t steps) {
  const std::string net = gen_name(g);
  if (fs::exists(ctx.paths.checkpoint(g))) return true;
  ctx.save_state("train " + net);
  ProgressLine line;
  TrainConfig tcfg = ctx.cfg.train;
  tcfg.steps = steps;
  ctx.verify_claims();
  TrainResult tr = train_network(
      tcfg, ctx.paths.data, ctx.paths.checkpoint(g - 1), ctx.paths.checkpoint(g),
      ctx.paths.logs + "/train.jsonl", ctx.cfg.name + " " + net,
      [&](const TrainMetrics& m, int64_t target) {
        char buf[320];
        std::snprintf(buf, sizeof buf,
                      "gen %d train: step %lld/%lld, policy loss %.3f, value loss %.3f, %s, "
                      "%.0f samples/s, window %lld",
                      g, (long long)m.step, (long long)target, m.policy_loss, m.value_loss,
                      policy_accuracy_text(m).c_str(), m.samples_per_s, (long long)m.window);
        line.update(buf);
        ctx.verify_claims_or_exit();
      },
      ctx.cancel);
  line.finish();
  if (ctx.stopped() || !fs::exists(ctx.paths.checkpoint(g))) return false;
  std::printf("gen %d trained: steps %lld -> %lld, %.0f samples/s, window %lld of %lld samples%s\n", g,
              (long long)tr.start_step, (long long)tr.end_step, tr.samples_per_s,
              (long long)tr.window_samples, (long long)tr.total_samples,
              teacher_share_text(tcfg, tr).c_str());
  std::fflush(stdout);
  return true;
}

namespace {

// The games of a finished evaluation tournament as outcomes.json lists them.
json outcome_games(const tour::TournamentResult& res) {
  json games = json::array();
  for (const tour::GameResult& game : res.games)
    games.push_back({{"winner", res.players[size_t(game.winner)]},
                     {"loser", res.players[size_t(game.loser)]},
                     {"termination", game.termination}});
  return games;
}

// best.model: the best network (ctx.state.best) with its rating in `ratings`, which it returns.
std::pair<double, double> export_best_model(const RunContext& ctx, const Ratings& ratings) {
  const auto rating = ratings.elo(ctx.state.best);
  ctx.verify_claims();
  export_run_model(ctx.paths.checkpoint_of(ctx.state.best), ctx.paths.best_model, ctx.cfg, rating.first,
                   rating.second);
  return rating;
}

// A gauntlet at the run's evaluation search, its first player against each other one `games`
// times, each pair of games from its own opening, played once per colour (run_config.h). Games
// a stopped call left in out_dir are kept.
tour::TournamentSpec evaluation_spec(const RunContext& ctx, const std::string& name, int games, uint64_t seed,
                                     const std::string& out_dir) {
  const RunConfig& cfg = ctx.cfg;
  tour::TournamentSpec spec;
  spec.name = cfg.name + " " + name;
  spec.width = cfg.width;
  spec.length = cfg.length;
  spec.goal = cfg.goal;
  spec.variant = cfg.variant;
  spec.format = tour::Format::kGauntlet;
  spec.gauntlet_size = 1;
  spec.games_per_pairing = games;
  spec.openings = games / 2;
  spec.opening_turns = cfg.evaluate.opening_turns;
  spec.seed = seed;
  spec.concurrency = cfg.evaluate.concurrency;
  spec.budget.visits = cfg.evaluate.visits;
  spec.out_dir = out_dir;
  spec.resume = true;  // a run stopped during the evaluation goes on with the games it played
  return spec;
}

// A network of the run as a player of its evaluation search.
tour::PlayerSpec network_player(const RunContext& ctx, const std::string& name) {
  tour::PlayerSpec p;
  p.name = name;
  p.type = "mcts";
  const std::string path = ctx.paths.checkpoint_of(name);
  const nn::ServiceOptions so = ctx.cfg.service;
  const SearchParams sp = ctx.cfg.evaluate.search;
  p.make = [path, so, sp, name](const tour::PlayerContext& c) {
    return make_net_player(path, so, sp, c.seed, name);
  };
  return p;
}

// Generation g's players: the candidate first, then its opponents.
std::vector<tour::PlayerSpec> evaluation_players(const RunContext& ctx, int g) {
  std::vector<tour::PlayerSpec> players{network_player(ctx, gen_name(g))};
  for (const std::string& opp : evaluation_opponents(ctx.cfg.evaluate, g, ctx.state.best)) {
    if (opp == "random" || opp == "greedy") {
      tour::PlayerSpec p;
      p.name = p.type = opp;
      players.push_back(p);
    } else {
      players.push_back(network_player(ctx, opp));
    }
  }
  if (players.size() < 2)
    throw ConfigError("evaluate: every opponent is switched off (vs_previous, vs_generation0, "
                      "vs_random, vs_greedy)");
  return players;
}

}  // namespace

bool evaluate_generation(RunContext& ctx, int g) {
  const std::string net = gen_name(g);
  const std::string outcomes_path = ctx.paths.outcomes(g);
  if (fs::exists(outcomes_path)) return true;
  ctx.save_state("evaluate " + net);
  const std::vector<tour::PlayerSpec> players = evaluation_players(ctx, g);
  ProgressLine line;
  std::map<std::string, std::pair<int, int>> score;  // opponent -> (wins, games)
  const tour::TournamentSpec spec =
      evaluation_spec(ctx, net, ctx.cfg.evaluate.games, ctx.cfg.selfplay.seed * 1000003ULL + uint64_t(g),
                      ctx.paths.eval + "/" + net);
  tour::TournamentResult res = tour::run_tournament(
      spec, players,
      [&](const tour::GameResult& game, int done, int total) {
        const std::string& a = players[size_t(game.winner)].name;
        const std::string& b = players[size_t(game.loser)].name;
        if (a == net) score[b].first += 1;
        score[a == net ? b : a].second += 1;
        std::string text = "gen " + std::to_string(g) + " evaluate: " + std::to_string(done) + "/" +
                           std::to_string(total) + " games;";
        for (auto& [opp, s] : score)
          text += " vs " + opp + " " + std::to_string(s.first) + "/" + std::to_string(s.second);
        line.update(text);
      },
      ctx.cancel);
  line.finish();
  if (res.cancelled) return false;  // stopped with games left; a stop after the last game keeps them
  const json games = outcome_games(res);
  // Gating against the best network so far (whatever vs_previous says).
  const EvaluateConfig& e = ctx.cfg.evaluate;
  bool promoted = true;
  if (e.gating) {
    auto s = score[ctx.state.best];
    promoted = s.second > 0 && double(s.first) / s.second >= e.gating_threshold;
  }
  json scores = json::object();
  for (auto& [opp, s] : score) scores[opp] = {{"wins", s.first}, {"games", s.second}};
  ctx.verify_claims();
  json j = {{"generation", g}, {"network", net}, {"promoted", promoted}, {"scores", scores}, {"games", games}};
  if (e.gating) j["gated_against"] = ctx.state.best;
  write_file_atomic(outcomes_path, j.dump(1) + "\n");
  return true;
}

ReferenceSet read_reference_set(const RunConfig& c) {
  ReferenceSet set;
  if (c.evaluate.reference.empty()) return set;
  const std::string where =
      c.evaluate.reference_where.empty() ? "evaluate.reference" : c.evaluate.reference_where;
  try {
    // Found here when parsing did not find it (it stored the path as given); the same places.
    const std::string path = find_repository_file(c.evaluate.reference, PS_SOURCE_DIR);
    for (GameData& game : read_reference_games(path))
      if (game.width == c.width && game.length == c.length && game.goal == c.goal &&
          game.variant == c.variant)
        set.games.push_back(std::move(game));  // the run's networks know no other rules
  } catch (const std::exception& e) {
    throw std::runtime_error(where + ": " + e.what());
  }
  if (set.games.empty())
    throw std::runtime_error(where + ": " + c.evaluate.reference + " holds no game of the run's rules (" +
                             std::to_string(c.width) + "x" + std::to_string(c.length) + " " +
                             variant_name(c.variant) + ")");
  uint64_t h = kFnv1a64OffsetBasis;
  for (const GameData& game : set.games)  // each record with its terminating NUL
    h = fnv1a64_bytes(game.record.data(), game.record.size() + 1, h);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
  set.checksum = hex;
  return set;
}

namespace {

// The text of the JSONL log at `path` (which must exist), whole lines only: a line cut by a
// kill would glue the next line appended onto it, so it is dropped from the file too.
std::string whole_log_lines(const RunContext& ctx, const std::string& path) {
  std::string text = read_file(path);
  if (!text.empty() && text.back() != '\n') {
    const size_t last = text.find_last_of('\n');
    text.erase(last == std::string::npos ? 0 : last + 1);
    ctx.verify_claims();
    write_file_atomic(path, text);
  }
  return text;
}

// The reference games' scores of generations 0..g from logs/reference.jsonl (lines of other
// games do not count: RunContext::reference_checksum); the generations not scored yet are
// scored and appended first. Null when the run has no reference games, or (with a warning)
// when scoring fails: the figures are a diagnostic, and a run does not stop for them.
json reference_scores(const RunContext& ctx, int g) {
  if (ctx.reference_games.empty()) return nullptr;
  const std::string& ref = ctx.cfg.evaluate.reference;
  const std::string log = ctx.paths.logs + "/reference.jsonl";
  std::map<int, json> scored;
  try {
    std::error_code ec;
    if (fs::exists(log, ec)) {
      std::istringstream in(whole_log_lines(ctx, log));  // a cut line is scored again below
      for (std::string l; std::getline(in, l);) {
        json j = json::parse(l, nullptr, /*allow_exceptions=*/false);
        if (j.is_object() && j.value("games_checksum", "") == ctx.reference_checksum &&
            j.contains("generation") && j["generation"].is_number_integer())
          scored[j["generation"].get<int>()] = j;
      }
    }
    for (int k = 0; k <= g; ++k) {
      if (scored.count(k) || !fs::exists(ctx.paths.checkpoint_of(gen_name(k)), ec)) continue;
      auto net = nn::make_net_evaluator(ctx.paths.checkpoint_of(gen_name(k)), ctx.cfg.service);
      const ReferenceScore s = score_reference_games(*net, ctx.reference_games);
      json j = {{"generation", k},
                {"network", gen_name(k)},
                {"games", ref},
                {"games_checksum", ctx.reference_checksum},
                {"positions", s.positions},
                {"value_mse", s.value_mse},
                {"early_positions", s.early_positions},
                {"early_value_mse", s.early_value_mse},
                {"late_value_mse", s.late_value_mse},
                {"value_sign_accuracy", s.value_sign_accuracy},
                {"policy_positions", s.policy_positions},
                {"policy_top1", s.policy_top1}};
      ctx.verify_claims();
      append_line(log, j.dump());
      scored[k] = j;
    }
  } catch (const ClaimLost&) {
    throw;
  } catch (const std::exception& e) {
    std::cerr << "warning: reference games not scored: " << e.what() << "\n";
  }
  return scored.count(g) ? scored[g] : json(nullptr);
}

// "gen 3 | gen-0003 | Elo +120 ± 80 | vs gen-0002 5/8 62% [31-86] | ... | promoted
// | reference value MSE 1.31 (early 1.33), top-1 9% | peak RSS"
std::string generation_line(int g, double elo, double ci, const json& outcome, bool promoted,
                            const json& reference) {
  std::string text = "gen " + std::to_string(g) + " | " + gen_name(g);
  char buf[128];
  std::snprintf(buf, sizeof buf, " | Elo %+.0f ± %.0f", tour::elo_for_print(elo, 0), ci);
  text += buf;
  for (auto& [opp, s] : outcome.at("scores").items()) {
    const int w = s.at("wins").get<int>(), n = s.at("games").get<int>();
    auto [lo, hi] = wilson_interval(w, n);
    std::snprintf(buf, sizeof buf, " | vs %s %d/%d %.0f%% [%.0f-%.0f]", opp.c_str(), w, n,
                  n ? 100.0 * w / n : 0.0, 100 * lo, 100 * hi);
    text += buf;
  }
  text += promoted ? " | promoted" : " | not promoted (gating)";
  if (reference.is_object()) {
    std::snprintf(buf, sizeof buf, " | reference value MSE %.3f (early %.3f), top-1 %.0f%%",
                  reference.value("value_mse", 0.0), reference.value("early_value_mse", 0.0),
                  100 * reference.value("policy_top1", 0.0));
    text += buf;
  }
  std::snprintf(buf, sizeof buf, " | peak RSS %.0f MiB", peak_rss_mib());
  return text + buf;
}

}  // namespace

void promote_and_export(RunContext& ctx, int g) {
  const std::string net = gen_name(g);
  const json outcome = read_json_file(ctx.paths.outcomes(g));
  const bool promoted = outcome.value("promoted", true);
  if (promoted) ctx.state.best = net;
  ctx.verify_claims();
  const Ratings ratings = rate_all(load_outcomes(ctx.paths.eval));
  write_ratings_json(ratings, ctx.paths.ratings);
  const auto [elo, ci] = ratings.elo(net);
  const json reference = reference_scores(ctx, g);
  std::printf("%s\n", generation_line(g, elo, ci, outcome, promoted, reference).c_str());
  std::fflush(stdout);
  json gen_line = {{"generation", g},
                   {"network", net},
                   {"elo", std::isfinite(elo) ? elo : 0.0},
                   {"ci95", std::isfinite(ci) ? ci : 0.0},
                   {"promoted", promoted},
                   {"best", ctx.state.best},
                   {"scores", outcome.at("scores")},
                   {"seconds", ctx.elapsed()},
                   {"peak_rss_mib", peak_rss_mib()}};
  if (reference.is_object()) gen_line["reference"] = reference;
  append_line(ctx.paths.logs + "/generations.jsonl", gen_line.dump());
  export_best_model(ctx, ratings);
  ctx.state.generation = g;
  ctx.save_state("generation " + std::to_string(g) + " done");
  (void)write_report_or_warn(ctx.cfg.dir);
}

std::string write_report_or_warn(const std::string& run_dir) {
  try {
    return report::write_report(run_dir);
  } catch (const std::exception& e) {
    std::cerr << "warning: report not written: " << e.what() << "\n";
    return "";
  }
}

namespace {

// Whether logs/verdict.jsonl holds the verdict after generation `last`.
bool verdict_logged(const RunContext& ctx, const std::string& log, int last) {
  std::error_code ec;
  if (!fs::exists(log, ec)) return false;
  std::istringstream in(whole_log_lines(ctx, log));
  for (std::string l; std::getline(in, l);) {
    const json j = json::parse(l, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("after_generation") && j["after_generation"] == last) return true;
  }
  return false;
}

}  // namespace

bool finish_run(RunContext& ctx) {
  const bool finished = ctx.state.generation >= ctx.cfg.generations && !ctx.stopped() && play_verdict(ctx);
  clear_net_evaluators();
  ctx.save_state(ctx.stopped() ? "interrupted" : (finished ? "finished" : "stopped"));
  return finished;
}

void rewrite_best_model(const RunContext& ctx) {
  export_best_model(ctx, rate_all(load_outcomes(ctx.paths.eval)));
}

bool play_verdict(RunContext& ctx) {
  const int last = ctx.state.generation;
  const std::string log = ctx.paths.logs + "/verdict.jsonl";
  // Its line in the log is the verdict's last step: a run stopped before it (after the games,
  // or after outcomes.json) does the steps after the games again.
  if (verdict_logged(ctx, log, last)) return true;
  const std::string dir = ctx.paths.verdict(last);
  const std::string outcomes_path = dir + "/outcomes.json";
  const std::string best = ctx.state.best, base = gen_name(0);
  if (!fs::exists(outcomes_path)) {
    json j = {{"after_generation", last}, {"network", best}, {"opponent", base}};
    if (best == base) {
      j["scores"] = json::object();
      j["games"] = json::array();
    } else {
      ctx.save_state("verdict " + best);
      const std::vector<tour::PlayerSpec> players{network_player(ctx, best), network_player(ctx, base)};
      // Seeds past every generation's (evaluate_generation uses seed * 1000003 + g).
      const tour::TournamentSpec spec = evaluation_spec(
          ctx, "verdict", ctx.cfg.evaluate.final_games,
          ctx.cfg.selfplay.seed * 1000003ULL + uint64_t(kMaxGenerations) + 1 + uint64_t(last), dir);
      ProgressLine line;
      int wins = 0, games = 0;
      tour::TournamentResult res = tour::run_tournament(
          spec, players,
          [&](const tour::GameResult& game, int done, int total) {
            if (players[size_t(game.winner)].name == best) ++wins;
            ++games;
            line.update("verdict: " + std::to_string(done) + "/" + std::to_string(total) + " games; " + best +
                        " vs " + base + " " + std::to_string(wins) + "/" + std::to_string(games));
          },
          ctx.cancel);
      line.finish();
      if (res.cancelled) return false;
      j["scores"] = {{base, {{"wins", wins}, {"games", games}}}};
      j["games"] = outcome_games(res);
    }
    ctx.verify_claims();
    write_file_atomic(outcomes_path, j.dump(1) + "\n");
  }
  const json outcome = read_json_file(outcomes_path);
  int wins = 0, games = 0;
  if (outcome.at("scores").contains(base)) {
    wins = outcome["scores"][base].at("wins").get<int>();
    games = outcome["scores"][base].at("games").get<int>();
  }
  // Its games count in every rating, the best network's in best.model included.
  const Ratings ratings = rate_all(load_outcomes(ctx.paths.eval));
  write_ratings_json(ratings, ctx.paths.ratings);
  const auto [elo, ci] = export_best_model(ctx, ratings);
  if (games > 0) {
    const auto [lo, hi] = wilson_interval(wins, games);
    std::printf(
        "verdict | %s, the best network after generation %d, vs %s %d/%d %.1f%% [%.1f-%.1f] | Elo %+.0f "
        "± %.0f | peak RSS %.0f MiB\n",
        best.c_str(), last, base.c_str(), wins, games, 100.0 * wins / games, 100 * lo, 100 * hi,
        tour::elo_for_print(elo, 0), ci, peak_rss_mib());
  } else {
    std::printf("verdict: no generation was promoted over %s; no games to play\n", base.c_str());
  }
  std::fflush(stdout);
  ctx.verify_claims();
  append_line(log, json({{"after_generation", last},
                         {"network", best},
                         {"opponent", base},
                         {"wins", wins},
                         {"games", games},
                         {"seconds", ctx.elapsed()}})
                       .dump());
  return true;
}

}  // namespace ps
