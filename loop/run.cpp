#include "loop/run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/fileutil.h"
#include "core/progress.h"
#include "core/stats.h"
#include "loop/players.h"
#include "nn/checkpoint.h"
#include "report/report.h"
#include "tournament/tournament.h"

namespace ps {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Training samples in the chunks `<data_dir>/<prefix>-*.psd` (one generation's self-play).
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

// Steps for generation g's training: train.steps, capped by train.rows_per_sample training rows
// per sample of the generation's self-play (deterministic from the stored data, so a resumed
// generation trains the same number of steps).
int64_t generation_steps(const TrainConfig& t, int64_t new_samples) {
  if (t.rows_per_sample <= 0) return t.steps;
  const double rows = t.rows_per_sample * double(new_samples);
  const int64_t cap = std::max<int64_t>(1, int64_t(std::ceil(rows / double(t.batch_size))));
  return std::min(t.steps, cap);
}
std::string gen_name(int g) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "gen-%04d", g);
  return buf;
}

}  // namespace

EvaluateConfig::EvaluateConfig() {
  search.root_noise = false;
  search.temperature = 0.0;
  search.temperature_turns = 0;
  search.temperature_final = 0.0;
}

std::vector<std::string> evaluation_opponents(const EvaluateConfig& e, int generation,
                                              const std::string& best) {
  std::vector<std::string> out;
  const std::string me = gen_name(generation);
  auto add = [&](const std::string& name) {
    if (name != me && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  if (e.vs_previous) add(gen_name(generation - 1));
  if (e.gating) add(best);
  if (e.vs_generation0 && generation - 1 != 0) add(gen_name(0));
  if (e.vs_random) add("random");
  if (e.vs_greedy) add("greedy");
  return out;
}

namespace {

EvaluateConfig parse_evaluate(ConfigReader& r) {
  EvaluateConfig e;
  e.games = r.get<int>("games", e.games);
  e.final_games = r.get<int>("final_games", e.final_games);
  e.visits = r.get<int64_t>("visits", e.visits);
  e.openings = r.get<int>("openings", e.openings);
  e.opening_turns = r.get<int>("opening_turns", e.opening_turns);
  e.concurrency = r.get<int>("concurrency", e.concurrency);
  e.vs_previous = r.get<bool>("vs_previous", e.vs_previous);
  e.vs_generation0 = r.get<bool>("vs_generation0", e.vs_generation0);
  e.vs_random = r.get<bool>("vs_random", e.vs_random);
  e.vs_greedy = r.get<bool>("vs_greedy", e.vs_greedy);
  {
    ConfigReader g = r.child("gating");
    e.gating = g.get<bool>("enabled", e.gating);
    e.gating_threshold = g.get<double>("threshold", e.gating_threshold);
    g.finish();
  }
  {
    ConfigReader sr = r.child("search");
    e.search = parse_search_params(sr, e.search);  // no noise, temperature 0 unless given
  }
  r.finish();
  // "<file>: evaluate.<key> (line N): must ..."
  if (e.games < 2 || e.games % 2) r.fail_key("games", "must be even and >= 2");
  if (e.final_games < 2 || e.final_games % 2) r.fail_key("final_games", "must be even and >= 2");
  if (e.visits < 1) r.fail_key("visits", "must be >= 1");
  if (e.openings < 1) r.fail_key("openings", "must be >= 1");
  if (e.opening_turns < 0) r.fail_key("opening_turns", "must be >= 0");
  if (e.concurrency < 1) r.fail_key("concurrency", "must be >= 1");
  if (!(e.gating_threshold > 0 && e.gating_threshold < 1))
    r.child("gating").fail_key("threshold", "must be in (0, 1)");
  return e;
}

std::string now_iso() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

json read_json_file(const std::string& path) {
  try {
    return json::parse(read_file(path));
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": malformed JSON: " + e.what());
  }
}

struct Outcome {
  std::string winner, loser;
};

// Every evaluation game of the finished generations (eval/gen-*/outcomes.json).
std::vector<Outcome> load_outcomes(const std::string& eval_dir) {
  std::vector<Outcome> all;
  if (!fs::is_directory(eval_dir)) return all;
  std::vector<std::string> files;
  for (auto& e : fs::directory_iterator(eval_dir))
    if (fs::exists(e.path() / "outcomes.json")) files.push_back((e.path() / "outcomes.json").string());
  std::sort(files.begin(), files.end());
  for (auto& f : files) {
    json j = read_json_file(f);
    for (auto& g : j.at("games")) all.push_back({g.at("winner").get<std::string>(), g.at("loser").get<std::string>()});
  }
  return all;
}

struct Ratings {
  std::vector<std::string> names;
  tour::RatingResult result;
  std::vector<std::vector<int>> wins;
  std::string anchor;
  int index(const std::string& n) const {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == n) return int(i);
    return -1;
  }
};

Ratings rate_all(const std::vector<Outcome>& outcomes) {
  Ratings r;
  std::set<std::string> seen;
  // Baselines first, then networks in order.
  for (const char* b : {"random", "greedy"})
    for (auto& o : outcomes)
      if (o.winner == b || o.loser == b) {
        if (seen.insert(b).second) r.names.push_back(b);
        break;
      }
  std::set<std::string> nets;
  for (auto& o : outcomes) {
    if (!seen.count(o.winner)) nets.insert(o.winner);
    if (!seen.count(o.loser)) nets.insert(o.loser);
  }
  for (auto& n : nets) r.names.push_back(n);
  r.wins.assign(r.names.size(), std::vector<int>(r.names.size(), 0));
  std::vector<tour::GameOutcome> games;
  for (auto& o : outcomes) {
    tour::GameOutcome g;
    g.winner = r.index(o.winner);
    g.loser = r.index(o.loser);
    games.push_back(g);
    r.wins[size_t(g.winner)][size_t(g.loser)] += 1;
  }
  if (r.names.size() < 2) return r;
  tour::RatingOptions opt;
  opt.anchor = std::max(0, r.index("random"));
  r.anchor = r.names[size_t(opt.anchor)];
  r.result = tour::compute_ratings(int(r.names.size()), games, opt);
  return r;
}

void write_ratings_json(const Ratings& r, const std::string& path) {
  json players = json::array();
  for (size_t i = 0; i < r.names.size(); ++i) {
    const auto& p = r.result.players.size() > i ? r.result.players[i] : tour::PlayerRating{};
    players.push_back({{"name", r.names[i]},
                       {"elo", std::isfinite(p.elo) ? p.elo : 0.0},
                       {"rated", std::isfinite(p.elo)},
                       {"ci95", p.ci95},
                       {"games", p.games},
                       {"wins", p.wins}});
  }
  json j = {{"anchor", r.anchor},
            {"players", players},
            {"crosstable", {{"names", r.names}, {"wins", r.wins}}}};
  write_file_atomic(path, j.dump(2) + "\n");
}

void export_model(const std::string& checkpoint, const std::string& out, const RunConfig& cfg,
                  double elo, double ci95) {
  nn::LoadedCheckpoint ck = nn::load_checkpoint(checkpoint, "cpu");
  nn::CheckpointMeta meta = ck.meta;
  if (meta.pitches.empty()) meta.pitches = {Pitch::get(cfg.width, cfg.length, cfg.goal).name()};
  if (meta.variants.empty()) meta.variants = {variant_name(cfg.variant)};
  meta.rating_elo = elo;
  meta.rating_ci95 = ci95;
  meta.note = cfg.name + " " + fs::path(checkpoint).stem().string();
  nn::save_checkpoint(out, ck.net, meta);
}

struct State {
  int generation = 0;   // last finished generation
  std::string best = "gen-0000";
  std::string started;
  double seconds = 0;   // wall time spent in earlier calls
};

State read_state(const std::string& path) {
  State s;
  if (!fs::exists(path)) return s;
  json j = read_json_file(path);
  s.generation = j.value("generation", 0);
  s.best = j.value("best", s.best);
  s.started = j.value("started", std::string());
  s.seconds = j.value("seconds", 0.0);
  return s;
}

void write_state(const State& s, const std::string& path, const std::string& phase) {
  json j = {{"generation", s.generation},
            {"best", s.best},
            {"started", s.started},
            {"seconds", s.seconds},
            {"phase", phase},
            {"updated", now_iso()}};
  write_file_atomic(path, j.dump(2) + "\n");
}

}  // namespace

