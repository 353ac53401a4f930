// The shipped bot's factory (search/bot_player.h): what it makes on rules with the shipped value
// net and on rules without one, a value net it cannot play named with who named it, and the
// network player's search (the search map read over the bot's, one rule for every command).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>

#include "core/config.h"
#include "engine/record.h"
#include "search/bot_player.h"
#include "search/fixed_cost_evaluator.h"

using namespace ps;

namespace {

const std::string kShippedNet = std::string(PS_SOURCE_DIR) + "/models/8x10-standard.vnet";

// The working directory for one scope (default_model_path looks in ./models first).
struct InDirectory {
  explicit InDirectory(const std::string& dir) {
    REQUIRE(getcwd(old, sizeof old) != nullptr);
    REQUIRE(chdir(dir.c_str()) == 0);
  }
  ~InDirectory() { (void)chdir(old); }
  char old[4096];
};

// A turn of the player's from the start position, with a node budget (alpha-beta) or visits.
std::string first_turn(Player& p, const Pitch& pitch, Variant variant, int64_t visits) {
  p.new_game(pitch, variant);
  const Game game(pitch, variant);
  return p.choose_turn(game, TurnBudget{-1, visits});
}

// The search a map gives over the bot's search with `eval`.
SearchParams search_of(const std::string& yaml, const LeafEvalSpec& eval) {
  ConfigReader r(YAML::Load(yaml), "s.yaml", "search");
  return bot_search_params(eval, &r);
}

}  // namespace

TEST_CASE("bot factory: 8x10 standard plays alpha-beta over the shipped value net", "[search]") {
  const Pitch& pitch = Pitch::standard();
  BotSpec spec;
  spec.pitch = &pitch;
  spec.shipped_value_net = kShippedNet;
  BotPlayer bot = make_bot_player(spec);
  CHECK(bot.eval.source == BotEval::Source::kShipped);
  CHECK(bot.eval.spec.eval == "nnue");
  CHECK(bot.eval.spec.value_net == kShippedNet);
  REQUIRE(bot.player);
  CHECK(bot.player->name() == "alphabeta");  // no network: the AlphaBetaPlayer itself
  const std::string turn = first_turn(*bot.player, pitch, Variant::kStandard, 300);  // 300 nodes
  Game game(pitch, Variant::kStandard);
  CHECK_NOTHROW(game.play_turn(turn));
  // Looked up as every command looks it up: models/8x10-standard.vnet from the working directory.
  {
    InDirectory in(PS_SOURCE_DIR);
    const BotEval looked_up = bot_eval("", pitch, Variant::kStandard);
    CHECK(looked_up.source == BotEval::Source::kShipped);
    CHECK(looked_up.spec.value_net == "models/8x10-standard.vnet");
  }
  // A name given wins over the shipped net: a file, none (the random evaluation), hand.
  spec.value_net = "hand";
  CHECK(make_bot_player(spec).eval.spec.eval == "hand");
  CHECK(bot_eval("none", pitch, Variant::kStandard, kShippedNet).spec.eval == "noise");
  CHECK(bot_eval("none", pitch, Variant::kStandard, kShippedNet).source == BotEval::Source::kGiven);
  // With a network (a stand-in: no LibTorch here): its PUCT answers turns given visits,
  // alpha-beta with the value net every timed turn.
  spec.value_net.clear();
  spec.network = std::make_shared<FixedCostEvaluator>();
  spec.name = "bot";
  BotPlayer net_bot = make_bot_player(spec);
  CHECK(net_bot.player->name() == "bot");
  CHECK(net_bot.search.endgame_from_turn == MctsPlayer::kPlayEndgameFromTurn);
  CHECK(net_bot.search.temperature == 0);
  CHECK_FALSE(net_bot.search.root_noise);
  CHECK(describe_play_search(net_bot.search) ==
        "alpha-beta from the first turn (evaluation: value net " + kShippedNet + ")");
  CHECK(describe_play_search(net_bot.search, true) == "puct all game");
  CHECK_NOTHROW(game.play_turn(first_turn(*net_bot.player, pitch, Variant::kStandard, 16)));
}

