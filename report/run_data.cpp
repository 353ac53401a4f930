#include "report/run_data.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/config.h"
#include "core/fileutil.h"
#include "core/plural.h"
#include "engine/tsv.h"
#include "nn/checkpoint_envelope.h"
#include "selfplay/data.h"

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace ps::report {

namespace {

constexpr int kNotesPerFile = 5;

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

double num(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return kMissing;
  return it->get<double>();
}

int integer(const json& j, const char* key, int def = -1) {
  double v = num(j, key);
  return std::isfinite(v) ? int(std::lround(v)) : def;
}

std::string text(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Sets each field to num(j, key) (kMissing when absent or not a number):
//   read_nums(j, field("lr", p.lr), field("window", p.window));
template <class... T>
void read_nums(const json& j, ConfigField<T>... fields) {
  ((fields.value = num(j, fields.key)), ...);
}

// Calls fn(line, line number, is the last line) for every line of text that is not blank, its
// '\r' of a CRLF ending removed.
template <class Fn>
void for_each_line(const std::string& text, Fn fn) {
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!trim(line).empty()) fn(line, line_no, in.eof());
  }
}

// Calls fn(entry, file name, ec) for each entry of dir, in directory order. An error of the
// listing, or one fn leaves in ec, ends it; ec is left set for the caller that reports it.
template <class Fn>
void for_each_entry(const fs::path& dir, std::error_code& ec, Fn fn) {
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    fn(*it, it->path().filename().string(), ec);
}

// True when dir (a folder of the run) is a directory; else it is listed as missing ("eval/").
bool run_subdir(RunData& run, const fs::path& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return true;
  run.missing.push_back(dir.filename().string() + "/");
  return false;
}

// Collects notes about one file, at most kNotesPerFile lines of detail plus a count.
class FileNotes {
 public:
  FileNotes(RunData& run, std::string rel) : run_(run), rel_(std::move(rel)) {}
  ~FileNotes() {
    if (skipped_ > kNotesPerFile)
      run_.notes.push_back(rel_ + ": " + counted(skipped_ - kNotesPerFile, "more line") + " skipped");
  }
  void skip_line(int line, const std::string& why) {
    if (++skipped_ <= kNotesPerFile) run_.notes.push_back(rel_ + " line " + std::to_string(line) + ": " + why + "; skipped");
  }
  void note(const std::string& why) { run_.notes.push_back(rel_ + ": " + why); }

 private:
  RunData& run_;
  std::string rel_;
  int skipped_ = 0;
};

// Reads RUNDIR/rel; nullopt (and the file listed as missing, or a note) when it cannot.
std::optional<std::string> read_run_file(RunData& run, const std::string& rel) {
  const fs::path path = fs::path(run.dir) / rel;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    run.missing.push_back(rel);
    return std::nullopt;
  }
  if (!fs::is_regular_file(path, ec)) {
    run.notes.push_back(rel + ": not a regular file; ignored");
    return std::nullopt;
  }
  try {
    return read_file(path.string());
  } catch (const std::exception& e) {
    run.notes.push_back(rel + ": cannot be read (" + std::string(e.what()) + ")");
    return std::nullopt;
  }
}

// Reads RUNDIR/rel as one JSON object; nullopt (and a note) when it is missing or is not one.
std::optional<json> read_json_object(RunData& run, const std::string& rel) {
  auto data = read_run_file(run, rel);
  if (!data) return std::nullopt;
  json j = json::parse(*data, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    run.notes.push_back(rel + ": not a valid JSON object; ignored");
    return std::nullopt;
  }
  return j;
}

// Calls fn(object, line number) for every line of a JSONL file that holds a JSON object.
template <class Fn>
void for_each_jsonl(RunData& run, const std::string& rel, Fn fn) {
  auto data = read_run_file(run, rel);
  if (!data) return;
  FileNotes notes(run, rel);
  for_each_line(*data, [&](const std::string& line, int line_no, bool last) {
    json j = json::parse(trim(line), nullptr, /*allow_exceptions=*/false);
    std::string why;
    if (j.is_discarded())
      why = "not valid JSON" + std::string(last ? " (the last line; maybe cut off while written)" : "");
    else if (!j.is_object()) why = "not a JSON object";
    else why = fn(j, line_no);
    if (!why.empty()) notes.skip_line(line_no, why);
  });
}

