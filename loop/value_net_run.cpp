#include "loop/value_net_run.h"

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "core/checksum.h"
#include "core/field_check.h"
#include "core/fileutil.h"
#include "core/plural.h"
#include "core/progress.h"
#include "core/stats.h"
#include "engine/record.h"
#include "export/single_file.h"
#include "loop/players.h"
#include "loop/role_claim.h"
#include "loop/roles.h"
#include "loop/run_dir.h"
#include "report/value_net_report.h"
#include "search/leaf_evals.h"
#include "tournament/ratings.h"
#include "tournament/tournament.h"
#include "valuenet/value_net_file.h"

namespace ps {

namespace fs = std::filesystem;
using json = nlohmann::json;

void VnetGatingConfig::validate() const {
  const FieldCheck check("gating.");
  check(games >= 2 && games % 2 == 0 && games <= 100000, "games", "must be even and in [2, 100000]");
  check(time_ms >= 1 && time_ms <= 600000, "time_ms", "must be in [1, 600000]");
  check(openings >= 1 && openings <= 100000, "openings", "must be in [1, 100000]");
  check(opening_turns >= 0 && opening_turns <= 100, "opening_turns", "must be in [0, 100]");
  check(concurrency >= 1 && concurrency <= 256, "concurrency", "must be in [1, 256]");
  check(rule == "sprt" || rule == "score", "rule", "must be sprt or score, not '" + rule + "'");
  check(std::isfinite(elo0) && std::isfinite(elo1) && elo1 > elo0 && std::abs(elo0) <= 1000 &&
            std::abs(elo1) <= 1000,
        "elo1", "must be above elo0, both in [-1000, 1000]");
  check(alpha > 0 && alpha < 0.5, "alpha", "must be in (0, 0.5)");
  check(beta > 0 && beta < 0.5, "beta", "must be in (0, 0.5)");
  check(threshold > 0 && threshold < 1, "threshold", "must be in (0, 1)");
}

void VnetLadderConfig::validate() const {
  const FieldCheck check("ladder.");
  for (const std::string& o : opponents)
    check(o == "alphabeta" || o == "greedy" || o == "uct" || o == "random" || o == "alphabeta-nnue",
          "opponents", "'" + o + "' is not a yardstick (alphabeta, alphabeta-nnue, greedy, uct, random)");
  for (size_t i = 0; i < opponents.size(); ++i)
    check(std::find(opponents.begin(), opponents.begin() + long(i), opponents[i]) ==
              opponents.begin() + long(i),
          "opponents", "'" + opponents[i] + "' is listed twice");
  const bool nnue = std::find(opponents.begin(), opponents.end(), "alphabeta-nnue") != opponents.end();
  check(!nnue || !value_net.empty(), "value_net", "alphabeta-nnue needs its .vnet file");
  check(nnue || value_net.empty(), "value_net", "is only read with alphabeta-nnue among the opponents");
  check(games >= 2 && games % 2 == 0 && games <= 100000, "games", "must be even and in [2, 100000]");
  check(time_ms >= 1 && time_ms <= 600000, "time_ms", "must be in [1, 600000]");
  check(openings >= 1 && openings <= 100000, "openings", "must be in [1, 100000]");
  check(opening_turns >= 0 && opening_turns <= 100, "opening_turns", "must be in [0, 100]");
  check(concurrency >= 1 && concurrency <= 256, "concurrency", "must be in [1, 256]");
}

bool is_value_net_run_config(const std::string& yaml_text) {
  try {
    const YAML::Node n = YAML::Load(yaml_text);
    return n.IsMap() && n["run"] && n["run"].IsMap() && n["run"]["learner"] &&
           n["run"]["learner"].IsScalar() && n["run"]["learner"].Scalar() == "value-net";
  } catch (const std::exception&) {
    return false;
  }
}

namespace {

// The run: map (learner, name, dir, init, generations, pitch, variant) into c; init is checked
// against the rules.
void read_vnet_run_section(ConfigReader& r, VnetRunConfig& c) {
  std::string learner;
  r.read(field("learner", learner), field("name", c.name), field("dir", c.dir), field("init", c.init),
         field("generations", c.generations));
  const PitchChoice p =
      r.get_parsed("pitch", "8x10", [](const std::string& t) { return parse_pitch_spec(t); });
  c.width = p.width;
  c.length = p.length;
  c.goal = p.goal;
  c.variant = r.get_parsed("variant", "standard", parse_variant);
  r.finish();
  if (learner != "value-net") r.fail_key("learner", "must be value-net here");
  if (c.generations < 1 || c.generations > 10000) r.fail_key("generations", "must be in [1, 10000]");
  if (!is_run_directory_name(c.name) || c.name.size() > 200 ||
      c.name.find_first_of("\\:*?\"<>|") != std::string::npos ||
      std::any_of(c.name.begin(), c.name.end(),
                  [](char ch) { return (unsigned char)ch < 32 || (unsigned char)ch > 126; }))
    r.fail_key(
        "name",
        "must be 1 to 200 printable ASCII characters without / \\ : * ? \" < > |, not '.' or '..' or blank");
  if (r.has("init") && c.init.empty()) r.fail_key("init", "must be a .vnet file (or leave the key out)");
  if (!c.init.empty()) try {
      check_value_net_rules(c.init, Pitch::get(c.width, c.length, c.goal), c.variant);
    } catch (const std::exception& e) {
      r.fail_key("init", e.what());
    }
}

// The selfplay: map (first_games, the teacher's options, the games) into c, on the run's rules.
void read_vnet_selfplay_section(ConfigReader& r, VnetRunConfig& c) {
  c.first_games = r.get<int64_t>("first_games", c.first_games);
  if (r.has("first_games") && (c.first_games < 1 || c.first_games > 10000000))
    r.fail_key("first_games", "must be in [1, 10000000]");
  {
    ConfigReader t = r.child("teacher");
    for (const char* key : {"eval", "value_net", "player"})
      if (t.has(key))
        t.fail_key(key,
                   "is the loop's: the teacher is alpha-beta with the best net so far (the random "
                   "evaluation before the first)");
    c.teacher = parse_teacher_options(t);
  }
  c.selfplay = parse_selfplay_config(r);
  if (c.selfplay.games < 1) r.fail_key("games", "must be >= 1 in a run (every generation plays new games)");
  if (c.selfplay.concurrent_games > 256) r.fail_key("concurrent_games", "must be <= 256");
  c.selfplay.pitches = {PitchChoice{c.width, c.length, c.goal}};
  c.selfplay.variants = {c.variant};
}

// The train: and train_first: maps (train_first's defaults are train's) into c.
void read_vnet_train_sections(ConfigReader& top, VnetRunConfig& c) {
  ConfigReader r = top.child("train");
  c.train = parse_value_train_config(r);
  if (c.train.steps < 1) r.fail_key("steps", "must be >= 1 in a run");
  ConfigReader f = top.child("train_first");
  c.train_first = parse_value_train_config(f, c.train);
  if (c.train_first.steps < 1) f.fail_key("steps", "must be >= 1 in a run");
  // The threads of one training are LibTorch's intra-op threads: beyond the cores they only wait.
  for (ConfigReader* x : {&r, &f})
    if (x->has("threads") && (x == &r ? c.train : c.train_first).threads > 256)
      x->fail_key("threads", "must be in [0, 256]");
}

// The gating:, ladder: and export: maps into c; the ladder's value net is checked against the
// run's rules.
void read_vnet_gating_ladder_export(ConfigReader& top, VnetRunConfig& c) {
  {
    ConfigReader r = top.child("gating");
    r.read(field("games", c.gating.games), field("time_ms", c.gating.time_ms),
           field("openings", c.gating.openings), field("opening_turns", c.gating.opening_turns),
           field("concurrency", c.gating.concurrency), field("rule", c.gating.rule),
           field("elo0", c.gating.elo0), field("elo1", c.gating.elo1), field("alpha", c.gating.alpha),
           field("beta", c.gating.beta), field("threshold", c.gating.threshold));
    c.gating = r.finish_validated(c.gating);
  }
  {
    ConfigReader r = top.child("ladder");
    r.read(field("opponents", c.ladder.opponents), field("value_net", c.ladder.value_net),
           field("games", c.ladder.games), field("time_ms", c.ladder.time_ms),
           field("openings", c.ladder.openings), field("opening_turns", c.ladder.opening_turns),
           field("concurrency", c.ladder.concurrency));
    c.ladder = r.finish_validated(c.ladder);
    if (!c.ladder.value_net.empty()) try {
        check_value_net_rules(c.ladder.value_net, Pitch::get(c.width, c.length, c.goal), c.variant);
      } catch (const std::exception& e) {
        r.fail_key("value_net", e.what());
      }
  }
  {
    ConfigReader r = top.child("export");
    r.read(field("single_file", c.export_single_file), field("compile_check", c.compile_check));
    r.finish();
  }
}

}  // namespace

VnetRunConfig parse_vnet_run_config(const std::string& text, const std::string& source) {
  ConfigReader top = ConfigReader::from_string(text, source);
  VnetRunConfig c;
  c.source = text;
  {
    ConfigReader r = top.child("run");
    read_vnet_run_section(r, c);
  }
  {
    ConfigReader r = top.child("selfplay");
    read_vnet_selfplay_section(r, c);
  }
  {
    ConfigReader r = top.child("relabel");
    r.read(field("enabled", c.relabel), field("nodes", c.relabel_options.nodes),
           field("from_turn", c.relabel_options.from_turn), field("every", c.relabel_options.every),
           field("threads", c.relabel_options.threads), field("tt_mb", c.relabel_options.tt_mb));
    c.relabel_options.value_net = "<the best net>";
    c.relabel_options = r.finish_validated(c.relabel_options);
  }
  read_vnet_train_sections(top, c);
  read_vnet_gating_ladder_export(top, c);
  top.finish();
  if (c.first_games < 0) c.first_games = c.selfplay.games;
  if (c.dir.empty()) c.dir = "runs/" + c.name;
  return c;
}

double sprt_llr(double wins, double losses, double elo0, double elo1) {
  const double p0 = 1 / (1 + std::pow(10.0, -elo0 / 400)), p1 = 1 / (1 + std::pow(10.0, -elo1 / 400));
  return wins * std::log(p1 / p0) + losses * std::log((1 - p1) / (1 - p0));
}

int sprt_decision(double llr, double alpha, double beta) {
  if (llr <= std::log(beta / (1 - alpha))) return -1;
  if (llr >= std::log((1 - beta) / alpha)) return 1;
  return 0;
}

namespace {

// The run directory's paths.
struct VnetPaths {
  std::string root, state, config, nets, logs, best;
  explicit VnetPaths(const std::string& dir)
      : root(dir),
        state(dir + "/state.json"),
        config(dir + "/config.yaml"),
        nets(dir + "/nets"),
        logs(dir + "/logs"),
        best(dir + "/best.vnet") {}
  std::string net(const std::string& gen) const { return nets + "/" + gen + ".vnet"; }
  std::string teacher_data(const std::string& best_gen) const { return root + "/data/teacher-" + best_gen; }
  std::string relabelled(const std::string& best_gen) const { return root + "/relabel/teacher-" + best_gen; }
  std::string gating(int g) const { return root + "/gating/" + gen_name(g); }
  std::string ladder(int g) const { return root + "/ladder/" + gen_name(g); }
  std::string single_file(int g) const { return root + "/export/" + gen_name(g) + ".cpp"; }
};

// state.json of a value-net run: the last finished generation, the best net and the Elo chain.
struct VnetState {
  int generation = 0;
  std::string best = "gen-0000";
  std::map<std::string, std::pair<double, double>> elo;  // network -> (Elo, 95% half-width)
  std::string started, phase;
  double seconds = 0;
};

VnetState read_state(const VnetPaths& p) {
  VnetState s;
  s.elo["gen-0000"] = {0, 0};
  if (!fs::exists(p.state)) return s;
  const json j = read_json_file(p.state);
  const std::string where = p.state + ": ";
  // Each field by name and type: a message names the field, not the JSON library's exception.
  auto field = [&](const char* key, bool (json::*is)() const noexcept, const char* type) -> const json& {
    if (!j.contains(key)) throw std::runtime_error(where + "\"" + key + "\" is missing");
    if (!(j.at(key).*is)()) throw std::runtime_error(where + "\"" + key + "\" must be " + type);
    return j.at(key);
  };
  if (!j.is_object() || j.value("learner", json()) != "value-net")
    throw std::runtime_error(where +
                             "not a value-net run's state (\"learner\" is not \"value-net\"): "
                             "give another run.dir");
  const json& gen = field("generation", &json::is_number_integer, "an integer");
  if (gen.get<int64_t>() < 0 || gen.get<int64_t>() > 10000)
    throw std::runtime_error(where + "\"generation\" " + gen.dump() + " is not in [0, 10000]");
  s.generation = gen.get<int>();
  s.best = field("best", &json::is_string, "a string").get<std::string>();
  for (auto& [net, v] : field("elo", &json::is_object, "an object").items()) {
    if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number())
      throw std::runtime_error(where + "\"elo\": \"" + net + "\" must be [Elo, 95% half-width]");
    s.elo[net] = {v[0].get<double>(), v[1].get<double>()};
  }
  if (j.contains("started") && j.at("started").is_string()) s.started = j.at("started").get<std::string>();
  if (j.contains("seconds") && j.at("seconds").is_number())
    s.seconds = std::max(0.0, j.at("seconds").get<double>());
  // Only names this loop writes: the state names files inside the run directory.
  const int b = generation_of(s.best);
  if (b < 0 || b > s.generation)
    throw std::runtime_error(where + "\"best\" '" + s.best.substr(0, 80) +
                             "' is not a generation of this run (gen-0000 to " + gen_name(s.generation) +
                             ")");
  if (!s.elo.count(s.best)) throw std::runtime_error(where + "no Elo for the best net " + s.best);
  return s;
}

void write_state(const VnetPaths& p, const VnetState& s) {
  json elo = json::object();
  for (auto& [net, v] : s.elo) elo[net] = {v.first, v.second};
  const json j = {
      {"learner", "value-net"}, {"generation", s.generation}, {"best", s.best},       {"elo", elo},
      {"started", s.started},   {"phase", s.phase},           {"seconds", s.seconds}, {"updated", now_iso()}};
  write_file_atomic(p.state, j.dump(1) + "\n");
}

// The .vnet file of a network of the run: generation 0 is run.init ("": the random evaluation).
std::string net_file(const VnetRunConfig& cfg, const VnetPaths& p, const std::string& net) {
  if (net == "gen-0000") return cfg.init;
  return p.net(net);
}

// The options of a registry `alphabeta` player with that network's evaluation.
YAML::Node bot_options(const VnetRunConfig& cfg, const VnetPaths& p, const std::string& net) {
  YAML::Node o(YAML::NodeType::Map);
  const std::string file = net_file(cfg, p, net);
  if (file.empty()) {
    o["eval"] = "noise";
  } else {
    o["eval"] = "nnue";
    o["value_net"] = file;
  }
  return o;
}

// A generation's teacher games: the best bot plays itself into its teacher folder. One rule for
// `run` and for the teacher workers of `selfplay --follow` (run_value_net_teacher_worker).
struct TeacherJob {
  SelfplayConfig selfplay;  ///< games: the generation's target over every process
  TeacherOptions teacher;
  std::string data;  ///< the teacher's folder
};

TeacherJob teacher_job(const VnetRunConfig& cfg, const VnetPaths& p, int g, const std::string& best) {
  TeacherJob j;
  const bool from_random = best == "gen-0000" && cfg.init.empty();
  j.selfplay = cfg.selfplay;
  j.selfplay.games = from_random ? cfg.first_games : cfg.selfplay.games;
  j.selfplay.seed = cfg.selfplay.seed * 1000003ULL + uint64_t(g);
  j.teacher = cfg.teacher;
  j.teacher.value_net = net_file(cfg, p, best);
  j.teacher.eval = j.teacher.value_net.empty() ? "noise" : "nnue";
  j.data = p.teacher_data(best);
  return j;
}

// Chunk prefixes of generation g: `run`'s "gNNNN" and a worker's "w-ID-gNNNN" (worker ids hold
// no '-', so neither is the start of another's chunk names). The prefix seeds the games.
std::string generation_prefix(int g) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "g%04d", g);
  return buf;
}
// The start of every chunk name of one worker, and whether a name is any worker's.
std::string worker_chunks(const std::string& worker) { return "w-" + worker + "-"; }
bool is_worker_chunk(const std::string& name) { return name.rfind("w-", 0) == 0; }
std::string worker_prefix(const std::string& worker, int g) {
  return worker_chunks(worker) + generation_prefix(g);
}

