// Every player type answers from every adversarial position of tests/corpus/positions.tsv
// (dense tangles with millions of chains, the 433,648-turn position, long winning chains, dead
// ends; 8x10 and 8x12; all three variants) with a legal turn, within a time cap per answer, and
// the test process stays below 1 GiB peak RSS (issue: the greedy baseline enumerated every
// turn without a bound and the quickstart was killed by the OOM killer at 24 GiB).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/progress.h"
#include "engine/record.h"
#include "engine/turns.h"
#include "loop/players.h"
#include "tournament/protocol.h"
#include "tournament/registry.h"
#include "train/trainer.h"

using namespace ps;

namespace {

struct CorpusPosition {
  int line = 0;
  const Pitch* pitch = nullptr;
  Variant variant = Variant::kStandard;
  std::string kicks, kind, note;
};

std::vector<CorpusPosition> load_corpus() {
  std::ifstream in(PS_CORPUS_FILE);
  REQUIRE(in.good());
  std::vector<CorpusPosition> out;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string w, l, g, variant;
    CorpusPosition c;
    std::getline(ss, w, '\t');
    std::getline(ss, l, '\t');
    std::getline(ss, g, '\t');
    std::getline(ss, variant, '\t');
    std::getline(ss, c.kicks, '\t');
    std::getline(ss, c.kind, '\t');
    std::getline(ss, c.note, '\t');
    if (c.kicks == "-") c.kicks.clear();
    c.line = lineno;
    c.pitch = &Pitch::get(std::stoi(w), std::stoi(l), std::stoi(g));
    c.variant = parse_variant(variant);
    out.push_back(c);
  }
  return out;
}

// Plays `turn` on a copy of the game: throws RecordError when it is not one legal whole turn.
void check_legal(const Game& game, const std::string& turn) {
  Game g = game;
  g.play_turn(turn);
}

using Chooser = std::function<std::string(const Game&)>;

void run_corpus(const std::string& who, const Chooser& choose, double cap_s) {
  const auto corpus = load_corpus();
  REQUIRE(corpus.size() >= 10);
  double worst = 0;
  for (const CorpusPosition& c : corpus) {
    INFO(who << " at corpus line " << c.line << " (" << c.kind << ", " << c.note << ")");
    const Game game = parse_kicks(*c.pitch, c.variant, c.kicks);
    REQUIRE_FALSE(game.position().game_over());
    const auto t0 = std::chrono::steady_clock::now();
    const std::string turn = choose(game);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    worst = std::max(worst, s);
    CHECK(s < cap_s);
    CHECK_NOTHROW(check_legal(game, turn));
  }
  const double rss = peak_rss_mib();
  std::printf("corpus %-10s %zu positions, slowest answer %.3f s, peak RSS %.0f MiB\n", who.c_str(),
              corpus.size(), worst, rss);
  CHECK(rss < 1024.0);
}

Chooser registry_player(const std::string& type, const std::string& yaml, TurnBudget budget) {
  register_builtin_players();
  return [type, yaml, budget](const Game& game) {
    tour::PlayerContext ctx;
    ctx.pitch = &game.position().pitch();
    ctx.variant = game.position().variant();
    ctx.seed = 7;
    ctx.name = type;
    auto player = tour::create_player(type, YAML::Load(yaml), ctx);
    player->new_game(game.position().pitch(), game.position().variant());
    return player->choose_turn(game, budget);
  };
}

}  // namespace

TEST_CASE("corpus: the file covers both pitches, all variants and every kind", "[corpus]") {
  const auto corpus = load_corpus();
  std::set<std::string> kinds, variants, pitches;
  for (const auto& c : corpus) {
    kinds.insert(c.kind);
    variants.insert(variant_name(c.variant));
    pitches.insert(c.pitch->name());
  }
  CHECK(kinds.count("tangle"));
  CHECK(kinds.count("heavy433648"));
  CHECK(kinds.count("longwin"));
  CHECK(kinds.count("deadend"));
  CHECK(variants.size() == 3);
  CHECK(pitches.size() >= 2);
}

TEST_CASE("corpus: random answers legally in bounded time and memory", "[corpus]") {
  run_corpus("random", registry_player("random", "{}", {}), 5.0);
}

TEST_CASE("corpus: greedy answers legally in bounded time and memory", "[corpus]") {
  run_corpus("greedy", registry_player("greedy", "{}", {}), 5.0);
}

TEST_CASE("corpus: uct answers legally in bounded time and memory", "[corpus]") {
  run_corpus("uct", registry_player("uct", "{}", TurnBudget{200, -1}), 3.0);
}

TEST_CASE("corpus: mcts with a small net answers legally in bounded time and memory", "[corpus]") {
  const std::string ckpt =
      (std::filesystem::temp_directory_path() / ("ps-corpus-" + std::to_string(::getpid()) + ".ckpt")).string();
  TrainConfig cfg;
  cfg.net = nn::NetConfig::preset("tiny");
  cfg.seed = 3;
  write_initial_checkpoint(cfg, ckpt, "corpus test");
  const std::string yaml = "{checkpoint: '" + ckpt + "', search: {num_threads: 2}}";
  SECTION("visits") { run_corpus("mcts-64v", registry_player("mcts", yaml, TurnBudget{-1, 64}), 10.0); }
  SECTION("time") { run_corpus("mcts-200ms", registry_player("mcts", yaml, TurnBudget{200, -1}), 3.0); }
  clear_net_evaluators();
  std::filesystem::remove(ckpt);
}

TEST_CASE("corpus: alphabeta answers legally in bounded time and memory", "[corpus]") {
  run_corpus("alphabeta", registry_player("alphabeta", "{}", TurnBudget{200, -1}), 3.0);
}

TEST_CASE("corpus: the bot's fallback answers legally in bounded time and memory", "[corpus]") {
  run_corpus("fallback", [](const Game& g) { return fallback_turn(g.position()); }, 2.0);
}

TEST_CASE("corpus: turns and perft stop at the state limit with an error, never exhaust memory",
          "[corpus]") {
  const auto corpus = load_corpus();
  int over = 0;
  for (const CorpusPosition& c : corpus) {
    const Game game = parse_kicks(*c.pitch, c.variant, c.kicks);
    TurnGenerator gen;
    gen.set_enumeration_limit(int64_t(1) << 20);
    const auto st = gen.count(game.position());
    if (!st.complete) {
      ++over;
      CHECK(gen.states_held() <= (int64_t(1) << 20));
      CHECK_THROWS_AS(perft(game.position(), 2, nullptr, int64_t(1) << 20), StateLimitError);
    }
  }
  CHECK(over >= 1);  // the corpus holds positions over 1M states
  CHECK(peak_rss_mib() < 1024.0);
}