void load_config(RunData& run) {
  auto data = read_run_file(run, "config.yaml");
  if (!data) return;
  YAML::Node root;
  try {
    root = YAML::Load(*data);
  } catch (const YAML::Exception& e) {
    run.notes.push_back("config.yaml: not valid YAML (" + std::string(e.what()) + ")");
    return;
  }
  run.config.present = true;
  YAML::Node r = root.IsMap() ? root["run"] : YAML::Node();
  if (!r || !r.IsMap()) {
    run.notes.push_back("config.yaml: no 'run' section");
    return;
  }
  auto get = [&](const char* key, auto& out) {
    YAML::Node n = r[key];
    if (!n || n.IsNull()) return;
    try {
      out = n.as<std::decay_t<decltype(out)>>();
    } catch (const YAML::Exception&) {
      run.notes.push_back(std::string("config.yaml: run.") + key + " (line " + std::to_string(n.Mark().line + 1) +
                          ") has an unexpected type; ignored");
    }
  };
  get("name", run.config.name);
  get("pitch", run.config.pitch);
  get("variant", run.config.variant);
  get("generations", run.config.generations);
  if (!run.config.pitch.empty()) {
    // The loop's own parser: "8x10" has goal 2, "10x14g4" goal 4 (there is no run.goal key).
    try {
      const PitchChoice p = parse_pitch_spec(run.config.pitch);
      run.config.width = p.width;
      run.config.length = p.length;
      run.config.goal = p.goal;
    } catch (const std::invalid_argument& e) {
      run.notes.push_back(std::string("config.yaml: run.pitch: ") + e.what() + "; ignored");
    }
  }
}

void load_state(RunData& run) {
  const auto parsed = read_json_object(run, "state.json");
  if (!parsed) return;
  const json& j = *parsed;
  run.state.present = true;
  run.state.generation = integer(j, "generation");
  run.state.best = text(j, "best");
  run.state.started = text(j, "started");
  run.state.seconds = num(j, "seconds");
}

void load_train(RunData& run) {
  std::map<double, TrainPoint> by_step;  // a resumed trainer may log a step again: keep the last
  for_each_jsonl(run, "logs/train.jsonl", [&](const json& j, int) -> std::string {
    TrainPoint p;
    p.step = num(j, "step");
    if (!std::isfinite(p.step)) return "no numeric \"step\"";
    read_nums(j, field("policy_loss", p.policy_loss), field("value_loss", p.value_loss),
              field("moves_left_loss", p.moves_left_loss), field("policy_accuracy", p.policy_accuracy),
              field("value_accuracy", p.value_accuracy), field("lr", p.lr),
              field("samples_per_s", p.samples_per_s), field("window", p.window));
    p.checkpoint = text(j, "checkpoint");
    by_step[p.step] = p;
    return "";
  });
  for (auto& [step, p] : by_step) run.train.push_back(p);
}