// Whether a chunk's file name is one of generation g's, stored by `run` or by a worker.
bool of_generation(const std::string& name, int g) {
  const std::string own = generation_prefix(g) + "-";
  return name.rfind(own, 0) == 0 || (is_worker_chunk(name) && name.find("-" + own) != std::string::npos);
}

// Games of generation g in a teacher folder, by `run` and by every worker: a line each in the
// chunks' record files (rewritten with each chunk, so at most the games in flight behind).
int64_t teacher_games_of(const std::string& data, int g) {
  int64_t n = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator(data, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->path().extension() != ".tsv" || !of_generation(it->path().filename().string(), g)) continue;
    try {
      const std::string text = read_file(it->path().string());
      n += std::count(text.begin(), text.end(), '\n');
    } catch (const std::exception&) {  // replaced while listed: counted at the next look
    }
  }
  return n;
}

class VnetLoop {
 public:
  VnetLoop(const VnetRunConfig& cfg, const std::atomic<bool>* cancel)
      : cfg_(cfg), p_(cfg.dir), cancel_(cancel), t0_(std::chrono::steady_clock::now()) {}

  void run() {
    register_builtin_players();
    RoleClaims claims;
    for (const char* identity : {"trainer", "gatekeeper", "selfplay"})
      if (!claims.add(cfg_.dir, identity, {}, cancel_)) return;
    // Everything is checked before anything is written: a refused resume leaves the directory
    // as it was.
    const std::vector<ConfigChange> changes = check_directory();
    st_ = read_state(p_);
    base_seconds_ = st_.seconds;
    if (st_.started.empty()) st_.started = now_iso();
    // Every generation the state counts as finished has its gating decision on disk.
    if (st_.generation > 0 && !fs::exists(p_.gating(st_.generation) + "/decision.json"))
      throw std::runtime_error(p_.state + ": \"generation\" " + std::to_string(st_.generation) +
                               " is finished there, but " + p_.gating(st_.generation) +
                               "/decision.json is missing (a state.json from another run?)");
    // A finished run's best net must still be there and readable.
    if (st_.best != "gen-0000" || !cfg_.init.empty()) {
      const std::string best = net_file(cfg_, p_, st_.best);
      try {
        (void)load_value_net(best, p_.state + ": the best net");
      } catch (const std::exception& e) {
        throw std::runtime_error(std::string(e.what()) +
                                 " (the run cannot go on without it: restore the file, or start a new run)");
      }
    }
    write_directory(changes);
    std::printf(
        "run '%s' in %s: value-net learner, %s, %s %s; teacher %s x %s per turn, gating up to %s at %lld ms\n",
        cfg_.name.c_str(), cfg_.dir.c_str(), counted(cfg_.generations, "generation").c_str(),
        Pitch::get(cfg_.width, cfg_.length, cfg_.goal).name().c_str(), variant_name(cfg_.variant),
        counted(cfg_.selfplay.games, "game").c_str(), counted(cfg_.teacher.nodes, "node").c_str(),
        counted(cfg_.gating.games, "game").c_str(), (long long)cfg_.gating.time_ms);
    if (st_.generation > 0)
      std::printf("resuming after generation %d (best %s)\n", st_.generation, st_.best.c_str());
    std::fflush(stdout);
    for (int g = st_.generation + 1; g <= cfg_.generations && !stopped(); ++g)
      if (!generation(g)) break;
    const bool finished = st_.generation >= cfg_.generations;
    save(stopped() ? "interrupted" : finished ? "finished" : "stopped");
    write_report();
    if (finished) {
      if (st_.best != "gen-0000") std::printf("best value net: %s (%s)\n", p_.best.c_str(), st_.best.c_str());
      else
        std::printf("no generation beat generation 0 (%s)\n",
                    cfg_.init.empty() ? "the random evaluation" : cfg_.init.c_str());
    }
  }

