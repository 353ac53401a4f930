// Self-play games and the worker pool, with a uniform evaluator (no network needed).
#include <catch2/catch.hpp>

#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <set>

#include "selfplay/selfplay.h"
#include "core/fileutil.h"

using namespace ps;
namespace fs = std::filesystem;

namespace {

SelfplayConfig small_config() {
  SelfplayConfig c;
  c.visits = 24;
  c.cheap_visits = 6;
  c.full_search_prob = 0.5;
  c.games = 6;
  c.concurrent_games = 3;
  c.games_per_chunk = 4;
  c.pitches = {parse_pitch_spec("8x10"), parse_pitch_spec("6x8")};
  c.variants = {Variant::kStandard, Variant::kSingleBounce, Variant::kNoBounce};
  return c;
}

}  // namespace

TEST_CASE("a self-play game records every turn with a consistent result") {
  UniformEvaluator eval;
  SelfplayConfig cfg = small_config();
  SelfplayStats st;
  GameData g = play_selfplay_game(cfg, eval, 7, "uniform", &st);
  REQUIRE(g.winner >= 0);
  const Pitch& pitch = Pitch::get(g.width, g.length, g.goal);
  Game replay = parse_record(pitch, g.variant, g.record);
  REQUIRE(replay.position().game_over());
  CHECK(replay.position().winner() == g.winner);
  REQUIRE(int(g.samples.size()) == replay.num_complete_turns());
  int full = 0;
  for (size_t i = 0; i < g.samples.size(); ++i) {
    const TrainingSample& s = g.samples[i];
    CHECK(s.turn_index == i);
    Position pos = sample_position(g, s);
    CHECK(s.result == (pos.side_to_move() == g.winner ? 1 : -1));
    CHECK(s.turns_left == g.samples.size() - i);
    REQUIRE(!s.policy.empty());
    // Every policy turn is a legal complete turn of the sample's position.
    for (const TurnVisits& t : s.policy) {
      Game check(pitch, g.variant);
      for (int k = 0; k < int(i); ++k) check.play_turn(replay.turns()[size_t(k)]);
      CHECK_NOTHROW(check.play_turn(t.kicks));
    }
    full += s.full_search;
  }
  CHECK(st.games == 1);
  CHECK(st.samples == int64_t(g.samples.size()));
  CHECK(st.full_samples == full);
  // PUCT searches count their root turns: the summary shows them.
  REQUIRE(st.root_turns > 0);
  char expected[64];
  std::snprintf(expected, sizeof expected, ", %.1f root turns/search, wins p0/p1 ", st.mean_root_turns());
  CHECK_THAT(st.summary(), Catch::Contains(expected));
}

TEST_CASE("run_selfplay writes chunks atomically and resumes without replaying games") {
  fs::path dir = fs::temp_directory_path() / ("ps_selfplay_" + std::to_string(::getpid()));
  ps::remove_tree(fs::path(dir).string());
  UniformEvaluator eval;
  SelfplayConfig cfg = small_config();
  int calls = 0;
  SelfplayStats st = run_selfplay(cfg, eval, "uniform", dir.string(), "gen0000",
                                  [&](const SelfplayStats&, int64_t target) {
                                    ++calls;
                                    CHECK(target == 6);
                                  });
  CHECK(st.games == 6);
  CHECK(calls == 6);
  CHECK(count_stored_games(dir.string(), "gen0000") == 6);
  CHECK(fs::exists(dir / "gen0000-000000.psd"));
  CHECK(fs::exists(dir / "gen0000-000001.psd"));  // 4 games per chunk
  CHECK(fs::exists(dir / "gen0000-000000.tsv"));
  // Game ids are distinct across chunks.
  std::set<uint64_t> ids;
  for (const char* f : {"gen0000-000000.psd", "gen0000-000001.psd"})
    for (auto& g : read_chunk((dir / f).string())) ids.insert(g.game_id);
  CHECK(ids.size() == 6);
  // A process killed between a chunk's write and its record file's (faults_kill_resume_quick
  // once found generation 1's records one game short): the next call writes them again.
  auto lines = [&](const char* f) {
    const std::string text = fs::exists(dir / f) ? read_file((dir / f).string()) : "";
    return std::count(text.begin(), text.end(), '\n');
  };
  CHECK(lines("gen0000-000000.tsv") == 4);
  CHECK(lines("gen0000-000001.tsv") == 2);
  const std::string records1 = read_file((dir / "gen0000-000001.tsv").string());
  write_file_atomic((dir / "gen0000-000001.tsv").string(), records1.substr(0, records1.find('\n') + 1));
  fs::remove(dir / "gen0000-000000.tsv");
  // Same call again: everything is there, nothing is played; the records are whole again.
  SelfplayStats again = run_selfplay(cfg, eval, "uniform", dir.string(), "gen0000");
  CHECK(again.games == 0);
  CHECK(lines("gen0000-000000.tsv") == 4);
  CHECK(read_file((dir / "gen0000-000001.tsv").string()) == records1);
  // More games requested: only the missing ones are played, into a new chunk.
  cfg.games = 8;
  SelfplayStats more = run_selfplay(cfg, eval, "uniform", dir.string(), "gen0000");
  CHECK(more.games == 2);
  CHECK(count_stored_games(dir.string(), "gen0000") == 8);
  ps::remove_tree(fs::path(dir).string());
}