void load_selfplay(RunData& run) {
  // The loop logs a line per chunk of games and one when a session ends, each with its session
  // id and the session's totals so far: per generation, the last line of each session counts,
  // summed over sessions (a resumed generation has several; lines without a session id, of
  // older runs, are one session each).
  std::map<std::pair<int, std::string>, SelfplayGeneration> by_session;
  for_each_jsonl(run, "logs/selfplay.jsonl", [&](const json& j, int line_no) -> std::string {
    SelfplayGeneration g;
    g.generation = integer(j, "generation");
    if (g.generation < 0) return "no \"generation\" number";
    g.network = text(j, "network");
    read_nums(j, field("games", g.games), field("samples", g.samples), field("full_samples", g.full_samples),
              field("mean_game_turns", g.mean_game_turns), field("mean_root_turns", g.mean_root_turns),
              field("games_per_s", g.games_per_s), field("samples_per_s", g.samples_per_s),
              field("seconds", g.seconds));
    auto w = j.find("wins");
    if (w != j.end() && w->is_array() && w->size() == 2 && (*w)[0].is_number() && (*w)[1].is_number()) {
      g.wins[0] = (*w)[0].get<int>();
      g.wins[1] = (*w)[1].get<int>();
    }
    std::string session = text(j, "session");
    if (session.empty()) session = "line " + std::to_string(line_no);
    by_session[{g.generation, session}] = g;
    return "";
  });
  std::map<int, SelfplayGeneration> by_gen;
  auto add = [](double& a, double b) { a = std::isfinite(a) ? (std::isfinite(b) ? a + b : a) : b; };
  for (auto& [key, s] : by_session) {
    auto it = by_gen.find(key.first);
    if (it == by_gen.end()) {
      by_gen[key.first] = s;
      continue;
    }
    SelfplayGeneration& g = it->second;
    // Means weighted by games (root turns per search: by positions).
    auto mean = [&](double& m, double w_old, double v, double w_new) {
      if (std::isfinite(m) && std::isfinite(v) && std::isfinite(w_old) && std::isfinite(w_new) && w_old + w_new > 0)
        m = (m * w_old + v * w_new) / (w_old + w_new);
    };
    mean(g.mean_game_turns, g.games, s.mean_game_turns, s.games);
    mean(g.mean_root_turns, g.samples, s.mean_root_turns, s.samples);
    add(g.games, s.games);
    add(g.samples, s.samples);
    add(g.full_samples, s.full_samples);
    add(g.seconds, s.seconds);
    for (int k = 0; k < 2; ++k)
      if (s.wins[k] >= 0) g.wins[k] = std::max(g.wins[k], 0) + s.wins[k];
    if (g.network.empty()) g.network = s.network;
  }
  for (auto& [gen, g] : by_gen) {
    if (std::isfinite(g.seconds) && g.seconds > 0) {
      g.games_per_s = g.games / g.seconds;
      g.samples_per_s = g.samples / g.seconds;
    }
    run.selfplay.push_back(g);
  }
}

std::optional<std::pair<int, size_t>> gen_prefix(const std::string& name);
std::string network_name(int generation);

// Games and positions of each generation's self-play as stored in data/ (the chunks hold every
// finished game, also when the process was killed before it logged): they replace the logged
// counts. Data of network gen-N is generation N + 1's self-play.
void count_selfplay_data(RunData& run) {
  const fs::path root = fs::path(run.dir) / "data";
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return;
  std::map<int, std::vector<std::string>> files;
  for_each_entry(root, ec, [&](const fs::directory_entry& e, const std::string& name, std::error_code& ec) {
    auto g = gen_prefix(name);
    if (g && e.path().extension() == ".psd" && e.is_regular_file(ec)) files[g->first].push_back(name);
  });
  for (auto& [net, names] : files) {
    SelfplayGeneration disk;
    disk.generation = net + 1;
    disk.network = network_name(net);
    double games = 0, samples = 0, full = 0;
    int wins[2] = {0, 0};
    bool any = false;
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      try {
        std::vector<std::string> skipped;  // "<path>: game i (id N): why"
        const std::vector<GameData> chunk = read_chunk((root / name).string(), &skipped);
        run.games_skipped += int(skipped.size());
        for (const std::string& w : skipped) run.notes.push_back(w + ": not counted");
        for (const GameData& gd : chunk) {
          any = true;
          games += 1;
          samples += double(gd.samples.size());
          for (const TrainingSample& ts : gd.samples) full += ts.full_search ? 1 : 0;
          if (gd.winner == 0 || gd.winner == 1) ++wins[gd.winner];
        }
      } catch (const std::exception& e) {
        ++run.chunks_skipped;
        run.notes.push_back("data/" + name + ": not counted (" + std::string(e.what()) + ")");
      }
    }
    if (!any) continue;
    auto it = std::find_if(run.selfplay.begin(), run.selfplay.end(),
                           [&](const SelfplayGeneration& x) { return x.generation == disk.generation; });
    if (it == run.selfplay.end()) {
      run.selfplay.push_back(disk);
      it = run.selfplay.end() - 1;
    }
    it->games = games;
    it->samples = samples;
    it->full_samples = full;
    it->wins[0] = wins[0];
    it->wins[1] = wins[1];
    if (it->network.empty()) it->network = disk.network;
    if (std::isfinite(it->seconds) && it->seconds > 0) {
      it->games_per_s = games / it->seconds;
      it->samples_per_s = samples / it->seconds;
    }
  }
  std::sort(run.selfplay.begin(), run.selfplay.end(),
            [](const SelfplayGeneration& a, const SelfplayGeneration& b) { return a.generation < b.generation; });
}