 private:
  bool stopped() const { return cancel_ && cancel_->load(); }
  double elapsed() const { return base_seconds_ + seconds_since(t0_); }
  void save(const std::string& phase) {
    st_.phase = phase;
    st_.seconds = elapsed();
    write_state(p_, st_);
  }

  // The config given against the run's config.yaml: changes that would make the run incoherent
  // are refused (the rules, generation 0, the net's shape: a resumed fine-tune keeps the best
  // net's sizes, so a new `train.hidden` would be ignored without a word); the others returned.
  std::vector<ConfigChange> check_directory() const {
    if (!fs::exists(p_.config)) return {};
    const VnetRunConfig old = parse_vnet_run_config(read_file(p_.config), p_.config);
    std::vector<std::string> refused;
    auto same = [&](const char* key, const std::string& a, const std::string& b) {
      if (a != b) refused.push_back(std::string(key) + " (" + a + " -> " + b + ")");
    };
    auto sizes = [](const std::vector<int>& v) {
      std::string t;
      for (int x : v) t += (t.empty() ? "" : ",") + std::to_string(x);
      return t;
    };
    same("run.pitch", Pitch::get(old.width, old.length, old.goal).name(),
         Pitch::get(cfg_.width, cfg_.length, cfg_.goal).name());
    same("run.variant", variant_name(old.variant), variant_name(cfg_.variant));
    same("run.init", old.init, cfg_.init);
    same("train.hidden", sizes(old.train.hidden), sizes(cfg_.train.hidden));
    same("train_first.hidden", sizes(old.train_first.hidden), sizes(cfg_.train_first.hidden));
    same("train.window", std::to_string(old.train.window), std::to_string(cfg_.train.window));
    same("train_first.window", std::to_string(old.train_first.window),
         std::to_string(cfg_.train_first.window));
    same("train.window_points", old.train.window_points ? "true" : "false",
         cfg_.train.window_points ? "true" : "false");
    same("train_first.window_points", old.train_first.window_points ? "true" : "false",
         cfg_.train_first.window_points ? "true" : "false");
    if (!refused.empty()) {
      std::string list;
      for (const auto& r : refused) list += (list.empty() ? "" : ", ") + r;
      throw ConfigError(p_.config + ": the run was started with another " + list +
                        "; these cannot change within a run. Put them back, or start a new run (another "
                        "run.name or --dir)");
    }
    return old.source == cfg_.source ? std::vector<ConfigChange>{}
                                     : changed_config_keys(old.source, cfg_.source);
  }

