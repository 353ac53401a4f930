// The ladder's players and its per-opponent rows: wins counted from either seat, Wilson
// intervals, Elo clamped at perfect scores, forfeits split by who lost.
#include <catch2/catch.hpp>

#include <sstream>

#include "core/stats.h"
#include "tournament/ladder.h"

using namespace ps;
using namespace ps::tour;

namespace {

// A spec of this model, the rest as the defaults (an aggregate's missing members warn).
LadderSpec spec_of(const std::string& model) {
  LadderSpec s;
  s.model = model;
  return s;
}

// The evaluation `--value-net v.vnet` names (search/leaf_evals.h's leaf_eval_from_name).
LeafEvalSpec net_eval(const std::string& file) {
  LeafEvalSpec e;
  e.eval = "nnue";
  e.value_net = file;
  return e;
}

GameResult game(int first, int second, int winner, const std::string& termination = "goal",
                int64_t ms0 = 10, int64_t ms1 = 20) {
  GameResult g;
  g.seat[0] = first;
  g.seat[1] = second;
  g.winner = winner;
  g.loser = winner == first ? second : first;
  g.winner_seat = winner == first ? 0 : 1;
  g.termination = termination;
  g.max_turn_ms[0] = ms0;
  g.max_turn_ms[1] = ms1;
  return g;
}

}  // namespace

TEST_CASE("ladder: rows count the model's wins from both seats", "[tournament]") {
  TournamentResult r;
  r.players = {"model", "greedy", "alphabeta"};
  // vs greedy: 3 of 4 (one a time forfeit by greedy); vs alphabeta: 0 of 2 (one a model forfeit).
  r.games = {game(0, 1, 0), game(1, 0, 0, "goal", 5, 30), game(0, 1, 1),
             game(1, 0, 0, "time forfeit"), game(0, 2, 2), game(2, 0, 2, "illegal turn")};
  const auto rows = ladder_rows(r);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].opponent == "greedy");
  CHECK(rows[0].games == 4);
  CHECK(rows[0].wins == 3);
  CHECK(rows[0].score == Approx(0.75));
  const auto [lo, hi] = wilson_interval(3, 4);
  CHECK(rows[0].score_lo == Approx(lo));
  CHECK(rows[0].score_hi == Approx(hi));
  CHECK(rows[0].elo == Approx(elo_from_score(0.75)));
  CHECK(rows[0].forfeits_opponent == 1);
  CHECK(rows[0].forfeits_model == 0);
  CHECK(rows[0].max_turn_ms == 30);  // the model's seat in game 2 was seat 1
  CHECK(rows[1].wins == 0);
  CHECK(rows[1].elo == Approx(-1200));  // a zero score is clamped, not -infinity
  CHECK(rows[1].forfeits_model == 1);
  const std::string table = format_ladder(rows, spec_of("m.model"));
  CHECK(table.find("greedy") != std::string::npos);
  CHECK(table.find("75.0%") != std::string::npos);
  // The header says what the model plays (bot's search unless its options say otherwise).
  CHECK_THAT(table,
             Catch::Contains("; the model plays alpha-beta from the first turn (evaluation: random)\n"));
  LadderSpec with_net = spec_of("m.model");
  with_net.endgame_eval = net_eval("v.vnet");
  CHECK(model_search_text(with_net) == "alpha-beta from the first turn (evaluation: value net v.vnet)");
  LadderSpec noisy = spec_of("m.model");  // the model's own options add noise to the net
  noisy.endgame_eval = net_eval("v.vnet");
  noisy.model_options = YAML::Load("{search: {endgame_eval_noise: 150}}");
  CHECK(model_search_text(noisy) ==
        "alpha-beta from the first turn (evaluation: value net v.vnet + noise 150)");
  // The header names the yardstick's own net only when it is not the model's and it played.
  auto nnue_rows = rows;
  nnue_rows[1].opponent = "alphabeta-nnue";
  LadderSpec fixed_yardstick = with_net;
  CHECK_THAT(format_ladder(nnue_rows, fixed_yardstick), !Catch::Contains("alphabeta-nnue evaluates with"));
  fixed_yardstick.yardstick_value_net = "v1.vnet";
  CHECK_THAT(format_ladder(nnue_rows, fixed_yardstick),
             Catch::Contains("(evaluation: value net v.vnet); alphabeta-nnue evaluates with v1.vnet\n"));
  CHECK_THAT(format_ladder(rows, fixed_yardstick), !Catch::Contains("alphabeta-nnue evaluates with"));
  LadderSpec all_game = spec_of("m.model");
  all_game.model_options = YAML::Load("{search: {endgame_from_turn: -1}}");
  CHECK(model_search_text(all_game) == "puct all game");
  // A later switch names the network's search before it.
  LadderSpec from10 = with_net;
  from10.model_options = YAML::Load("{search: {endgame_from_turn: 10}}");
  CHECK(model_search_text(from10) == "puct, then alpha-beta from turn 10 (evaluation: value net v.vnet)");
  // The previous bot is named with all it plays: its evaluation and the config's noise (the
  // header had named its evaluation only).
  LadderSpec with_prev = noisy;
  with_prev.previous = "old.model";
  LeafEvalSpec hand;
  hand.eval = "hand";
  with_prev.previous_eval = hand;
  with_prev.model_options = YAML::Load("{search: {endgame_eval_noise: 5}}");
  CHECK(previous_search_text(with_prev) == "alpha-beta from the first turn (evaluation: hand + noise 5)");
  auto prev_rows = rows;
  prev_rows[1].opponent = "previous";
  CHECK_THAT(
      format_ladder(prev_rows, with_prev),
      Catch::Contains(
          "; previous is old.model, which plays alpha-beta from the first turn (evaluation: hand + noise 5)\n"));
  // Regression: "alphabeta-noise" overflowed the 12-character first column, so its row's
  // figures stood 3 characters right of the header's. Every line now has its games column at
  // the same place.
  auto long_rows = rows;
  long_rows[1].opponent = "alphabeta-noise";
  std::istringstream lines(format_ladder(long_rows, spec_of("m.model")));
  std::string line, header;
  std::getline(lines, line);  // "Ladder of ..."
  std::getline(lines, header);
  const size_t games_end = header.find("games") + 5;
  int table_rows = 0;
  while (std::getline(lines, line) && line.rfind("Elo:", 0) != 0) {
    INFO(line);
    REQUIRE(line.size() > games_end);
    CHECK(line[games_end] == ' ');
    CHECK(line[games_end - 1] != ' ');  // the right-aligned game count ends under "games"
    ++table_rows;
  }
  CHECK(table_rows == 2);
}