void load_config_changes(RunData& run) {
  if (!fs::exists(fs::path(run.dir) / "logs/config.jsonl")) return;  // only resumed runs have it
  for_each_jsonl(run, "logs/config.jsonl", [&](const json& j, int) -> std::string {
    ConfigChangeLine c;
    c.time = text(j, "time");
    c.after_generation = integer(j, "after_generation");
    auto list = j.find("changes");
    if (list == j.end() || !list->is_array()) return "no \"changes\" list";
    for (const json& x : *list)
      if (x.is_object()) c.changes.push_back({text(x, "key"), text(x, "old"), text(x, "new")});
    run.config_changes.push_back(std::move(c));
    return "";
  });
}

// The lines of the JSONL file RUNDIR/rel, one per generation (a later line of a generation
// replaces an earlier one), sorted by generation: fill(line, record) reads the fields other
// than "generation".
template <class Record, class Fill>
std::vector<Record> last_line_per_generation(RunData& run, const std::string& rel, Fill fill) {
  std::map<int, Record> by_gen;
  for_each_jsonl(run, rel, [&](const json& j, int) -> std::string {
    Record r;
    r.generation = integer(j, "generation");
    if (r.generation < 0) return "no \"generation\" number";
    fill(j, r);
    by_gen[r.generation] = std::move(r);
    return "";
  });
  std::vector<Record> out;
  for (auto& [gen, r] : by_gen) out.push_back(std::move(r));
  return out;
}

void load_generations(RunData& run) {
  run.generations = last_line_per_generation<GenerationResult>(
      run, "logs/generations.jsonl", [](const json& j, GenerationResult& g) {
        g.network = text(j, "network");
        g.best = text(j, "best");
        g.elo = num(j, "elo");
        g.ci95 = num(j, "ci95");
        auto p = j.find("promoted");
        if (p != j.end() && p->is_boolean()) g.promoted = p->get<bool>();
        auto s = j.find("scores");
        if (s != j.end() && s->is_object())
          for (auto it = s->begin(); it != s->end(); ++it) {
            if (!it.value().is_object()) continue;
            int wins = integer(it.value(), "wins"), games = integer(it.value(), "games");
            if (wins < 0 || games < 0 || wins > games) continue;
            g.scores.push_back({it.key(), wins, games});
          }
      });
}

void load_reference(RunData& run) {
  std::error_code ec;
  if (!fs::exists(fs::path(run.dir) / "logs/reference.jsonl", ec)) return;  // no evaluate.reference
  run.reference = last_line_per_generation<ReferencePoint>(
      run, "logs/reference.jsonl", [](const json& j, ReferencePoint& p) {
        p.value_mse = num(j, "value_mse");
        p.early_value_mse = num(j, "early_value_mse");
        p.value_sign_accuracy = num(j, "value_sign_accuracy");
        p.policy_top1 = num(j, "policy_top1");
        p.positions = integer(j, "positions");
      });
}

void load_verdict(RunData& run) {
  std::error_code ec;
  if (!fs::exists(fs::path(run.dir) / "logs/verdict.jsonl", ec)) return;  // not played yet
  for_each_jsonl(run, "logs/verdict.jsonl", [&](const json& j, int) -> std::string {
    Verdict v;
    v.after_generation = integer(j, "after_generation");
    v.network = text(j, "network");
    v.opponent = text(j, "opponent");
    v.wins = integer(j, "wins");
    v.games = integer(j, "games");
    if (v.after_generation < 0 || v.wins < 0 || v.games < 0 || v.wins > v.games)
      return "no \"after_generation\", \"wins\" and \"games\" numbers";
    run.verdict = std::move(v);
    return "";
  });
}