RunConfig parse_run_config(const std::string& text, const std::string& source) {
  ConfigReader top = ConfigReader::from_string(text, source);
  RunConfig c;
  c.source = text;
  std::string pitch = "8x10";
  {
    ConfigReader r = top.child("run");
    c.name = r.get<std::string>("name", c.name);
    c.dir = r.get<std::string>("dir", "");
    c.generations = r.get<int>("generations", c.generations);
    pitch = r.get<std::string>("pitch", pitch);
    const std::string variant = r.get<std::string>("variant", "standard");
    r.finish();
    try {
      PitchChoice p = parse_pitch_spec(pitch);
      c.width = p.width;
      c.length = p.length;
      c.goal = p.goal;
    } catch (const std::invalid_argument& e) {
      r.fail_key("pitch", e.what());
    }
    try {
      c.variant = parse_variant(variant);
    } catch (const std::invalid_argument& e) {
      r.fail_key("variant", e.what());
    }
    if (c.generations < 1) r.fail_key("generations", "must be >= 1");
    if (c.name.empty() || c.name.find('/') != std::string::npos)
      throw ConfigError(source + ": run.name must be a non-empty name without '/'");
  }
  {
    ConfigReader r = top.child("service");
    try {
      c.service = nn::parse_service_options(r);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(source + ": service: " + e.what());
    }
    r.finish();
  }
  {
    ConfigReader r = top.child("selfplay");
    const bool has_pitches = r.has("pitches"), has_variants = r.has("variants");
    c.selfplay = parse_selfplay_config(r);
    if (!has_pitches) c.selfplay.pitches = {PitchChoice{c.width, c.length, c.goal}};
    if (!has_variants) c.selfplay.variants = {c.variant};
  }
  {
    ConfigReader r = top.child("train");
    c.train = parse_train_config(r);
  }
  {
    ConfigReader r = top.child("evaluate");
    c.evaluate = parse_evaluate(r);
  }
  top.finish();
  // Values that are valid for the single commands but leave the loop nothing to do, caught
  // before the run directory is made.
  if (c.selfplay.games < 1)
    throw ConfigError(source + ": selfplay.games must be >= 1 in a run (every generation trains on new games)");
  if (c.train.steps < 1) throw ConfigError(source + ": train.steps must be >= 1 in a run");
  for (const auto& [key, device] : {std::pair<const char*, const std::string&>{"service.device", c.service.device},
                                    {"train.device", c.train.device}})
    if (!nn::is_device_name(device))
      throw ConfigError(source + ": " + key + ": '" + device + "' is not a device (cpu, cuda or cuda:N)");
  if (c.dir.empty()) c.dir = "runs/" + c.name;
  return c;
}