TEST_CASE("ladder: players and spec errors", "[tournament]") {
  LadderSpec s;
  s.model = "m.model";
  const auto players = ladder_players(s);
  REQUIRE(players.size() == 5);
  CHECK(players[0].name == "model");
  CHECK(players[0].type == "bot");  // the network as `bot` plays it (search/bot_player.h)
  CHECK(players[0].options["checkpoint"].as<std::string>() == "m.model");
  CHECK(players[0].options["workers"].as<int>() == 1);
  // Regression: the model's player waited the service's default 1 ms per evaluation for a batch
  // that a one-thread search never fills; a wait given by --config is kept.
  CHECK(players[0].options["batch_timeout_us"].as<int>() == 0);
  LadderSpec given = s;
  given.model_options = YAML::Load("{batch_timeout_us: 250}");
  CHECK(ladder_players(given)[0].options["batch_timeout_us"].as<int>() == 250);
  CHECK(players[4].type == "alphabeta");
  // The model plays as `bot`: the bot type with its evaluation (no endgame_eval: the random
  // one) and the search map as given, which the bot reads over its own search: alpha-beta from
  // turn MctsPlayer::kPlayEndgameFromTurn on, unless the map gives endgame_from_turn (-1: PUCT
  // all game); its other search keys are kept.
  CHECK(players[0].options["value_net"].as<std::string>() == "none");
  CHECK_FALSE(players[0].options["search"]);
  CHECK(model_search_text(s) == "alpha-beta from the first turn (evaluation: random)");
  LadderSpec puct_only = s;
  puct_only.model_options = YAML::Load("{search: {endgame_from_turn: -1, c_puct_init: 2}}");
  CHECK(ladder_players(puct_only)[0].options["search"]["endgame_from_turn"].as<int>() == -1);
  CHECK(model_search_text(puct_only) == "puct all game");
  LadderSpec tuned = s;
  tuned.model_options = YAML::Load("{search: {c_puct_init: 2}}");
  CHECK(ladder_players(tuned)[0].options["search"]["c_puct_init"].as<double>() == 2);
  CHECK(model_search_text(tuned) == "alpha-beta from the first turn (evaluation: random)");
  const TournamentSpec t = ladder_tournament(s);
  CHECK(t.format == Format::kGauntlet);
  CHECK(t.budget.time_ms == 200);
  s.opponents = {"greedy", "greedy"};
  CHECK_THROWS_WITH(ladder_players(s), Catch::Contains("given twice"));
  s.opponents = {"previous"};
  CHECK_THROWS_WITH(ladder_players(s), Catch::Contains("needs a previous model"));
  s.previous = "old.model";
  CHECK(ladder_players(s)[1].options["checkpoint"].as<std::string>() == "old.model");
  // alphabeta with the small learned value net: the alphabeta type with eval nnue.
  s.opponents = {"alphabeta", "alphabeta-nnue"};
  CHECK_THROWS_WITH(ladder_players(s), Catch::Contains("needs a value net (--value-net"));
  s.endgame_eval = net_eval("v.vnet");
  const auto ab = ladder_players(s);
  REQUIRE(ab.size() == 3);
  CHECK(ab[1].name == "alphabeta");
  CHECK_FALSE(ab[1].options["eval"]);
  CHECK(ab[2].name == "alphabeta-nnue");
  CHECK(ab[2].type == "alphabeta");
  CHECK(ab[2].options["eval"].as<std::string>() == "nnue");
  CHECK(ab[2].options["value_net"].as<std::string>() == "v.vnet");
  // The previous bot: its own value net when given, else the model's.
  s.opponents = {"previous"};
  CHECK(ladder_players(s)[1].options["value_net"].as<std::string>() == "v.vnet");
  s.previous_eval = net_eval("old.vnet");
  const auto prev = ladder_players(s);
  CHECK(prev[0].options["value_net"].as<std::string>() == "v.vnet");
  CHECK(prev[1].options["value_net"].as<std::string>() == "old.vnet");
  CHECK(prev[1].options["checkpoint"].as<std::string>() == "old.model");
  CHECK(previous_search_text(s) == "alpha-beta from the first turn (evaluation: value net old.vnet)");
  // With a --config search map: the model and previous shared the map, the
  // model's evaluation was written into it first and previous played it.
  s.model_options = YAML::Load("{search: {num_threads: 1}}");
  const auto shared = ladder_players(s);
  CHECK(shared[0].options["value_net"].as<std::string>() == "v.vnet");
  CHECK(shared[1].options["value_net"].as<std::string>() == "old.vnet");
  CHECK(shared[1].options["search"]["num_threads"].as<int>() == 1);
  CHECK(model_search_text(s) == "alpha-beta from the first turn (evaluation: value net v.vnet)");
  CHECK(previous_search_text(s) == "alpha-beta from the first turn (evaluation: value net old.vnet)");
  // The spec's map is not written into (a second call gave previous the
  // model's net again, from the map the first call had changed).
  CHECK_FALSE(s.model_options["search"]["endgame_value_net"]);
  CHECK_FALSE(s.model_options["search"]["endgame_from_turn"]);
  CHECK_FALSE(s.model_options["value_net"]);
  const auto again = ladder_players(s);
  CHECK(again[1].options["value_net"].as<std::string>() == "old.vnet");
  // An empty `search:` (null) is an empty map: alpha-beta with the evaluation (it had turned
  // alpha-beta off without a word).
  s.model_options = YAML::Load("search:");
  REQUIRE(s.model_options["search"].IsNull());
  const auto null_search = ladder_players(s);
  CHECK(null_search[0].options["value_net"].as<std::string>() == "v.vnet");
  CHECK(null_search[1].options["value_net"].as<std::string>() == "old.vnet");
  CHECK(model_search_text(s) == "alpha-beta from the first turn (evaluation: value net v.vnet)");
  CHECK(previous_search_text(s) == "alpha-beta from the first turn (evaluation: value net old.vnet)");
  s.model_options = YAML::Node();
  s.previous_eval.reset();
  s.opponents = {"alphabeta", "alphabeta-nnue"};
  // A fixed yardstick net: alphabeta-nnue evaluates with it, the model's endgame keeps v.vnet.
  s.yardstick_value_net = "v1.vnet";
  const auto fixed = ladder_players(s);
  CHECK(fixed[2].options["value_net"].as<std::string>() == "v1.vnet");
  CHECK(fixed[0].options["value_net"].as<std::string>() == "v.vnet");
  s.yardstick_value_net.clear();
  // alphabeta with the random evaluation.
  s.opponents = {"alphabeta-noise"};
  const auto noise = ladder_players(s);
  REQUIRE(noise.size() == 2);
  CHECK(noise[1].type == "alphabeta");
  CHECK(noise[1].options["eval"].as<std::string>() == "noise");
  s.opponents = {"alphabeta-hand"};
  CHECK_THROWS_WITH(
      ladder_players(s),
      Catch::Contains("known: random, greedy, uct, alphabeta, alphabeta-noise, alphabeta-nnue"));
  s.games = 3;
  CHECK_THROWS_WITH(ladder_players(s), Catch::Contains("must be even"));
}