void load_ratings(RunData& run) {
  const auto parsed = read_json_object(run, "ratings.json");
  if (!parsed) return;
  const json& j = *parsed;
  Ratings& r = run.ratings;
  r.present = true;
  r.anchor = text(j, "anchor");
  auto players = j.find("players");
  if (players != j.end() && players->is_array())
    for (const json& p : *players) {
      if (!p.is_object() || text(p, "name").empty()) continue;
      r.players.push_back({text(p, "name"), num(p, "elo"), num(p, "ci95"), integer(p, "games"), integer(p, "wins")});
    }
  auto ct = j.find("crosstable");
  if (ct == j.end() || !ct->is_object()) return;
  auto names = ct->find("names");
  auto wins = ct->find("wins");
  if (names == ct->end() || wins == ct->end() || !names->is_array() || !wins->is_array()) {
    run.notes.push_back("ratings.json: crosstable needs 'names' and 'wins' arrays; cross-table not shown");
    return;
  }
  std::vector<std::string> n;
  for (const json& x : *names) n.push_back(x.is_string() ? x.get<std::string>() : x.dump());
  std::vector<std::vector<int>> w;
  bool ok = wins->size() == n.size();
  for (size_t i = 0; ok && i < wins->size(); ++i) {
    const json& row = (*wins)[i];
    ok = row.is_array() && row.size() == n.size();
    std::vector<int> cells;
    for (size_t k = 0; ok && k < row.size(); ++k) {
      ok = row[k].is_number() && row[k].get<double>() >= 0;
      if (ok) cells.push_back(int(std::lround(row[k].get<double>())));
    }
    w.push_back(cells);
  }
  if (!ok) {
    run.notes.push_back("ratings.json: crosstable.wins is not a " + std::to_string(n.size()) + " x " +
                        std::to_string(n.size()) + " table of counts; cross-table not shown");
    return;
  }
  r.cross_names = std::move(n);
  r.cross_wins = std::move(w);
}

// Parses "gen" [-_] digits at the start of name; returns the number and where the digits end.
std::optional<std::pair<int, size_t>> gen_prefix(const std::string& name) {
  if (name.rfind("gen", 0) != 0) return std::nullopt;
  size_t i = 3;
  if (i < name.size() && (name[i] == '-' || name[i] == '_')) ++i;
  size_t j = i;
  while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j]))) ++j;
  if (j == i || j - i > 8) return std::nullopt;
  return std::make_pair(std::stoi(name.substr(i, j - i)), j);
}

std::string network_name(int generation) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "gen-%04d", generation);
  return buf;
}

// Replays one W L G variant record [winner reason kicks] line. Throws with the reason on failure.
RecordedGame replay_tsv_line(const std::string& line, const std::string& source) {
  TsvRow row = parse_tsv_row(line);
  const Pitch& pitch = Pitch::get(row.width, row.length, row.goal);
  RecordedGame g;
  g.source = source;
  g.game.emplace(parse_record(pitch, row.variant, row.record));
  const Position& pos = g.game->position();
  g.turns = int(g.game->turns().size());
  if (pos.game_over()) {
    g.winner = pos.winner();
    g.reason = reason_name(pos.reason());
    if (!row.extra.empty() && (row.extra[0] == "0" || row.extra[0] == "1") && std::stoi(row.extra[0]) != g.winner)
      throw std::invalid_argument("the winner column says player " + row.extra[0] + " but the record ends with player " +
                                  std::to_string(g.winner) + " winning");
  } else {
    // Ended by resignation or adjudication: the columns say who won.
    if (!row.extra.empty() && (row.extra[0] == "0" || row.extra[0] == "1")) g.winner = std::stoi(row.extra[0]);
    g.reason = row.extra.size() > 1 && !row.extra[1].empty() ? row.extra[1] : "unfinished";
  }
  return g;
}

// Replays a bare record on the pitch and variant of config.yaml (8x10, goal 2, standard when not
// given). Throws with the reason on failure.
RecordedGame replay_config_record(const RunConfig& cfg, const std::string& record, const std::string& source) {
  if (!cfg.pitch.empty() && cfg.width == 0)
    throw std::invalid_argument("config.yaml run.pitch '" + cfg.pitch + "' is not a pitch");
  const Pitch& pitch = cfg.width > 0 ? Pitch::get(cfg.width, cfg.length, cfg.goal) : Pitch::standard();
  RecordedGame g;
  g.source = source;
  g.game.emplace(parse_record(pitch, cfg.variant.empty() ? Variant::kStandard : parse_variant(cfg.variant), record));
  g.turns = int(g.game->turns().size());
  const Position& pos = g.game->position();
  g.winner = pos.game_over() ? pos.winner() : -1;
  g.reason = pos.game_over() ? reason_name(pos.reason()) : "unfinished";
  return g;
}