namespace {

// key.path -> value (YAML flow text) for every scalar or sequence of a config.
void flatten_yaml(const YAML::Node& n, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (n.IsMap()) {
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string key = it->first.as<std::string>();
      flatten_yaml(it->second, prefix.empty() ? key : prefix + "." + key, out);
    }
    return;
  }
  YAML::Emitter e;
  e.SetSeqFormat(YAML::Flow);
  e.SetMapFormat(YAML::Flow);
  e << n;
  out[prefix] = e.c_str();
}

std::string pitch_list_text(const std::vector<PitchChoice>& v) {
  std::string s;
  for (const auto& p : v) s += (s.empty() ? "" : ",") + Pitch::get(p.width, p.length, p.goal).name();
  return s;
}

std::string variant_list_text(const std::vector<Variant>& v) {
  std::string s;
  for (Variant x : v) s += (s.empty() ? "" : ",") + std::string(variant_name(x));
  return s;
}

}  // namespace

std::vector<ConfigChange> compare_run_configs(const std::string& old_text, const std::string& new_text,
                                              const std::string& old_source) {
  const RunConfig a = parse_run_config(old_text, old_source);
  const RunConfig b = parse_run_config(new_text, "the config given");
  std::vector<std::string> refused;
  auto check = [&](const char* key, const std::string& x, const std::string& y) {
    if (x != y) refused.push_back(std::string(key) + " (" + x + " -> " + y + ")");
  };
  check("run.pitch", Pitch::get(a.width, a.length, a.goal).name(), Pitch::get(b.width, b.length, b.goal).name());
  check("run.variant", variant_name(a.variant), variant_name(b.variant));
  check("selfplay.pitches", pitch_list_text(a.selfplay.pitches), pitch_list_text(b.selfplay.pitches));
  check("selfplay.variants", variant_list_text(a.selfplay.variants), variant_list_text(b.selfplay.variants));
  if (a.train.net != b.train.net)
    refused.push_back("train.net (" + a.train.net.summary() + " -> " + b.train.net.summary() + ")");
  if (!refused.empty()) {
    std::string list;
    for (const auto& r : refused) list += (list.empty() ? "" : ", ") + r;
    throw ConfigError(old_source + ": the run was started with another " + list +
                      "; these cannot change within a run (its data, checkpoints and ratings are "
                      "for the old ones). Put them back, or start a new run (another run.name or --dir)");
  }
  std::map<std::string, std::string> x, y;
  flatten_yaml(YAML::Load(old_text), "", x);
  flatten_yaml(YAML::Load(new_text), "", y);
  std::vector<ConfigChange> changes;
  for (const auto& [k, v] : x) {
    auto it = y.find(k);
    if (it == y.end()) changes.push_back({k, v, "absent"});
    else if (it->second != v) changes.push_back({k, v, it->second});
  }
  for (const auto& [k, v] : y)
    if (!x.count(k)) changes.push_back({k, "absent", v});
  std::sort(changes.begin(), changes.end(), [](const ConfigChange& p, const ConfigChange& q) { return p.key < q.key; });
  return changes;
}