  // Makes the folders, clears a killed run's temporaries, and records the config (its
  // accepted changes printed and logged). A teacher worker's chunk temporaries (`w-ID-...`) and
  // the claims' (a worker's heartbeat or takeover) are left alone: their writer may be writing
  // one now; a worker clears its own chunks' when it starts.
  void write_directory(const std::vector<ConfigChange>& changes) {
    for (const std::string& d : {p_.root, p_.nets, p_.logs}) ensure_directory(d, "the run directory");
    (void)remove_stale_temp_files(
        p_.root, [](const std::string& name) { return !is_worker_chunk(name) && !is_claim_file_name(name); });
    if (!fs::exists(p_.config)) {
      write_file_atomic(p_.config, cfg_.source);
      return;
    }
    for (const ConfigChange& ch : changes) {
      std::printf("config change: %s: %s -> %s\n", ch.key.c_str(), ch.old_value.c_str(),
                  ch.new_value.c_str());
      append_line(
          p_.logs + "/config.jsonl",
          json({{"time", now_iso()}, {"key", ch.key}, {"old", ch.old_value}, {"new", ch.new_value}}).dump());
    }
    if (!changes.empty()) write_file_atomic(p_.config, cfg_.source);
  }

  // One generation; false when stopped.
  bool generation(int g) {
    const std::string best = st_.best, cand = gen_name(g);
    const bool from_random = best == "gen-0000" && cfg_.init.empty();
    const std::string prefix = generation_prefix(g);
    // 1. Teacher games of the best bot.
    const TeacherJob job = teacher_job(cfg_, p_, g, best);
    const std::string& data = job.data;
    if (!play_teacher_games(g, job, best, prefix)) return false;
    // 2. Optional relabelling by a deeper search with the best net.
    std::string train_data = data;
    if (cfg_.relabel && !from_random) {
      train_data = relabel_teacher_games(g, data, best, prefix);
      if (train_data.empty()) return false;
    }
    // 3. The candidate.
    const std::string cand_file = p_.net(cand);
    const json train_json = train_candidate(g, best, from_random, train_data, cand_file);
    if (stopped()) return false;
    // 4. Gating by play.
    const std::string decision_path = p_.gating(g) + "/decision.json";
    if (!fs::exists(decision_path)) {
      save("gating " + cand);
      if (!gate(g, cand, best, decision_path)) return false;
    }
    const json decision = read_json_file(decision_path);
    const bool promoted = decision.at("promoted").get<bool>();
    // 5. The promoted net's single file and ladder. The state moves on only once the generation
    // is whole (state.json's best is never a generation it has not finished), so a run stopped
    // here resumes at this step.
    json single = nullptr, ladder = nullptr;
    if (promoted) {
      if (cfg_.export_single_file) single = export_single(g, cand_file);
      if (!cfg_.ladder.opponents.empty()) {
        save("ladder " + cand);
        ladder = run_ladder(g, cand);
        if (ladder.is_null()) return false;
      }
      promote(g, cand, best, decision, train_json, single, ladder);
    }
    // 6. The generation's line.
    st_.generation = g;
    log_generation(g, best, data, train_json, decision, single, ladder);
    save("generation " + std::to_string(g) + " done");
    write_report();
    return true;
  }

