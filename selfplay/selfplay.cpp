#include "selfplay/selfplay.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "core/fileutil.h"
#include "core/random.h"
#include "core/thread_name.h"
#include "search/mcts.h"

namespace ps {

namespace fs = std::filesystem;

SelfplayConfig::SelfplayConfig() {
  search.root_noise = true;
  search.temperature = 1.0;
  search.temperature_turns = 10;
  search.temperature_final = 0.0;
  // Each search hands the service 8 leaves at a time (search/params.h: leaf_batch): larger
  // batches for the forward pass, one hand-off per 8 evaluations (docs/experiments/selfplay-throughput.md).
  search.leaf_batch = 8;
}

void SelfplayConfig::validate() const {
  const FieldCheck check("selfplay.");
  check(games >= 0, "games", "must be >= 0");
  check(concurrent_games >= 1, "concurrent_games", "must be >= 1");
  check(!pitches.empty(), "pitches", "must list at least one pitch");
  check(!variants.empty(), "variants", "must list at least one variant");
  // A bound: 4294967297 visits searched one turn for minutes into gigabytes.
  const std::string visit_range = "must be in [1, " + std::to_string(kMaxTurnVisits) + "]";
  check(visits >= 1 && visits <= kMaxTurnVisits, "visits", visit_range);
  check(cheap_visits >= 1 && cheap_visits <= kMaxTurnVisits, "cheap_visits", visit_range);
  check(full_search_prob >= 0 && full_search_prob <= 1, "full_search_prob", "must be in [0, 1]");
  check(max_turns >= 1, "max_turns", "must be >= 1");
  check(games_per_chunk >= 1, "games_per_chunk", "must be >= 1");
  check(resign.consecutive >= 1, "resign.consecutive", "must be >= 1");
  check(resign.threshold > 0 && resign.threshold <= 1, "resign.threshold", "must be in (0, 1]");
  check(resign.playthrough_fraction >= 0 && resign.playthrough_fraction <= 1, "resign.playthrough_fraction",
        "must be in [0, 1]");
  check.part("search", search);
  // The proof step (search/mcts_player.h) runs on timed turns only; self-play's are visits.
  check(search.proof_fraction == 0, "search.proof_fraction",
        "must be 0: the proof step runs on timed turns only, and self-play turns have visit budgets "
        "(visits, cheap_visits), so it would never run");
}

SelfplayConfig parse_selfplay_config(ConfigReader& r) {
  SelfplayConfig c;
  r.read(field("games", c.games), field("concurrent_games", c.concurrent_games));
  c.pitches =
      r.get_parsed_list("pitches", c.pitches, [](const std::string& s) { return parse_pitch_spec(s); });
  c.variants = r.get_parsed_list("variants", c.variants, parse_variant);
  r.read(field("visits", c.visits), field("cheap_visits", c.cheap_visits),
         field("full_search_prob", c.full_search_prob), field("max_turns", c.max_turns),
         field("games_per_chunk", c.games_per_chunk), field("seed", c.seed));
  {
    ConfigReader rr = r.child("resign");
    rr.read(field("enabled", c.resign.enabled), field("threshold", c.resign.threshold),
            field("consecutive", c.resign.consecutive),
            field("playthrough_fraction", c.resign.playthrough_fraction));
    rr.finish();
  }
  {
    ConfigReader sr = r.child("search");
    c.search = parse_search_params(sr, c.search);  // keys given override self-play's defaults
  }
  return r.finish_validated(c);
}

void SelfplayStats::add_counts(const SelfplayStats& o) {
  games += o.games;
  samples += o.samples;
  full_samples += o.full_samples;
  turns += o.turns;
  kicks += o.kicks;
  searches += o.searches;
  root_turns += o.root_turns;
  visits += o.visits;
  evaluations += o.evaluations;
  wins[0] += o.wins[0];
  wins[1] += o.wins[1];
  resigned += o.resigned;
  playthroughs += o.playthroughs;
  false_resignations += o.false_resignations;
}

std::string SelfplayStats::summary() const {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "games %lld (%.2f/s), positions %lld (%.1f/s, %lld with policy), %.1f turns/game",
                (long long)games, games_per_s(), (long long)samples, samples_per_s(), (long long)full_samples,
                mean_game_turns());
  std::string s = buf;
  if (root_turns > 0) {  // 0: the searches did not count them (the teacher's alpha-beta)
    std::snprintf(buf, sizeof buf, ", %.1f root turns/search", mean_root_turns());
    s += buf;
  }
  s += ", wins p0/p1 " + std::to_string(wins[0]) + "/" + std::to_string(wins[1]);
  if (resigned || playthroughs)
    s += ", resigned " + std::to_string(resigned) + ", false resignations " +
         std::to_string(false_resignations) + "/" + std::to_string(playthroughs) + " checked";
  return s;
}