// Self-play games of one data/genNNNN-*.tsv file: every game counted in *total, games skip ..
// skip + keep - 1 replayed.
std::vector<RecordedGame> load_data_games(RunData& run, const std::string& rel, int generation, int skip,
                                          int keep, int* total) {
  std::vector<RecordedGame> games;
  *total = 0;
  auto data = read_run_file(run, rel);
  if (!data) return games;
  FileNotes notes(run, rel);
  for_each_line(*data, [&](const std::string& line, int line_no, bool) {
    if (is_tsv_header(line)) return;
    const int index = (*total)++;
    if (index < skip || int(games.size()) >= keep) return;
    try {
      RecordedGame g = replay_tsv_line(line, rel + " line " + std::to_string(line_no));
      g.player0 = g.player1 = network_name(generation);
      games.push_back(std::move(g));
    } catch (const std::exception& e) {
      notes.skip_line(line_no, e.what());
    }
  });
  return games;
}

struct CsvTable {
  std::map<std::string, size_t> column;
  std::vector<std::vector<std::string>> rows;
  std::string get(size_t row, const char* name) const {
    auto it = column.find(name);
    if (it == column.end() || row >= rows.size() || it->second >= rows[row].size()) return "";
    return rows[row][it->second];
  }
  bool has(const char* name) const { return column.count(name) > 0; }
};

std::optional<CsvTable> read_csv(RunData& run, const std::string& rel) {
  auto data = read_run_file(run, rel);
  if (!data) return std::nullopt;
  std::istringstream in(*data);
  std::string line;
  CsvTable t;
  if (!std::getline(in, line)) return std::nullopt;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  auto header = split_csv_line(line);
  for (size_t i = 0; i < header.size(); ++i) t.column[trim(header[i])] = i;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!trim(line).empty()) t.rows.push_back(split_csv_line(line));
  }
  return t;
}

// Reads one eval directory's games.tsv: every game is counted, games skip .. skip + keep - 1
// are replayed.
void load_eval_dir(RunData& run, const std::string& rel_dir, int generation, int keep, int skip = 0) {
  EvalGames ev;
  ev.generation = generation;
  ev.dir = rel_dir;
  const std::string tsv_rel = rel_dir + "/games.tsv";
  auto tsv = read_run_file(run, tsv_rel);
  std::optional<CsvTable> csv;
  if (keep > 0) csv = read_csv(run, rel_dir + "/games.csv");
  if (tsv) {
    FileNotes notes(run, tsv_rel);
    int index = 0;
    // The tournament runner's own form ("game<TAB>player0<TAB>...<TAB>record" with a header) is
    // read too: names come from its columns and the rules from config.yaml.
    std::map<std::string, size_t> named;
    for_each_line(*tsv, [&](const std::string& line, int line_no, bool) {
      if (is_tsv_header(line)) return;
      if (line.rfind("game\t", 0) == 0) {
        auto cols = split_tabs(line);
        for (size_t i = 0; i < cols.size(); ++i) named[cols[i]] = i;
        return;
      }
      const int game_index = index++;
      ++ev.total_games;
      if (game_index < skip || int(ev.games.size()) >= keep) return;
      try {
        const std::string source = tsv_rel + " line " + std::to_string(line_no);
        if (named.count("record")) {
          auto f = split_tabs(line);
          auto col = [&](const char* name) {
            auto it = named.find(name);
            return it != named.end() && it->second < f.size() ? f[it->second] : std::string();
          };
          RecordedGame g = replay_config_record(run.config, col("record"), source);
          g.player0 = col("player0");
          g.player1 = col("player1");
          g.termination = col("termination");
          if (!g.game->position().game_over() && !col("winner").empty())
            g.winner = col("winner") == g.player0 ? 0 : col("winner") == g.player1 ? 1 : -1;
          ev.games.push_back(std::move(g));
          return;
        }
        RecordedGame g = replay_tsv_line(line, source);
        if (csv && size_t(game_index) < csv->rows.size()) {
          // games.csv lists the same games in the same order; trust its names only when the turn
          // counts agree.
          const std::string turns = csv->get(size_t(game_index), "turns");
          if (turns.empty() || turns == std::to_string(g.turns)) {
            g.player0 = csv->get(size_t(game_index), "player0");
            g.player1 = csv->get(size_t(game_index), "player1");
            g.termination = csv->get(size_t(game_index), "termination");
          } else {
            notes.note("game " + std::to_string(game_index + 1) + " has " + std::to_string(g.turns) +
                       " turns but games.csv says " + turns + "; players not named");
          }
        }
        ev.games.push_back(std::move(g));
      } catch (const std::exception& e) {
        notes.skip_line(line_no, e.what());
      }
    });
  }
  if (tsv) run.eval.push_back(std::move(ev));
}