TEST_CASE("self-play config: keys parse, bad keys and values are named") {
  auto r = ConfigReader::from_string(
      "games: 10\nvisits: 50\npitches: [8x10, 8x12]\nvariants: [standard, no-bounce]\n"
      "resign: {enabled: true, threshold: 0.9}\nsearch: {c_puct_init: 1.5}\n",
      "sp.yaml");
  SelfplayConfig c = parse_selfplay_config(r);
  CHECK(c.games == 10);
  CHECK(c.pitches.size() == 2);
  CHECK(c.pitches[1].length == 12);
  CHECK(c.variants[1] == Variant::kNoBounce);
  CHECK(c.resign.enabled);
  CHECK(c.search.c_puct_init == 1.5);
  CHECK(c.search.root_noise);  // self-play default kept when search keys are given
  auto bad = ConfigReader::from_string("gamez: 3\n", "sp.yaml");
  CHECK_THROWS_WITH(parse_selfplay_config(bad), Catch::Contains("gamez") && Catch::Contains("unknown key"));
  auto type = ConfigReader::from_string("visits: lots\n", "sp.yaml");
  CHECK_THROWS_WITH(parse_selfplay_config(type), Catch::Contains("visits") && Catch::Contains("line 1"));
  auto pitch = ConfigReader::from_string("pitches: [8x9]\n", "sp.yaml");
  CHECK_THROWS_WITH(parse_selfplay_config(pitch), Catch::Contains("length must be even"));
  auto variant = ConfigReader::from_string("variants: [standard, bouncy]\n", "sp.yaml");
  CHECK_THROWS_WITH(parse_selfplay_config(variant), Catch::StartsWith("sp.yaml: variants (line 1): "));
  // An empty value keeps the defaults, as for every other key (before, `pitches:` with no value
  // was an "unknown key").
  auto empty = ConfigReader::from_string("pitches:\nvariants:\n", "sp.yaml");
  const SelfplayConfig defaults = parse_selfplay_config(empty);
  CHECK((defaults.pitches.size() == 1 && defaults.pitches[0].length == 10));
  CHECK((defaults.variants.size() == 1 && defaults.variants[0] == Variant::kStandard));
}

namespace {

// The uniform evaluator that sets *stop at its `after`-th evaluation (a SIGTERM mid-game).
class StoppingEvaluator final : public Evaluator {
 public:
  StoppingEvaluator(std::atomic<bool>* stop, int64_t after) : stop_(stop), after_(after) {}
  void evaluate(const Position& pos, Evaluation& out) override {
    if (++calls == after_) *stop_ = true;
    uniform_.evaluate(pos, out);
  }
  std::string name() const override { return "uniform"; }
  std::atomic<int64_t> calls{0};

 private:
  UniformEvaluator uniform_;
  std::atomic<bool>* stop_;
  int64_t after_;
};

}  // namespace