namespace {

// The seed of one game from the run's seed and the game id (the values of every earlier
// version, so a resumed run plays the games it would have played).
uint64_t mix(uint64_t a, uint64_t b) {
  return splitmix64(a * kSplitMixGamma + b + (0x632BE59BD9B4E019ULL - kSplitMixGamma));
}

}  // namespace

namespace {

// The training sample of one search: the visit counts of the root's turns (the best turn with
// one visit when none was visited; the kMaxPolicyTurns most visited ones of a larger search),
// the root value; a policy target only for full searches.
TrainingSample search_sample(const SearchResult& res, int turn_index, bool is_full) {
  TrainingSample s;
  s.turn_index = uint16_t(std::min(turn_index, 0xFFFF));
  s.root_value = res.root_value;
  for (const RootChild& c : res.children)
    if (c.visits > 0) s.policy.push_back({c.kicks, uint32_t(c.visits)});
  if (s.policy.size() > kMaxPolicyTurns) {
    std::stable_sort(s.policy.begin(), s.policy.end(),
                     [](const TurnVisits& a, const TurnVisits& b) { return a.visits > b.visits; });
    s.policy.resize(kMaxPolicyTurns);
  }
  if (s.policy.empty() && !res.best_turn.empty()) s.policy.push_back({res.best_turn, 1});
  s.full_search = is_full && !s.policy.empty();
  return s;
}

}  // namespace

void count_game(const GameData& data, const Position& end, int total_turns, int resigner, bool playthrough,
                SelfplayStats& stats) {
  stats.games += 1;
  stats.samples += int64_t(data.samples.size());
  for (auto& s : data.samples) stats.full_samples += s.full_search;
  stats.turns += total_turns;
  stats.kicks += end.num_kicks();
  if (data.winner >= 0) stats.wins[data.winner] += 1;
  if (resigner >= 0 && !playthrough) stats.resigned += 1;
  if (playthrough && resigner >= 0) {
    stats.playthroughs += 1;
    if (end.winner() == resigner) stats.false_resignations += 1;
  }
}

void finish_game_data(const Game& game, int winner, const std::vector<int>& sample_side, GameData& data) {
  data.record = game.record();
  data.winner = int8_t(winner);
  data.reason = game.position().reason();
  const int total_turns = game.num_complete_turns();
  for (size_t i = 0; i < data.samples.size(); ++i) {
    TrainingSample& s = data.samples[i];
    s.result = int8_t(winner < 0 ? 0 : (winner == sample_side[i] ? 1 : -1));
    s.turns_left = uint16_t(std::min(total_turns - int(s.turn_index), 0xFFFF));
  }
}

GameData new_game_data(const SelfplayConfig& cfg, std::mt19937_64& rng, const std::string& network) {
  const PitchChoice pc = cfg.pitches[rng() % cfg.pitches.size()];
  GameData data;
  data.variant = cfg.variants[rng() % cfg.variants.size()];
  data.width = pc.width;
  data.length = pc.length;
  data.goal = pc.goal;
  data.network = network;
  return data;
}