void load_eval(RunData& run, int keep) {
  const fs::path root = fs::path(run.dir) / "eval";
  if (!run_subdir(run, root)) return;
  std::error_code ec;
  std::vector<std::pair<int, std::string>> dirs;
  for_each_entry(root, ec, [&](const fs::directory_entry& e, const std::string& name, std::error_code& ec) {
    const int g = generation_of(name);
    if (e.is_directory(ec) && g >= 0) dirs.emplace_back(g, name);
  });
  if (ec) run.notes.push_back("eval/: cannot be listed (" + ec.message() + ")");
  std::sort(dirs.begin(), dirs.end());
  // Only the last generation's games are replayed (the page draws those); the others are counted.
  for (size_t i = 0; i < dirs.size(); ++i)
    load_eval_dir(run, "eval/" + dirs[i].second, dirs[i].first, i + 1 == dirs.size() ? keep : 0);
}

void load_selfplay_games(RunData& run) {
  const fs::path root = fs::path(run.dir) / "data";
  if (!run_subdir(run, root)) return;
  std::error_code ec;
  std::map<int, std::vector<std::string>> files;
  int other = 0;
  for_each_entry(root, ec, [&](const fs::directory_entry& e, const std::string& name, std::error_code& ec) {
    if (!e.is_regular_file(ec)) return;
    auto g = gen_prefix(name);
    if (g && e.path().extension() == ".tsv") files[g->first].push_back(name);
    else ++other;
  });
  if (ec) run.notes.push_back("data/: cannot be listed (" + ec.message() + ")");
  if (files.empty() && other > 0)
    run.notes.push_back("data/: " + counted(other, "file") +
                        " but no genNNNN-*.tsv game files; no self-play boards");
  for (auto& [gen, names] : files) {
    std::sort(names.begin(), names.end());
    SelfplayGames sg;
    sg.generation = gen;
    sg.network = network_name(gen);
    sg.files = int(names.size());
    run.selfplay_games.push_back(sg);
  }
  if (run.selfplay_games.empty()) return;
  // One sample game from the first and from the last network's files.
  for (SelfplayGames* sg : {&run.selfplay_games.front(), &run.selfplay_games.back()}) {
    if (sg->sample) continue;
    for (const std::string& name : files[sg->generation]) {
      int total = 0;
      std::vector<RecordedGame> first = load_data_games(run, "data/" + name, sg->generation, 0, 1, &total);
      if (!first.empty()) {
        sg->sample = std::move(first.front());
        break;
      }
    }
  }
}

// A note when the network file at rel (relative to the run) is not a whole checkpoint: its
// envelope (size and checksum) is read, its network is not loaded (no LibTorch here).
void check_network_file(RunData& run, const std::string& rel) {
  std::string why;
  try {
    why = nn::checkpoint_envelope_problem(read_file((fs::path(run.dir) / rel).string()));
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (!why.empty()) run.notes.push_back(rel + ": " + why + "; it will not load");
}

void load_checkpoints(RunData& run) {
  const fs::path root = fs::path(run.dir) / "checkpoints";
  std::error_code best_ec;
  if (fs::exists(fs::path(run.dir) / "best.model", best_ec)) check_network_file(run, "best.model");
  if (!run_subdir(run, root)) return;
  std::error_code ec;
  for_each_entry(root, ec, [&](const fs::directory_entry& e, const std::string& name, std::error_code& ec) {
    if (!e.is_regular_file(ec)) return;
    std::error_code size_ec;
    uintmax_t bytes = e.file_size(size_ec);
    run.checkpoints.push_back({name, size_ec ? 0 : bytes});
  });
  std::sort(run.checkpoints.begin(), run.checkpoints.end(),
            [](const FileEntry& a, const FileEntry& b) { return a.name < b.name; });
  for (const FileEntry& f : run.checkpoints)
    if (fs::path(f.name).extension() == ".ckpt") check_network_file(run, "checkpoints/" + f.name);
}

}  // namespace