  // 1. Teacher games of the best bot. Teacher workers (`selfplay --follow`) may store games of
  // the generation under their own prefixes: this process plays what is still missing. False
  // when stopped.
  bool play_teacher_games(int g, const TeacherJob& job, const std::string& best, const std::string& prefix) {
    const std::string& data = job.data;
    const std::string cand = gen_name(g);
    const int64_t target = job.selfplay.games;
    SelfplayConfig sc = job.selfplay;
    sc.games = count_stored_games(data, prefix) + std::max<int64_t>(0, target - teacher_games_of(data, g));
    save("teacher games " + cand);
    ProgressLine line;
    std::atomic<bool> enough{false};  // every game of the generation stored, or a stop request
    (void)run_teacher_selfplay(
        sc, job.teacher, data, prefix,
        [&](const SelfplayStats& s, int64_t) {
          const int64_t total = teacher_games_of(data, g);
          if (total >= target || stopped()) enough = true;
          const double rate = s.seconds > 0 ? double(s.games) / s.seconds : 0;
          line.update("gen " + std::to_string(g) + " teacher (" + best + "): " + std::to_string(total) + "/" +
                      std::to_string(target) + " games, " + format_rate(rate) + " here, ETA " +
                      (rate > 0 ? format_duration(double(std::max<int64_t>(0, target - total)) / rate)
                                : std::string("?")));
        },
        &enough);
    line.finish();
    return !stopped();
  }

  // 2. The teacher's games of generation g relabelled by a deeper search with the best net, into
  // their own folder (returned; "" when stopped).
  std::string relabel_teacher_games(int g, const std::string& data, const std::string& best,
                                    const std::string& prefix) {
    const std::string cand = gen_name(g);
    const std::string train_data = p_.relabelled(best);
    std::vector<Game> games;
    const Pitch& pitch = Pitch::get(cfg_.width, cfg_.length, cfg_.goal);
    for (auto& entry : fs::directory_iterator(data)) {
      if (!of_generation(entry.path().filename().string(), g) || entry.path().extension() != ".psd") continue;
      for (const GameData& gd : read_chunk(entry.path().string()))
        if (gd.winner >= 0) games.push_back(parse_record(pitch, cfg_.variant, gd.record));
    }
    std::sort(games.begin(), games.end(), [](const Game& a, const Game& b) {
      return a.record() < b.record();
    });  // an order fixed by the games
    RelabelOptions ro = cfg_.relabel_options;
    ro.value_net = net_file(cfg_, p_, best);
    save("relabel " + cand);
    ProgressLine line;
    (void)relabel_games(games, ro, train_data, prefix, [&](int64_t done, int64_t total) {
      line.update("gen " + std::to_string(g) + " relabel: " + std::to_string(done) + "/" +
                  std::to_string(total) + " games");
    });
    line.finish();
    return stopped() ? std::string() : train_data;
  }