GameData play_selfplay_game(const SelfplayConfig& cfg, Evaluator& evaluator, uint64_t game_id,
                            const std::string& network, SelfplayStats* stats,
                            const std::atomic<bool>* cancel) {
  std::mt19937_64 rng(mix(cfg.seed, game_id));
  GameData data = new_game_data(cfg, rng, network);
  data.game_id = game_id;
  const Variant variant = data.variant;
  const Pitch& pitch = Pitch::get(data.width, data.length, data.goal);

  // One tree for full and cheap searches, so tree reuse serves both (KataGo's playout cap
  // randomization keeps one tree too); a cheap search adds no root noise.
  Search search(evaluator, cfg.search, rng());
  const bool playthrough = cfg.resign.enabled &&
                           std::uniform_real_distribution<double>(0, 1)(rng) <
                               cfg.resign.playthrough_fraction;

  Game game(pitch, variant);
  std::vector<int> sample_side;
  int low_value_streak[2] = {0, 0};
  int resigner = -1;  // who resigned (or would have, in a playthrough game)
  int64_t searches = 0, root_turns = 0, visits = 0, evaluations = 0;

  while (!game.position().game_over() && game.num_complete_turns() < cfg.max_turns) {
    if (cancel && cancel->load()) throw GameCancelled();
    const Position& pos = game.position();
    const int turn_index = game.num_complete_turns();
    const bool is_full = std::uniform_real_distribution<double>(0, 1)(rng) < cfg.full_search_prob;
    SearchLimits limits;
    limits.visits = is_full ? cfg.visits : cfg.cheap_visits;
    limits.root_noise = is_full;
    SearchResult res = search.run(pos, limits);
    ++searches;
    root_turns += int64_t(res.children.size());
    visits += res.new_visits;
    evaluations += res.evaluations;

    data.samples.push_back(search_sample(res, turn_index, is_full));
    sample_side.push_back(pos.side_to_move());

    // Resignation: a side whose root value stays below -threshold for `consecutive` turns.
    const int side = pos.side_to_move();
    if (cfg.resign.enabled) {
      low_value_streak[side] = res.root_value < -cfg.resign.threshold ? low_value_streak[side] + 1 : 0;
      if (resigner < 0 && low_value_streak[side] >= cfg.resign.consecutive) {
        resigner = side;
        if (!playthrough) break;
      }
    }
    const double temperature = is_full ? cfg.search.temperature_at(turn_index) : 0.0;
    const std::string turn = sample_turn(res, temperature, rng);
    game.play_turn(turn);
  }

  const Position& end = game.position();
  int winner = end.winner();
  if (winner < 0 && resigner >= 0) winner = resigner ^ 1;
  finish_game_data(game, winner, sample_side, data);
  const int total_turns = game.num_complete_turns();
  if (stats) {
    stats->searches += searches;
    stats->root_turns += root_turns;
    stats->visits += visits;
    stats->evaluations += evaluations;
    count_game(data, end, total_turns, resigner, playthrough, *stats);
  }
  return data;
}

namespace {

// Calls fn(path, games) for each chunk <out_dir>/<prefix>-*.psd, games null for one that does
// not read (a warning on stderr says why).
template <class Fn>
void for_each_stored_chunk(const std::string& out_dir, const std::string& prefix, Fn fn) {
  if (!fs::exists(out_dir)) return;
  for (auto& entry : fs::directory_iterator(out_dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix + "-", 0) != 0 || entry.path().extension() != ".psd") continue;
    std::vector<GameData> games;
    try {
      games = read_chunk(entry.path().string());
    } catch (const DataError& e) {
      std::cerr << "warning: skipping unreadable chunk: " << e.what() << "\n";
      fn(entry.path(), static_cast<const std::vector<GameData>*>(nullptr));
      continue;
    }
    fn(entry.path(), &games);
  }
}

}  // namespace

int64_t count_stored_games(const std::string& out_dir, const std::string& prefix) {
  int64_t n = 0;
  for_each_stored_chunk(out_dir, prefix, [&](const fs::path&, const std::vector<GameData>* games) {
    if (games) n += int64_t(games->size());
  });
  return n;
}

namespace {

// The record file of a chunk's games: one line per game (test-vector form).
std::string records_tsv(const std::vector<GameData>& games) {
  std::string tsv;
  for (const GameData& g : games) {
    tsv += std::to_string(g.width) + "\t" + std::to_string(g.length) + "\t" + std::to_string(g.goal) + "\t" +
           variant_name(g.variant) + "\t" + g.record + "\t" +
           (g.winner < 0 ? std::string("none") : std::to_string(g.winner)) + "\t" +
           (g.reason == Reason::kNone ? "resigned" : reason_name(g.reason)) + "\t" +
           std::to_string(
               std::count_if(g.record.begin(), g.record.end(), [](char c) { return c >= '0' && c <= '7'; })) +
           "\n";
  }
  return tsv;
}

// Collects finished games; rewrites the open chunk (and its record file) atomically after each
// game, starting a new chunk every games_per_chunk games. Each game arrives compressed
// (compress_game, on its own thread): a rewrite copies the open chunk's frames, it does not
// compress them again.
class ChunkSink {
 public:
  // Continues after the chunks already there (one read of each: their games are counted, and
  // their record files repaired).
  ChunkSink(std::string dir, std::string prefix, int per_chunk)
      : dir_(std::move(dir)), prefix_(std::move(prefix)), per_chunk_(per_chunk) {
    ensure_directory(dir_, "the data directory");
    for_each_stored_chunk(dir_, prefix_, [&](const fs::path& chunk, const std::vector<GameData>* games) {
      try {
        next_index_ =
            std::max(next_index_, std::stoi(chunk.filename().string().substr(prefix_.size() + 1, 6)) + 1);
      } catch (const std::exception&) {
      }
      if (!games) return;
      stored_ += int64_t(games->size());
      for (const GameData& g : *games) stored_ids_.insert(g.game_id);
      repair_records(chunk, *games);
    });
  }
  /// Games in the chunks that were there when the sink was opened.
  int64_t stored() const { return stored_; }
  /// Whether a game of that id was in them.
  bool stored_id(uint64_t id) const { return stored_ids_.count(id) > 0; }
  /// game and its compress_game frame.
  void add(GameData game, CompressedGame compressed) {
    open_.push_back(std::move(game));
    open_frames_.push_back(std::move(compressed));
    const std::string base = dir_ + "/" + prefix_ + "-" + index_text();
    write_compressed_chunk(base + ".psd", open_frames_);
    write_file_atomic(base + ".tsv", records_tsv(open_));
    if (int(open_.size()) >= per_chunk_) {
      open_.clear();
      open_frames_.clear();
      ++next_index_;
    }
  }