RunConfig load_run_config(const std::string& path) {
  std::string text;
  try {
    text = read_file(path);
  } catch (const std::exception&) {
    throw ConfigError(path + ": cannot open config file");
  }
  return parse_run_config(text, path);
}

void run_training_loop(const RunConfig& cfg, const std::atomic<bool>* cancel) {
  register_builtin_players();
  const fs::path root(cfg.dir);
  const std::string data_dir = (root / "data").string();
  const std::string ckpt_dir = (root / "checkpoints").string();
  const std::string eval_dir = (root / "eval").string();
  const std::string logs = (root / "logs").string();
  fs::create_directories(data_dir);
  fs::create_directories(ckpt_dir);
  fs::create_directories(eval_dir);
  fs::create_directories(logs);
  // A run killed while writing a file leaves its temporary (the file itself is intact: writes
  // are atomic); the run's directory belongs to this process, so clear them.
  if (const uint64_t stale = remove_stale_temp_files(root.string()))
    std::printf("removed %llu temporary file(s) left by an interrupted run\n", (unsigned long long)stale);
  const std::string state_path = (root / "state.json").string();
  const std::string config_copy = (root / "config.yaml").string();
  State state = read_state(state_path);
  if (!fs::exists(config_copy)) {
    write_file_atomic(config_copy, cfg.source);
  } else if (const std::string old_text = read_file(config_copy); old_text != cfg.source) {
    // Refuses incoherent changes (before anything else is written); records the others.
    const std::vector<ConfigChange> changes = compare_run_configs(old_text, cfg.source, config_copy);
    if (!changes.empty()) {
      json list = json::array();
      std::cerr << "config changed since " << config_copy << " (resuming after generation "
                << state.generation << "):\n";
      for (const ConfigChange& c : changes) {
        std::cerr << "  " << c.key << ": " << c.old_value << " -> " << c.new_value << "\n";
        list.push_back({{"key", c.key}, {"old", c.old_value}, {"new", c.new_value}});
      }
      append_line(logs + "/config.jsonl",
                  json({{"time", now_iso()}, {"after_generation", state.generation}, {"changes", list}}).dump());
    }
    write_file_atomic(config_copy, cfg.source);  // the next resume compares with this one
  }
  if (state.started.empty()) state.started = now_iso();
  const auto t_call = std::chrono::steady_clock::now();
  const double base_seconds = state.seconds;
  auto elapsed = [&] {
    return base_seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - t_call).count();
  };
  auto ckpt = [&](int g) { return ckpt_dir + "/" + gen_name(g) + ".ckpt"; };
  auto ckpt_of = [&](const std::string& name) { return ckpt_dir + "/" + name + ".ckpt"; };
  auto stopped = [&] { return cancel && cancel->load(); };
  const Pitch& pitch = Pitch::get(cfg.width, cfg.length, cfg.goal);

  std::printf("run '%s' in %s: %d generations, %s %s, net %s, self-play %lld games x %lld visits, "
              "train %lld steps x %d\n",
              cfg.name.c_str(), cfg.dir.c_str(), cfg.generations, pitch.name().c_str(),
              variant_name(cfg.variant), cfg.train.net.summary().c_str(),
              (long long)cfg.selfplay.games, (long long)cfg.selfplay.visits,
              (long long)cfg.train.steps, cfg.train.batch_size);
  if (state.generation > 0)
    std::printf("resuming after generation %d (best %s)\n", state.generation, state.best.c_str());
  std::fflush(stdout);

  if (!fs::exists(ckpt(0))) write_initial_checkpoint(cfg.train, ckpt(0), cfg.name + " " + gen_name(0));

  for (int g = state.generation + 1; g <= cfg.generations; ++g) {
    if (stopped()) break;
    state.seconds = elapsed();  // every write_state of this generation carries the time so far
    const std::string net = gen_name(g);
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "gen%04d", g - 1);

    // 1. Self-play with the best network.
    {
      write_state(state, state_path, "selfplay " + net);
      auto eval = shared_net_evaluator(ckpt_of(state.best), cfg.service);
      ProgressLine line;
      // This session's totals go to logs/selfplay.jsonl after every chunk of games and at its
      // end (the report keeps each session's last line), and state.json's wall time with them:
      // a killed process loses at most a chunk's worth of both.
      const std::string session = now_iso() + "/" + std::to_string(::getpid());
      auto log_selfplay = [&](const SelfplayStats& st, bool done) {
        json j = {{"generation", g},
                  {"network", state.best},
                  {"session", session},
                  {"final", done},
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
        append_line(logs + "/selfplay.jsonl", j.dump());
        state.seconds = elapsed();
        write_state(state, state_path, "selfplay " + net);
      };
      SelfplayStats st = run_selfplay(
          cfg.selfplay, *eval, state.best, data_dir, prefix,
          [&](const SelfplayStats& s, int64_t target) {
            const double rate = s.games_per_s();
            char buf[256];
            std::snprintf(buf, sizeof buf,
                          "gen %d self-play (%s): %lld/%lld games, %.2f games/s, %.0f positions/s, "
                          "%.1f turns/game, ETA %s",
                          g, state.best.c_str(), (long long)s.games, (long long)target, rate,
                          s.samples_per_s(), s.mean_game_turns(),
                          format_duration(rate > 0 ? (target - s.games) / rate : 0).c_str());
            line.update(buf);
            if (s.games % cfg.selfplay.games_per_chunk == 0 && s.games < target) log_selfplay(s, false);
          },
          cancel);
      line.finish();
      if (st.games > 0) log_selfplay(st, true);
      if (stopped()) break;
    }
    clear_net_evaluators();

    // 2. Train the latest network on the replay window.
    if (!fs::exists(ckpt(g))) {
      write_state(state, state_path, "train " + net);
      ProgressLine line;
      TrainConfig tcfg = cfg.train;
      const int64_t new_samples = samples_with_prefix(data_dir, prefix);
      tcfg.steps = generation_steps(cfg.train, new_samples);
      if (tcfg.steps < cfg.train.steps)
        std::printf("gen %d train: %lld steps (%.1f rows per each of %lld new samples)\n", g,
                    (long long)tcfg.steps, cfg.train.rows_per_sample, (long long)new_samples);
      TrainResult tr = train_network(
          tcfg, data_dir, ckpt(g - 1), ckpt(g), logs + "/train.jsonl", cfg.name + " " + net,
          [&](const TrainMetrics& m, int64_t target) {
            char buf[256];
            std::snprintf(buf, sizeof buf,
                          "gen %d train: step %lld/%lld, policy loss %.3f, value loss %.3f, "
                          "policy acc %.0f%%, %.0f samples/s, window %lld",
                          g, (long long)m.step, (long long)target, m.policy_loss, m.value_loss,
                          100 * m.policy_accuracy, m.samples_per_s, (long long)m.window);
            line.update(buf);
          },
          cancel);
      line.finish();
      if (stopped() || !fs::exists(ckpt(g))) break;
      std::printf("gen %d trained: steps %lld -> %lld, %.0f samples/s, window %lld of %lld samples\n",
                  g, (long long)tr.start_step, (long long)tr.end_step, tr.samples_per_s,
                  (long long)tr.window_samples, (long long)tr.total_samples);
    }

    // 3. Evaluate: gauntlet of the new network against the previous, generation 0, baselines.
    const std::string outcomes_path = eval_dir + "/" + net + "/outcomes.json";
    if (!fs::exists(outcomes_path)) {
      write_state(state, state_path, "evaluate " + net);
      tour::TournamentSpec spec;
      spec.name = cfg.name + " " + net;
      spec.width = cfg.width;
      spec.length = cfg.length;
      spec.goal = cfg.goal;
      spec.variant = cfg.variant;
      spec.format = tour::Format::kGauntlet;
      spec.gauntlet_size = 1;
      spec.games_per_pairing = g == cfg.generations ? cfg.evaluate.final_games : cfg.evaluate.games;
      spec.openings = cfg.evaluate.openings;
      spec.opening_turns = cfg.evaluate.opening_turns;
      spec.seed = cfg.selfplay.seed * 1000003ULL + uint64_t(g);
      spec.concurrency = cfg.evaluate.concurrency;
      spec.budget.visits = cfg.evaluate.visits;
      spec.out_dir = eval_dir + "/" + net;
      std::vector<tour::PlayerSpec> players;
      auto net_player = [&](const std::string& name) {
        tour::PlayerSpec p;
        p.name = name;
        p.type = "mcts";
        const std::string path = ckpt_of(name);
        const nn::ServiceOptions so = cfg.service;
        const SearchParams sp = cfg.evaluate.search;
        p.make = [path, so, sp, name](const tour::PlayerContext& c) {
          return make_net_player(path, so, sp, c.seed, name);
        };
        players.push_back(p);
      };
      net_player(net);
      for (const std::string& opp : evaluation_opponents(cfg.evaluate, g, state.best)) {
        if (opp == "random" || opp == "greedy") {
          tour::PlayerSpec p;
          p.name = p.type = opp;
          players.push_back(p);
        } else {
          net_player(opp);
        }
      }
      if (players.size() < 2)
        throw ConfigError("evaluate: every opponent is switched off (vs_previous, vs_generation0, "
                          "vs_random, vs_greedy)");
      ProgressLine line;
      std::map<std::string, std::pair<int, int>> score;  // opponent -> (wins, games)
      tour::TournamentResult res = tour::run_tournament(
          spec, players,
          [&](const tour::GameResult& game, int done, int total) {
            const std::string& a = players[size_t(game.winner)].name;
            const std::string& b = players[size_t(game.loser)].name;
            if (a == net) score[b].first += 1;
            score[a == net ? b : a].second += 1;
            std::string text = "gen " + std::to_string(g) + " evaluate: " + std::to_string(done) +
                               "/" + std::to_string(total) + " games;";
            for (auto& [opp, s] : score)
              text += " vs " + opp + " " + std::to_string(s.first) + "/" + std::to_string(s.second);
            line.update(text);
          },
          cancel);
      line.finish();
      if (res.cancelled || stopped()) break;
      json games = json::array();
      for (const tour::GameResult& game : res.games)
        games.push_back({{"winner", res.players[size_t(game.winner)]},
                         {"loser", res.players[size_t(game.loser)]},
                         {"termination", game.termination}});
      // Gating against the best network so far (whatever vs_previous says).
      bool promoted = true;
      if (cfg.evaluate.gating) {
        auto s = score[state.best];
        promoted = s.second > 0 && double(s.first) / s.second >= cfg.evaluate.gating_threshold;
      }
      json scores = json::object();
      for (auto& [opp, s] : score) scores[opp] = {{"wins", s.first}, {"games", s.second}};
      json j = {{"generation", g}, {"network", net}, {"promoted", promoted}, {"scores", scores},
                {"games", games}};
      if (cfg.evaluate.gating) j["gated_against"] = state.best;
      write_file_atomic(outcomes_path, j.dump(1) + "\n");
    }
    clear_net_evaluators();

    // Ratings over every evaluation game so far; the generation's line; export.
    json outcome = read_json_file(outcomes_path);
    const bool promoted = outcome.value("promoted", true);
    if (promoted) state.best = net;
    Ratings ratings = rate_all(load_outcomes(eval_dir));
    write_ratings_json(ratings, (root / "ratings.json").string());
    const int me = ratings.index(net);
    const double elo = me >= 0 ? ratings.result.players[size_t(me)].elo : NAN;
    const double ci = me >= 0 ? ratings.result.players[size_t(me)].ci95 : NAN;
    std::string text = "gen " + std::to_string(g) + " | " + net;
    char buf[128];
    std::snprintf(buf, sizeof buf, " | Elo %+.0f ± %.0f", elo, ci);
    text += buf;
    for (auto& [opp, s] : outcome.at("scores").items()) {
      const int w = s.at("wins").get<int>(), n = s.at("games").get<int>();
      auto [lo, hi] = wilson_interval(w, n);
      std::snprintf(buf, sizeof buf, " | vs %s %d/%d %.0f%% [%.0f-%.0f]", opp.c_str(), w, n,
                    n ? 100.0 * w / n : 0.0, 100 * lo, 100 * hi);
      text += buf;
    }
    text += promoted ? " | promoted" : " | not promoted (gating)";
    std::snprintf(buf, sizeof buf, " | peak RSS %.0f MiB", peak_rss_mib());
    text += buf;
    std::printf("%s\n", text.c_str());
    std::fflush(stdout);
    json gen_line = {{"generation", g},       {"network", net},
                     {"elo", std::isfinite(elo) ? elo : 0.0},
                     {"ci95", std::isfinite(ci) ? ci : 0.0},
                     {"promoted", promoted},  {"best", state.best},
                     {"scores", outcome.at("scores")}, {"seconds", elapsed()},
                     {"peak_rss_mib", peak_rss_mib()}};
    append_line(logs + "/generations.jsonl", gen_line.dump());
    const int bi = ratings.index(state.best);
    export_model(ckpt_of(state.best), (root / "best.model").string(), cfg,
                 bi >= 0 ? ratings.result.players[size_t(bi)].elo : NAN,
                 bi >= 0 ? ratings.result.players[size_t(bi)].ci95 : NAN);
    state.generation = g;
    state.seconds = elapsed();
    write_state(state, state_path, "generation " + std::to_string(g) + " done");
    try {
      report::write_report(cfg.dir);
    } catch (const std::exception& e) {
      std::cerr << "warning: report not written: " << e.what() << "\n";
    }
  }
  state.seconds = elapsed();
  const bool finished = state.generation >= cfg.generations;
  write_state(state, state_path, stopped() ? "interrupted" : (finished ? "finished" : "stopped"));
  if (finished) {
    try {
      std::printf("report: %s\nbest model: %s\n", report::write_report(cfg.dir).c_str(),
                  (root / "best.model").c_str());
    } catch (const std::exception& e) {
      std::cerr << "warning: report not written: " << e.what() << "\n";
    }
  }
}

}  // namespace ps