TEST_CASE("bot factory: rules without a shipped net play the random evaluation, one rule for all",
          "[search]") {
  const PitchChoice pc = parse_pitch_spec("8x12");
  const Pitch& pitch = Pitch::get(pc.width, pc.length, pc.goal);
  BotSpec spec;
  spec.pitch = &pitch;
  spec.variant = Variant::kSingleBounce;
  spec.shipped_value_net = "";  // none ships for these rules
  BotPlayer bot = make_bot_player(spec);
  CHECK(bot.eval.source == BotEval::Source::kFallback);
  CHECK(bot.eval.spec.eval == "noise");  // kBotFallbackValueNet
  CHECK(bot.eval.spec.value_net.empty());
  CHECK(describe_leaf_eval(bot.eval.spec) == "random");
  Game game(pitch, Variant::kSingleBounce);
  CHECK_NOTHROW(game.play_turn(first_turn(*bot.player, pitch, Variant::kSingleBounce, 200)));
  // Looked up from a folder without models/: none found (beside the test executable neither).
  {
    InDirectory in("/");
    CHECK(bot_eval("", pitch, Variant::kSingleBounce).source == BotEval::Source::kFallback);
  }
  // The network player gets the same evaluation.
  spec.network = std::make_shared<FixedCostEvaluator>();
  CHECK(describe_play_search(make_bot_player(spec).search) ==
        "alpha-beta from the first turn (evaluation: random)");
  // The shipped 8x10 net named on these rules is refused, naming the file and both rules.
  spec.value_net = kShippedNet;
  try {
    make_bot_player(spec);
    FAIL("a value net of other rules was taken");
  } catch (const BotValueNetError& e) {
    CHECK(e.named_by() == BotValueNetError::NamedBy::kCaller);
    CHECK_THAT(e.what(), Catch::Contains("value net " + kShippedNet + ": trained for 8x10 standard, the games "
                                         "are 8x12 single-bounce"));
  }
}

TEST_CASE("bot factory: a value net it cannot read is named, with who named it", "[search]") {
  const Pitch& pitch = Pitch::standard();
  BotSpec spec;
  spec.pitch = &pitch;
  spec.value_net = "/nonexistent/no-such.vnet";
  try {
    make_bot_player(spec);
    FAIL("a missing value net was taken");
  } catch (const BotValueNetError& e) {
    CHECK(e.named_by() == BotValueNetError::NamedBy::kCaller);
    CHECK(e.where().empty());  // the caller says its own flag
    CHECK_THAT(e.what(), Catch::StartsWith("value net /nonexistent/no-such.vnet: "));
  }
  // A damaged shipped net: "the shipped value net", with its file.
  const std::string damaged = std::string(PS_SOURCE_DIR) + "/README.md";
  spec.value_net.clear();
  spec.shipped_value_net = damaged;
  try {
    make_bot_player(spec);
    FAIL("a damaged shipped value net was taken");
  } catch (const BotValueNetError& e) {
    CHECK(e.named_by() == BotValueNetError::NamedBy::kShipped);
    CHECK(e.where() == "the shipped value net");
    CHECK_THAT(e.what(), Catch::Contains("value net " + damaged + ": not a value-net file"));
  }
  // A search map's value net: named by its key and line.
  spec.shipped_value_net = kShippedNet;
  spec.network = std::make_shared<FixedCostEvaluator>();
  ConfigReader search(YAML::Load("endgame_value_net: /nonexistent/map.vnet"), "c.yaml", "search");
  spec.search = &search;
  try {
    make_bot_player(spec);
    FAIL("a search map's missing value net was taken");
  } catch (const BotValueNetError& e) {
    CHECK(e.named_by() == BotValueNetError::NamedBy::kSearchMap);
    CHECK(e.where() == "c.yaml: search.endgame_value_net (line 1)");
    CHECK_THAT(e.what(), Catch::StartsWith("value net /nonexistent/map.vnet: "));
  }
  // The map's own evaluation leaves the spec's net unread: no error from a damaged shipped net.
  ConfigReader hand(YAML::Load("endgame_eval: hand"), "c.yaml", "search");
  spec.search = &hand;
  spec.shipped_value_net = damaged;
  CHECK(make_bot_player(spec).search.endgame_eval == "hand");
  // A search map without a network, and no pitch, are refused.
  spec.network.reset();
  CHECK_THROWS_WITH(make_bot_player(spec), Catch::Contains("a search map is the network's"));
  CHECK_THROWS_WITH(make_bot_player(BotSpec{}), Catch::Contains("no pitch"));
}