// Regression: after a SIGTERM ("stopping after the current game or step") the self-play games
// in progress played on to their end, for minutes or hours at a large visit budget.
TEST_CASE("a stop ends the games in progress before their next turn, and they are played on resume") {
  fs::path dir = fs::temp_directory_path() / ("ps_selfplay_stop_" + std::to_string(::getpid()));
  ps::remove_tree(dir.string());
  std::atomic<bool> stop{false};
  StoppingEvaluator eval(&stop, 200);
  SelfplayConfig cfg = small_config();
  cfg.full_search_prob = 1.0;
  const SelfplayStats st = run_selfplay(cfg, eval, "uniform", dir.string(), "gen0000", {}, &stop);
  CHECK(st.games == 0);  // each game needs far more than 200 evaluations
  CHECK(count_stored_games(dir.string(), "gen0000") == 0);
  // At most the turn each of the 3 games was searching went on: 24 visits of up to 1 + 48
  // evaluations each (the search's leaf replies).
  CHECK(eval.calls.load() <= 200 + 3 * 24 * 49);
  UniformEvaluator uniform;
  CHECK(run_selfplay(cfg, uniform, "uniform", dir.string(), "gen0000").games == 6);
  CHECK(count_stored_games(dir.string(), "gen0000") == 6);
  ps::remove_tree(dir.string());
  // A worker's pause (loop/selfplay_worker.cpp: a new generation, --max-ahead) lets the games in
  // flight end and stores them; they were dropped, and never played again under the next
  // generation's prefix.
  std::atomic<bool> pause{false};
  StoppingEvaluator paused(&pause, 200);
  const SelfplayStats p = run_selfplay(cfg, paused, "uniform", dir.string(), "gen0000", {}, &pause,
                                       /*cancel_ends_games=*/false);
  // The games started before the pause (1 to 3: the threads start at their own pace), each
  // played to its end; none after it.
  CHECK(p.games >= 1);
  CHECK(p.games <= 3);
  CHECK(count_stored_games(dir.string(), "gen0000") == p.games);
  ps::remove_tree(dir.string());
}

TEST_CASE("self-play and evaluation visits are bounded") {
  // Regression: 4294967297 visits were accepted and searched one turn for minutes into
  // gigabytes.
  for (const char* key : {"visits", "cheap_visits"}) {
    auto r = ConfigReader::from_string(std::string(key) + ": 4294967297\n", "sp.yaml");
    CHECK_THROWS_WITH(parse_selfplay_config(r),
                      "sp.yaml: " + std::string(key) + " (line 1): must be in [1, 100000]");
  }
  auto most = ConfigReader::from_string("visits: 100000\ncheap_visits: 100000\n", "sp.yaml");
  CHECK(parse_selfplay_config(most).visits == kMaxTurnVisits);
}

TEST_CASE("self-play refuses a proof_fraction: its turns have visit budgets, the proof step never ran") {
  // Regression: `search: {proof_fraction: 0.5}` was accepted and silently unused.
  auto r = ConfigReader::from_string("visits: 32\nsearch:\n  proof_fraction: 0.5\n", "sp.yaml");
  CHECK_THROWS_WITH(
      parse_selfplay_config(r),
      "sp.yaml: search.proof_fraction (line 3): must be 0: the proof step runs on timed turns "
      "only, and self-play turns have visit budgets (visits, cheap_visits), so it would never run");
  auto zero = ConfigReader::from_string("search: {proof_fraction: 0}\n", "sp.yaml");
  CHECK(parse_selfplay_config(zero).search.proof_fraction == 0);
  // Set in code: the same rule.
  SelfplayConfig c;
  c.search.proof_fraction = 0.25;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("selfplay.search.proof_fraction: must be 0"));
}

TEST_CASE("run_games resumed after a kill stores every game id once") {
  // A run killed with games 0-9, 11 and 14 stored (concurrent games finish out of order): the
  // next call played `stored + k` (ids 12..39), storing 14 twice and 10 never.
  fs::path dir = fs::temp_directory_path() / ("ps_games_ids_" + std::to_string(::getpid()));
  ps::remove_tree(fs::path(dir).string());
  UniformEvaluator eval;
  SelfplayConfig cfg = small_config();
  cfg.pitches = {parse_pitch_spec("6x8")};
  cfg.variants = {Variant::kStandard};
  cfg.visits = 4;
  cfg.cheap_visits = 2;
  auto play = [&](uint64_t seed, SelfplayStats* st) {
    return play_selfplay_game(cfg, eval, seed, "uniform", st);
  };
  std::vector<GameData> killed;
  for (uint64_t id : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 14}) {
    GameData g = play(id, nullptr);
    g.game_id = id;
    killed.push_back(g);
  }
  ensure_directory(dir.string(), "test");
  write_chunk((dir / "g-000000.psd").string(), killed);
  run_games(40, 8, 2, dir.string(), "g", play);
  std::multiset<uint64_t> ids;
  for (auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".psd")
      for (const GameData& g : read_chunk(entry.path().string())) ids.insert(g.game_id);
  CHECK(ids.size() == 40);
  for (uint64_t id = 0; id < 40; ++id) CHECK(ids.count(id) == 1);
  ps::remove_tree(fs::path(dir).string());
}