 private:
  // A chunk is written before its record file, so a process killed between the two leaves a
  // record file one game short (or none): written again from the chunk, the data's truth.
  static void repair_records(const fs::path& chunk, const std::vector<GameData>& games) {
    const std::string tsv_path = fs::path(chunk).replace_extension(".tsv").string();
    const std::string tsv = records_tsv(games);
    if (!fs::exists(tsv_path) || read_file(tsv_path) != tsv) write_file_atomic(tsv_path, tsv);
  }
  std::string index_text() const {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%06d", next_index_);
    return buf;
  }
  std::string dir_, prefix_;
  int per_chunk_;
  int next_index_ = 0;
  int64_t stored_ = 0;
  std::set<uint64_t> stored_ids_;
  std::vector<GameData> open_;
  std::vector<CompressedGame> open_frames_;  // open_'s games as compressed
};

}  // namespace

SelfplayStats run_games(int64_t games, int concurrent_games, int games_per_chunk, const std::string& out_dir,
                        const std::string& prefix, const GamePlayer& play, const SelfplayProgress& progress,
                        const std::atomic<bool>* cancel) {
  ChunkSink sink(out_dir, prefix, games_per_chunk);  // counts the stored games, repairs records
  const int64_t stored = sink.stored();
  const int64_t todo = std::max<int64_t>(0, games - stored);
  SelfplayStats stats;
  if (todo == 0) return stats;
  // The ids still to play, lowest first, handed out one at a time (a worker's `games` may be
  // unbounded). Games finish out of order, so the stored ones need not be 0..stored-1: a run
  // killed with ids 0-9, 11 and 14 stored plays 10, 12, 13, 15, ... next (`stored + k` had
  // played 14 twice and 10 never).
  std::mutex id_mu;
  uint64_t next_id = 0;
  auto take_id = [&] {
    std::lock_guard<std::mutex> lock(id_mu);
    while (sink.stored_id(next_id)) ++next_id;
    return next_id++;
  };
  std::mutex mu;
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  const auto t0 = std::chrono::steady_clock::now();
  auto worker = [&]() {
    set_thread_name("ps-selfplay");
    while (!failed.load() && !(cancel && cancel->load())) {
      const int64_t k = next.fetch_add(1);
      if (k >= todo) break;
      const uint64_t game_id = take_id();
      try {
        SelfplayStats local;
        GameData g = play(mix(std::hash<std::string>{}(prefix), game_id), &local);
        g.game_id = game_id;
        CompressedGame compressed = compress_game(g);  // outside the lock
        std::lock_guard<std::mutex> lock(mu);
        sink.add(std::move(g), std::move(compressed));
        stats.add_counts(local);
        stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (progress) progress(stats, todo);
      } catch (const GameCancelled&) {
        break;  // not stored: played again when the run resumes
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  const int n = int(std::min<int64_t>(concurrent_games, todo));
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (error) std::rethrow_exception(error);
  return stats;
}

SelfplayStats run_selfplay(const SelfplayConfig& cfg, Evaluator& evaluator, const std::string& network,
                           const std::string& out_dir, const std::string& prefix,
                           const SelfplayProgress& progress, const std::atomic<bool>* cancel,
                           bool cancel_ends_games) {
  cfg.validate();
  return run_games(
      cfg.games, cfg.concurrent_games, cfg.games_per_chunk, out_dir, prefix,
      [&](uint64_t game_seed, SelfplayStats* stats) {
        return play_selfplay_game(cfg, evaluator, game_seed, network, stats,
                                  cancel_ends_games ? cancel : nullptr);
      },
      progress, cancel);
}

}  // namespace ps