TEST_CASE("ladder: the model's evaluation goes to the bot as its --value-net name", "[tournament]") {
  // A value net, the hand evaluation (ladder --value-net hand), the random one (none): the bot
  // type's value_net, which makes the search (search/bot_player.h's bot_search_params; its rules
  // are tested in tests/search/test_bot_player.cpp).
  LadderSpec spec = spec_of("m.model");
  spec.endgame_eval = net_eval("v.vnet");
  CHECK(ladder_players(spec)[0].options["value_net"].as<std::string>() == "v.vnet");
  spec.endgame_eval = ps::LeafEvalSpec{};  // eval: hand
  CHECK(ladder_players(spec)[0].options["value_net"].as<std::string>() == "hand");
  CHECK(model_search_text(spec) == "alpha-beta from the first turn (evaluation: hand)");
  spec.endgame_eval = ps::leaf_eval_from_name("none");
  CHECK(ladder_players(spec)[0].options["value_net"].as<std::string>() == "none");
  // The model's options choose their own evaluation, or add noise to the given one.
  spec.endgame_eval = net_eval("v.vnet");
  spec.model_options = YAML::Load("{search: {endgame_eval: hand}}");
  CHECK(model_search_text(spec) == "alpha-beta from the first turn (evaluation: hand)");
  spec.model_options = YAML::Load("{search: {endgame_eval_noise: 40}}");
  CHECK(model_search_text(spec) ==
        "alpha-beta from the first turn (evaluation: value net v.vnet + noise 40)");
  // Noise beside the evaluation itself has no --value-net name: the options' search map gives it.
  LeafEvalSpec noisy_net = net_eval("v.vnet");
  noisy_net.eval_noise = 150;
  spec.endgame_eval = noisy_net;
  CHECK_THROWS_WITH(ladder_players(spec), Catch::Contains("the model's evaluation"));
  // Another registry type keeps its options as given, and is named by its type.
  LadderSpec other = spec_of("m.model");
  other.model_type = "external";
  CHECK(ladder_players(other)[0].type == "external");
  CHECK_FALSE(ladder_players(other)[0].options["value_net"]);
  CHECK(model_search_text(other) == "player type external");
  // The hand evaluation: no alphabeta-nnue net.
  LadderSpec hand_spec = spec_of("m.model");
  hand_spec.endgame_eval = ps::LeafEvalSpec{};  // eval: hand
  CHECK(ps::tour::nnue_yardstick_net(hand_spec).empty());
  CHECK_THROWS_WITH(
      [&] {
        hand_spec.opponents = {"alphabeta-nnue"};
        return ladder_players(hand_spec);
      }(),
      Catch::Contains("needs a value net (--value-net or --yardstick-value-net"));
  hand_spec.yardstick_value_net = "v1.vnet";
  CHECK(ps::tour::nnue_yardstick_net(hand_spec) == "v1.vnet");
}