TEST_CASE("bot factory: the network player's search map is read over the bot's search", "[search]") {
  LeafEvalSpec net;  // `--value-net v.vnet`
  net.eval = "nnue";
  net.value_net = "v.vnet";
  // No map: alpha-beta from the first timed turn with the evaluation.
  const SearchParams plain = bot_search_params(net);
  CHECK(plain.endgame_from_turn == MctsPlayer::kPlayEndgameFromTurn);
  CHECK(plain.endgame_eval == "nnue");
  CHECK(plain.endgame_value_net == "v.vnet");
  CHECK(plain.endgame_eval_noise == 0);
  // An empty map (`search:` with nothing) is no map at all.
  ConfigReader empty(YAML::Load("search:")["search"], "s.yaml", "search");
  CHECK(bot_search_params(net, &empty).endgame_value_net == "v.vnet");
  // The map's own choices stay: the endgame off (and then no evaluation), its other keys.
  const SearchParams own = search_of("{endgame_from_turn: -1, visits: 8}", net);
  CHECK(own.endgame_from_turn == -1);
  CHECK(own.visits == 8);
  CHECK(own.endgame_eval == "noise");
  CHECK(own.endgame_value_net.empty());
  CHECK(search_of("{c_puct_init: 2}", net).c_puct_init == 2);
  CHECK(search_of("{c_puct_init: 2}", net).endgame_from_turn == MctsPlayer::kPlayEndgameFromTurn);
  // Its noise beside the net stays; the evaluation's own noise is carried unless the map sets one.
  CHECK(search_of("{endgame_eval_noise: 150}", net).endgame_eval_noise == 150);
  CHECK(search_of("{endgame_eval_noise: 150}", net).endgame_value_net == "v.vnet");
  LeafEvalSpec noisy_net = net;
  noisy_net.eval_noise = 150;
  CHECK(bot_search_params(noisy_net).endgame_eval_noise == 150);
  CHECK(search_of("{endgame_eval_noise: 40}", noisy_net).endgame_eval_noise == 40);
  // The hand and the random evaluations (`--value-net hand`, `none`): no net.
  const SearchParams hand = bot_search_params(LeafEvalSpec{});
  CHECK(hand.endgame_eval == "hand");
  CHECK(hand.endgame_value_net.empty());
  CHECK(bot_search_params(leaf_eval_from_name("none")).endgame_eval == "noise");
  // A map that chooses the evaluation keeps its own: endgame_eval, or endgame_value_net alone
  // (which means nnue).
  const SearchParams chosen = search_of("{endgame_eval: hand}", net);
  CHECK(chosen.endgame_eval == "hand");
  CHECK(chosen.endgame_value_net.empty());
  const SearchParams map_net = search_of("{endgame_value_net: w.vnet}", LeafEvalSpec{});
  CHECK(map_net.endgame_eval == "nnue");
  CHECK(map_net.endgame_value_net == "w.vnet");
  // Errors name the map's file, key and line; a map that is not a map is refused.
  CHECK_THROWS_WITH(search_of("{bogus: 1}", net), Catch::Contains("s.yaml: search.bogus (line 1): unknown key"));
  CHECK_THROWS_WITH(ConfigReader(YAML::Load("[1, 2]"), "s.yaml", "search"), Catch::Contains("expected a map"));
  // A value that is no plain integer is left to the parser, which refuses -01 (octal or decimal).
  CHECK_FALSE(endgame_turned_off(YAML::Load("{endgame_from_turn: -01}")));
  CHECK_THROWS_WITH(search_of("{endgame_from_turn: -01}", net), Catch::Contains("ambiguous integer: '-01'"));
  CHECK_FALSE(endgame_turned_off(YAML::Load("{endgame_from_turn: x}")));
  CHECK_FALSE(endgame_turned_off(YAML::Load("[1, 2]")));
}

TEST_CASE("leaf_eval_name: the --value-net name of an evaluation", "[search]") {
  for (const char* name : {"hand", "none", "some/file.vnet"})
    CHECK(leaf_eval_name(leaf_eval_from_name(name)) == name);
  LeafEvalSpec noisy = leaf_eval_from_name("hand");
  noisy.eval_noise = 5;
  CHECK_THROWS_WITH(leaf_eval_name(noisy), Catch::Contains("no --value-net name gives it"));
}