int generation_of(const std::string& name) {
  auto g = gen_prefix(name);
  return g && g->second == name.size() ? g->first : -1;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

int RunData::generations_done() const {
  if (state.generation >= 0) return state.generation;
  int g = 0;
  for (const auto& x : generations) g = std::max(g, x.generation);
  for (const auto& x : selfplay) g = std::max(g, x.generation);
  for (const auto& x : eval) g = std::max(g, x.generation);
  return g;
}

namespace {

// Throws ReportError unless run_dir is a readable directory holding some run file.
void check_run_dir(const std::string& run_dir) {
  std::error_code ec;
  const fs::path dir(run_dir);
  if (run_dir.empty()) throw ReportError("no run directory given");
  if (!fs::exists(dir, ec)) {
    if (ec) throw ReportError("run directory '" + run_dir + "' cannot be accessed: " + ec.message());
    throw ReportError("run directory '" + run_dir + "' does not exist");
  }
  if (!fs::is_directory(dir, ec)) throw ReportError("run directory '" + run_dir + "' is not a directory");
  fs::directory_iterator probe(dir, ec);
  if (ec) throw ReportError("run directory '" + run_dir + "' cannot be listed: " + ec.message());
  static const char* kRunEntries[] = {"config.yaml", "state.json", "logs", "ratings.json", "eval", "data", "checkpoints"};
  bool any = false;
  for (const char* e : kRunEntries) any |= fs::exists(dir / e, ec);
  if (!any)
    throw ReportError("'" + run_dir +
                      "' does not look like a training run directory: it has none of config.yaml, state.json, logs/, "
                      "ratings.json, eval/, data/, checkpoints/");
}

}  // namespace

std::vector<std::string> run_game_files(const std::string& run_dir) {
  check_run_dir(run_dir);
  std::vector<std::string> eval, data;
  std::error_code ec;
  const fs::path dir(run_dir);
  for_each_entry(dir / "eval", ec,
                 [&](const fs::directory_entry& e, const std::string& name, std::error_code& ec) {
                   if (generation_of(name) >= 0 && fs::is_regular_file(e.path() / "games.tsv", ec))
                     eval.push_back("eval/" + name + "/games.tsv");
                 });
  ec.clear();
  for_each_entry(dir / "data", ec,
                 [&](const fs::directory_entry& e, const std::string& name, std::error_code& ec) {
                   if (gen_prefix(name) && e.path().extension() == ".tsv" && e.is_regular_file(ec))
                     data.push_back("data/" + name);
                 });
  std::sort(eval.begin(), eval.end());
  std::sort(data.begin(), data.end());
  eval.insert(eval.end(), data.begin(), data.end());
  return eval;
}

std::vector<RecordedGame> read_run_games(const std::string& run_dir, const std::string& rel,
                                         int offset, int limit, int* total,
                                         std::vector<std::string>* notes) {
  const std::vector<std::string> files = run_game_files(run_dir);
  if (std::find(files.begin(), files.end(), rel) == files.end())
    throw ReportError("'" + rel + "' is not a games file of run '" + run_dir + "'");
  RunData run;
  run.dir = run_dir;
  load_config(run);
  *total = 0;
  std::vector<RecordedGame> games;
  const size_t slash = rel.find('/', 5);
  if (rel.rfind("eval/", 0) == 0) {
    const std::string dir = rel.substr(0, slash);
    load_eval_dir(run, dir, generation_of(dir.substr(5)), std::max(limit, 0), std::max(offset, 0));
    if (!run.eval.empty()) {
      games = std::move(run.eval.back().games);
      *total = run.eval.back().total_games;
    }
  } else {
    const std::string name = rel.substr(5);
    games = load_data_games(run, rel, gen_prefix(name)->first, std::max(offset, 0), std::max(limit, 0), total);
  }
  if (notes) *notes = std::move(run.notes);
  return games;
}

RunData load_run(const std::string& run_dir, const LoadOptions& options) {
  check_run_dir(run_dir);
  RunData run;
  run.dir = run_dir;
  load_config(run);
  load_state(run);
  load_train(run);
  load_selfplay(run);
  load_generations(run);
  load_reference(run);
  load_verdict(run);
  load_ratings(run);
  load_eval(run, options.eval_games_per_generation);
  load_selfplay_games(run);
  count_selfplay_data(run);
  load_config_changes(run);
  load_checkpoints(run);
  return run;
}

}  // namespace ps::report