  // 3. The candidate from the best net (from random weights after the random evaluation), unless
  // a finished one is there; its training figures (null when unknown).
  json train_candidate(int g, const std::string& best, bool from_random, const std::string& train_data,
                       const std::string& cand_file) {
    const std::string cand = gen_name(g);
    json train_json;
    if (!fs::exists(cand_file)) {
      ValueTrainConfig tc = from_random ? cfg_.train_first : cfg_.train;
      tc.init = from_random ? "" : net_file(cfg_, p_, best);
      tc.seed = tc.seed * 1000003ULL + uint64_t(g);
      save("train " + cand);
      ProgressLine line;
      const ValueTrainResult r = train_value_net(tc, train_data, cand_file, [&](const ValueTrainMetrics& m) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "gen %d train: step %lld/%lld, loss %.4f, held-out MSE %.4f", g,
                      (long long)m.step, (long long)tc.steps, m.train_loss, m.holdout_mse);
        line.update(buf);
      });
      line.finish();
      train_json = {{"games", r.games},
                    {"train_samples", r.train_samples},
                    {"holdout_samples", r.holdout_samples},
                    {"initial_holdout_mse", r.initial.holdout_mse},
                    {"best_step", r.best.step},
                    {"holdout_mse", r.best.holdout_mse},
                    {"holdout_sign_accuracy", r.best.holdout_sign_accuracy},
                    {"seconds", r.seconds}};
      write_file_atomic(cand_file + ".json", train_json.dump(1) + "\n");
      // A new candidate: games of a match of another one (its file deleted) would be resumed.
      (void)remove_tree(p_.gating(g));
      (void)remove_tree(p_.ladder(g));
    } else if (fs::exists(cand_file + ".json")) {
      train_json = read_json_file(cand_file + ".json");
    }
    return train_json;
  }

  // The promoted candidate becomes the best: its Elo over the best so far, from the match's
  // score, chained; its manifest; best.vnet.
  void promote(int g, const std::string& cand, const std::string& best, const json& decision,
               const json& train_json, const json& single, const json& ladder) {
    const int wins = decision.at("wins").get<int>(), games = decision.at("games").get<int>();
    const double s = (wins + 0.5) / (games + 1.0);  // finite for 0 and all wins
    auto [lo, hi] = wilson_interval(wins, games);
    const double d = tour::elo_from_score(s);
    const double half = (tour::elo_from_score(std::min(std::max(hi, 1e-3), 1 - 1e-3)) -
                         tour::elo_from_score(std::min(std::max(lo, 1e-3), 1 - 1e-3))) /
                        2;
    const auto [base, base_ci] = st_.elo.at(best);
    st_.elo[cand] = {base + d, std::sqrt(base_ci * base_ci + half * half)};
    write_manifest(g, cand, decision, train_json, single, ladder);
    write_file_atomic(p_.best, read_file(p_.net(cand)));
    st_.best = cand;
  }

  // 6. The generation's line: printed, and appended to logs/generations.jsonl.
  void log_generation(int g, const std::string& best, const std::string& data, const json& train_json,
                      const json& decision, const json& single, const json& ladder) {
    const std::string cand = gen_name(g);
    const bool promoted = decision.at("promoted").get<bool>();
    const int wins = decision.at("wins").get<int>(), games = decision.at("games").get<int>();
    char buf[256];
    auto [lo, hi] = wilson_interval(wins, games);
    std::string text = "gen " + std::to_string(g) + " | " + cand + " vs " + best + " " +
                       std::to_string(wins) + "/" + std::to_string(games);
    std::snprintf(buf, sizeof buf, " %.1f%% [%.1f, %.1f]", 100.0 * wins / std::max(games, 1), 100 * lo,
                  100 * hi);
    text += buf;
    text += promoted ? " | promoted" : " | not promoted";
    if (decision.contains("llr")) {
      std::snprintf(buf, sizeof buf, " (LLR %.2f, %s)", decision.at("llr").get<double>(),
                    decision.at("reason").get<std::string>().c_str());
      text += buf;
    }
    const auto [elo, ci] = st_.elo.at(st_.best);
    std::snprintf(buf, sizeof buf, " | best %s Elo %+.0f ± %.0f", st_.best.c_str(), elo, ci);
    text += buf;
    if (ladder.is_object())
      for (auto& row : ladder.at("rows")) {
        std::snprintf(buf, sizeof buf, " | vs %s %d/%d", row.at("opponent").get<std::string>().c_str(),
                      row.at("wins").get<int>(), row.at("games").get<int>());
        text += buf;
      }
    std::snprintf(buf, sizeof buf, " | %s | peak RSS %.0f MiB", format_duration(elapsed()).c_str(),
                  peak_rss_mib());
    text += buf;
    std::printf("%s\n", text.c_str());
    std::fflush(stdout);
    json line = {{"generation", g},
                 {"network", cand},
                 {"teacher", best},
                 {"teacher_games", teacher_games_of(data, g)},
                 {"train", train_json},
                 {"gating", decision},
                 {"promoted", promoted},
                 {"best", st_.best},
                 {"elo", elo},
                 {"ci95", ci},
                 {"single_file", single},
                 {"ladder", ladder},
                 {"seconds", elapsed()},
                 {"peak_rss_mib", peak_rss_mib()}};
    append_line(p_.logs + "/generations.jsonl", line.dump());
  }

  static std::string format_rate(double games_per_s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f games/s", games_per_s);
    return buf;
  }

  tour::PlayerSpec bot_spec(const std::string& name, const std::string& net) const {
    tour::PlayerSpec s;
    s.name = name;
    s.type = "alphabeta";
    s.options = bot_options(cfg_, p_, net);
    s.source = p_.config;
    return s;
  }

  // A gauntlet of the first player against the others on the run's rules: `games` per pairing
  // from min(openings, games / 2) colour-swapped openings, time_ms per turn, into out_dir.
  tour::TournamentSpec match_spec(const std::string& what, int games, int openings, int opening_turns,
                                  uint64_t seed, int concurrency, int64_t time_ms,
                                  const std::string& out_dir) const {
    tour::TournamentSpec spec;
    spec.name = cfg_.name + " " + what;
    spec.width = cfg_.width;
    spec.length = cfg_.length;
    spec.goal = cfg_.goal;
    spec.variant = cfg_.variant;
    spec.format = tour::Format::kGauntlet;
    spec.games_per_pairing = games;
    spec.openings = std::min(openings, games / 2);
    spec.opening_turns = opening_turns;
    spec.seed = seed;
    spec.concurrency = concurrency;
    spec.budget.time_ms = time_ms;
    spec.out_dir = out_dir;
    return spec;
  }

  // The gating match; writes decision.json. False when stopped.
  bool gate(int g, const std::string& cand, const std::string& best, const std::string& decision_path) {
    const VnetGatingConfig& gc = cfg_.gating;
    tour::TournamentSpec spec =
        match_spec("gating " + cand, gc.games, gc.openings, gc.opening_turns,
                   cfg_.selfplay.seed * 7919ULL + uint64_t(g), gc.concurrency, gc.time_ms, p_.gating(g));
    ensure_directory(spec.out_dir, "the gating folder");
    spec.resume = true;  // a run stopped during the match goes on with the games it played
    const std::vector<tour::PlayerSpec> players = {bot_spec(cand, cand), bot_spec(best, best)};
    std::atomic<bool> stop{false};  // the SPRT's decision, or the run stopped
    int wins = 0, games = 0, decided = 0;
    double llr = 0;
    ProgressLine line;
    // Games running at the SPRT's decision still finish, and count.
    const tour::TournamentResult res = tour::run_tournament(
        spec, players,
        [&](const tour::GameResult& game, int done, int total) {
          games += 1;
          wins += game.winner == 0;
          llr = sprt_llr(wins, games - wins, gc.elo0, gc.elo1);
          if (gc.rule == "sprt" && decided == 0) {
            decided = sprt_decision(llr, gc.alpha, gc.beta);
            if (decided != 0) stop = true;
          }
          if (stopped()) stop = true;
          char buf[200];
          std::snprintf(buf, sizeof buf, "gen %d gating: %d/%d games, %s %d/%d, LLR %.2f [%.2f, %.2f]", g,
                        done, total, cand.c_str(), wins, games, llr, std::log(gc.beta / (1 - gc.alpha)),
                        std::log((1 - gc.beta) / gc.alpha));
          line.update(buf);
        },
        &stop);
    line.finish();
    // A run stopped after the match was decided (the SPRT, or every game played) keeps it.
    if (stopped() && decided == 0 && games < gc.games) return false;
    const double score = games ? double(wins) / games : 0;
    bool promoted;
    std::string reason;
    if (gc.rule == "sprt" && decided != 0) {
      promoted = decided > 0;
      reason = promoted ? "H1 accepted" : "H0 accepted";
    } else {
      promoted = score >= gc.threshold;
      reason = (gc.rule == "sprt" ? "no SPRT decision; score " : "score ") +
               std::string(promoted ? ">= " : "< ") + std::to_string(gc.threshold).substr(0, 4);
    }
    auto [lo, hi] = wilson_interval(wins, games);
    json d = {{"generation", g},      {"candidate", cand}, {"best", best},          {"wins", wins},
              {"games", games},       {"score", score},    {"ci95", {lo, hi}},      {"llr", llr},
              {"rule", gc.rule},      {"elo0", gc.elo0},   {"elo1", gc.elo1},       {"time_ms", gc.time_ms},
              {"promoted", promoted}, {"reason", reason},  {"seconds", res.seconds}};
    write_file_atomic(decision_path, d.dump(1) + "\n");
    return true;
  }

  // nets/gen-NNNN.json and best.json beside the promoted net: what made it, to ship with it.
  void write_manifest(int g, const std::string& cand, const json& decision, const json& train,
                      const json& single, const json& ladder) {
    const std::string vnet = p_.net(cand);
    const std::string bytes = read_file(vnet);
    char sum[32];
    std::snprintf(sum, sizeof sum, "%016llx", (unsigned long long)fnv1a64_bytes(bytes.data(), bytes.size()));
    const auto [elo, ci] = st_.elo.at(cand);
    const json m = {
        {"file", fs::path(vnet).filename().string()},
        {"fnv1a64", sum},
        {"what", "value net of the alpha-beta bot, " + Pitch::get(cfg_.width, cfg_.length, cfg_.goal).name() +
                     " " + variant_name(cfg_.variant)},
        {"run", cfg_.name},
        {"generation", g},
        {"commit", source_commit()},
        {"config", cfg_.source},
        {"teacher_games", count_all_games(p_.root + "/data")},
        {"train", train},
        {"gating", decision},
        {"elo_vs_generation_0", {elo, ci}},
        {"single_file", single},
        {"ladder", ladder},
        {"made", now_iso()}};
    write_file_atomic(p_.nets + "/" + cand + ".json", m.dump(1) + "\n");
    write_file_atomic(p_.root + "/best.json", m.dump(1) + "\n");
  }

  // Games in every teacher folder of the run (a line each in the chunks' record files).
  static int64_t count_all_games(const std::string& data) {
    int64_t n = 0;
    if (!fs::exists(data)) return 0;
    for (auto& dir : fs::directory_iterator(data))
      if (dir.is_directory())
        for (auto& f : fs::directory_iterator(dir.path()))
          if (f.path().extension() == ".tsv") {
            const std::string text = read_file(f.path().string());
            n += std::count(text.begin(), text.end(), '\n');
          }
    return n;
  }

  // The source tree's commit, "+changes" when it has uncommitted ones; "unknown" without git.
  static std::string source_commit() {
#ifdef PS_SOURCE_DIR
    const std::string cmd = std::string("git -C '") + PS_SOURCE_DIR +
                            "' rev-parse --short=12 HEAD 2>/dev/null && git -C '" + PS_SOURCE_DIR +
                            "' status --porcelain --untracked-files=no 2>/dev/null | head -n 1";
    FILE* f = ::popen(cmd.c_str(), "r");
    if (!f) return "unknown";
    char line[256];
    std::string commit, changes;
    if (std::fgets(line, sizeof line, f)) commit = line;
    if (std::fgets(line, sizeof line, f)) changes = line;
    ::pclose(f);
    while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r')) commit.pop_back();
    if (commit.empty()) return "unknown";
    return commit + (changes.empty() ? "" : "+changes");
#else
    return "unknown";
#endif
  }

  // The promoted net's single-file bot, compiled when asked. Its facts as JSON.
  json export_single(int g, const std::string& vnet) {
    const std::string out = p_.single_file(g);
    ensure_directory(fs::path(out).parent_path().string(), "the export folder");
    json j = {{"file", out}};
    if (!fs::exists(out)) {
      const ValueNet net = load_value_net(vnet, "the exported net");
      single_file::ExportOptions o;
      o.pitch = &Pitch::get(cfg_.width, cfg_.length, cfg_.goal);
      o.variant = cfg_.variant;
      o.model_name = cfg_.name + " " + gen_name(g);
      const single_file::ExportResult r = single_file::assemble_alphabeta(net, o);
      write_file_atomic(out, r.source);
    }
    j["chars"] = int64_t(fs::file_size(out));
    if (cfg_.compile_check) {
      const std::string bin = out + ".bin";
      const std::string cmd = "g++ -O2 -std=c++17 -o '" + bin + "' '" + out + "' 2> '" + out + ".log'";
      const int rc = std::system(cmd.c_str());
      const bool ok = rc == 0 && fs::exists(bin);
      j["compiles"] = ok;
      std::error_code ec;
      fs::remove(bin, ec);
      if (ok) fs::remove(out + ".log", ec);
      if (!ok)
        std::cerr << "warning: " << out << " does not compile with g++ -O2 -std=c++17 (see " << out
                  << ".log)\n";
    }
    return j;
  }

  // The promoted net's ladder against the fixed yardsticks; null when stopped.
  json run_ladder(int g, const std::string& cand) {
    const std::string dir = p_.ladder(g), summary = dir + "/ladder.json";
    if (fs::exists(summary)) return read_json_file(summary);
    const VnetLadderConfig& lc = cfg_.ladder;
    // Seed 4242: the same openings for every generation.
    tour::TournamentSpec spec = match_spec("ladder " + cand, lc.games, lc.openings, lc.opening_turns, 4242,
                                           lc.concurrency, lc.time_ms, dir);
    ensure_directory(dir, "the ladder folder");
    spec.resume = true;  // a run stopped during the ladder goes on with the games it played
    std::vector<tour::PlayerSpec> players = {bot_spec(cand, cand)};
    for (const std::string& o : lc.opponents) {
      tour::PlayerSpec s;
      s.name = o;
      s.type = o == "alphabeta-nnue" ? "alphabeta" : o;
      if (o == "alphabeta-nnue") {
        s.options = YAML::Node(YAML::NodeType::Map);
        s.options["eval"] = "nnue";
        s.options["value_net"] = lc.value_net;
      }
      players.push_back(s);
    }
    ProgressLine line;
    const tour::TournamentResult res = tour::run_tournament(
        spec, players,
        [&](const tour::GameResult&, int done, int total) {
          line.update("gen " + std::to_string(g) + " ladder: " + std::to_string(done) + "/" +
                      std::to_string(total) + " games");
        },
        cancel_);
    line.finish();
    if (res.cancelled || stopped()) return nullptr;
    json rows = json::array();
    for (size_t i = 1; i < players.size(); ++i) {
      const int w = res.cross.wins[0][i], n = res.cross.games(0, int(i));
      auto [lo, hi] = wilson_interval(w, n);
      const double s = (w + 0.5) / (n + 1.0);
      rows.push_back({{"opponent", players[i].name},
                      {"wins", w},
                      {"games", n},
                      {"ci95", {lo, hi}},
                      {"elo", tour::elo_from_score(s)}});
    }
    json j = {{"generation", g}, {"network", cand}, {"time_ms", lc.time_ms}, {"rows", rows}};
    write_file_atomic(summary, j.dump(1) + "\n");
    return j;
  }

  void write_report() {
    try {
      report::write_value_net_report(cfg_.dir);
    } catch (const std::exception& e) {
      std::cerr << "warning: report not written: " << e.what() << "\n";
    }
  }

  const VnetRunConfig& cfg_;
  VnetPaths p_;
  const std::atomic<bool>* cancel_;
  std::chrono::steady_clock::time_point t0_;
  double base_seconds_ = 0;
  VnetState st_;
};

}  // namespace

void run_value_net_loop(const VnetRunConfig& cfg, const std::atomic<bool>* cancel) {
  VnetLoop(cfg, cancel).run();
}

void run_value_net_teacher_worker(const VnetRunConfig& cfg, const std::string& worker,
                                  const std::atomic<bool>* cancel, const RoleOptions& opt) {
  check_worker_id(worker);
  const VnetPaths p(cfg.dir);
  RoleClaims claims;
  if (!claims.add(cfg.dir, "worker-" + worker, opt.claim, cancel)) return;
  // The claim makes this the only process with this id: its killed predecessor's chunk
  // temporaries are stale.
  const std::string own = worker_chunks(worker);
  if (fs::exists(p.root + "/data"))
    (void)remove_stale_temp_files(p.root + "/data",
                                  [&](const std::string& name) { return name.rfind(own, 0) == 0; });
  std::printf("teacher worker %s in %s: %s per turn, %s at once\n", worker.c_str(), cfg.dir.c_str(),
              counted(cfg.teacher.nodes, "node").c_str(),
              counted(cfg.selfplay.concurrent_games, "game").c_str());
  std::fflush(stdout);
  auto stop_requested = [&] { return cancel && cancel->load(); };
  int64_t played = 0;
  while (!stop_requested() && !(opt.max_games > 0 && played >= opt.max_games)) {
    const VnetState st = read_state(p);  // before `run` has written it: generation 0, gen-0000
    if (st.generation >= cfg.generations) {
      std::printf("worker %s: the run is finished (generation %d)\n", worker.c_str(), st.generation);
      break;
    }
    const int g = st.generation + 1;
    const TeacherJob job = teacher_job(cfg, p, g, st.best);
    const int64_t target = job.selfplay.games;
    auto moved_on = [&] {
      try {
        const VnetState now = read_state(p);
        return now.generation != st.generation || now.best != st.best;
      } catch (const std::exception& e) {  // written atomically: only a foreign file gets here
        std::fprintf(stderr, "warning: %s\n", e.what());
        return false;
      }
    };
    const int64_t missing = target - teacher_games_of(job.data, g);
    if (missing <= 0) {  // this generation's games are all stored: wait for the next teacher
      if (!wait_until_ready(moved_on, opt.poll_seconds, cancel)) break;
      continue;
    }
    const std::string prefix = worker_prefix(worker, g);
    SelfplayConfig sc = job.selfplay;
    // Exact with a cap: run_games starts no game beyond sc.games stored under the prefix.
    sc.games = count_stored_games(job.data, prefix) +
               (opt.max_games > 0 ? std::min(missing, opt.max_games - played) : missing);
    ensure_directory(job.data, "the teacher's folder");
    std::atomic<bool> pause{false};
    const int64_t before = played;
    claims.verify();
    const TeacherRunStats r = run_teacher_selfplay(
        sc, job.teacher, job.data, prefix,
        [&](const SelfplayStats& s, int64_t) {
          claims.verify_or_exit();  // under the chunk writer's lock, after this game's chunk
          const int64_t total = teacher_games_of(job.data, g);
          std::printf("worker %s: game %lld stored in %s (teacher %s), generation %d: %lld/%lld games\n",
                      worker.c_str(), (long long)(before + s.games), prefix.c_str(), st.best.c_str(), g,
                      (long long)total, (long long)target);
          std::fflush(stdout);
          if (total >= target || stop_requested() || moved_on()) pause = true;
        },
        &pause);
    played += r.games.games;
  }
  std::printf("worker %s: %s stored\n", worker.c_str(), counted(played, "game").c_str());
  std::fflush(stdout);
}

}  // namespace ps
