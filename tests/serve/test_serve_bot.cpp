// The page's default opponent and analysis: the shipped bot (alpha-beta with the small value net)
// at a strength by name, and its alpha-beta analysis, with or without a model; players and
// engines that cannot play a game's rules are refused with 400 naming why.
#include <catch2/catch.hpp>

#include <set>
#include <utility>

#include "engine/record.h"
#include "serve_fixture.h"

using ps::serve::ServeOptions;
using ps::serve::test::contains;
using ps::serve::test::Json;
using ps::serve::test::Reply;
using ps::serve::test::TestServer;

namespace {

// The server as `serve` runs it without --model: the shipped 8x10 standard value net.
ServeOptions without_model() {
  ServeOptions o = TestServer::options();
  o.model.clear();
  o.value_nets["8x10/standard"] = std::string(PS_MODELS_DIR) + "/8x10-standard.vnet";
  return o;
}

}  // namespace

TEST_CASE("without a model the page plays the shipped bot at a strength by name, on every rule", "[serve]") {
  TestServer s(without_model());
  const Reply info = s.get("/api/info");
  REQUIRE(info.status == 200);
  CHECK(info.body["default_opponent"] == "bot");
  CHECK(info.body["opponents"][0]["type"] == "bot");
  CHECK(info.body["opponents"][0]["strengths"].size() == 4);
  CHECK(info.body["opponents"][0]["default_strength"] == "strong");
  CHECK(info.body["engines"] == Json::array({"alphabeta"}));
  CHECK(info.body["value_nets"]["8x10/standard"].get<std::string>().find("8x10-standard.vnet") !=
        std::string::npos);
  for (const Json& o : info.body["opponents"]) {
    CHECK(o["description"].get<std::string>().find("keys:") == std::string::npos);  // words, not config keys
    if (o["type"] == "mcts") CHECK(o["available"] == false);
  }
  // The defaults: the bot, strong (200 ms per turn).
  const Reply g = s.post("/api/games", Json::object());
  REQUIRE(g.status == 200);
  CHECK(g.body["opponent"] == "bot");
  CHECK(g.body["strength"] == "strong");
  CHECK(g.body["budget"]["time_ms"] == 200);
  // Each strength on 8x10 standard (its value net) and 8x12 single-bounce (the random evaluation):
  // the bot answers a legal turn.
  for (const char* strength : {"easy", "medium", "strong"})
    for (const auto& [pitch, variant] :
         {std::pair<const char*, const char*>{"8x10", "standard"}, {"8x12", "single-bounce"}}) {
      const Reply r = s.post(
          "/api/games", {{"strength", strength}, {"pitch", pitch}, {"variant", variant}, {"human_side", 1}});
      REQUIRE(r.status == 200);
      CHECK(r.body["strength"] == strength);
      const std::string id = r.body["id"];
      const Reply bot = s.post("/api/games/" + id + "/bot", {{"wait", true}});
      INFO(strength << " " << pitch << " " << variant << ": " << bot.body.dump());
      REQUIRE(bot.status == 200);
      CHECK_FALSE(bot.body["last_bot_turn"].get<std::string>().empty());
      CHECK(bot.body["position"]["side_to_move"] == 1);
    }
  // A strength with a budget, a strength of another opponent, an unknown one: 400 naming the field.
  CHECK(contains(s.post("/api/games", {{"strength", "hard"}}).body,
                 "field 'strength': must be easy, medium, strong or full"));
  CHECK(contains(s.post("/api/games", {{"strength", "easy"}, {"time_ms", 100}}).body, "not both"));
  CHECK(contains(s.post("/api/games", {{"opponent", "greedy"}, {"strength", "easy"}}).body,
                 "only the opponent 'bot' has strengths"));
  const Reply custom = s.post("/api/games", {{"time_ms", 50}});
  CHECK(custom.body["strength"] == "custom");
  CHECK(custom.body["budget"]["time_ms"] == 50);
  // No model: no mcts opponent, on any rule.
  CHECK(contains(s.post("/api/games", {{"opponent", "mcts"}}).body, "needs a model"));
}

TEST_CASE("the alpha-beta analysis: best lines with scores, depth and principal variation, no model needed",
          "[serve]") {
  TestServer s(without_model());
  const Reply r = s.post("/api/analyse", {{"record", "2 4"}, {"time_ms", 300}, {"lines", 3}});
  REQUIRE(r.status == 200);
  CHECK(r.body["engine"] == "alphabeta");
  CHECK(r.body["evaluation"].get<std::string>().find("8x10-standard.vnet") != std::string::npos);
  CHECK(r.body["side_to_move"] == 0);
  CHECK(r.body["depth"].get<int>() >= 1);
  CHECK(r.body["value"].get<double>() >= -1.0);
  CHECK(r.body["value"].get<double>() <= 1.0);
  REQUIRE(r.body["lines"].size() == 3);
  std::set<std::string> firsts;
  ps::Game game = ps::parse_record(ps::Pitch::standard(), ps::Variant::kStandard, "2 4");
  int last = 1 << 30;
  for (const Json& line : r.body["lines"]) {
    const std::string kicks = line["kicks"];
    firsts.insert(kicks);
    CHECK(line["pv"][0] == kicks);
    CHECK(line["score"].get<int>() <= last);  // best first
    last = line["score"].get<int>();
    ps::Game g = game;
    CHECK_NOTHROW(g.play_turn(kicks));
  }
  CHECK(firsts.size() == 3);  // three different turns
  CHECK(r.body["best_turn"] == r.body["lines"][0]["kicks"]);
  // A position with a winning turn: a proven win, the game over in 1 turn.
  const Reply won = s.post("/api/analyse", {{"kicks", "000000"}, {"time_ms", 100}, {"lines", 1}});
  if (won.status == 200 && won.body["proven"] == 1) CHECK(won.body["end_in_turns"] == 1);
  // Another rule without a value net: the hand evaluation.
  const Reply long_pitch =
      s.post("/api/analyse", {{"record", ""}, {"pitch", "8x12"}, {"variant", "no-bounce"}, {"time_ms", 100}});
  REQUIRE(long_pitch.status == 200);
  CHECK(long_pitch.body["evaluation"] == "the hand evaluation");
  // PUCT without a model, a PUCT field to alpha-beta, an unknown engine: 400 naming why.
  CHECK(contains(s.post("/api/analyse", {{"record", "2 4"}, {"engine", "puct"}}).body, "needs a model"));
  CHECK(contains(s.post("/api/analyse", {{"record", "2 4"}, {"visits", 100}}).body,
                 "field 'visits': is read by engine 'puct'"));
  CHECK(contains(s.post("/api/analyse", {{"record", "2 4"}, {"engine", "mcts"}}).body, "field 'engine'"));
}

TEST_CASE("a model of other rules: its players and its PUCT are refused with 400, never 500", "[serve]") {
  TestServer s;  // the quickstart model: 8x10 standard only
  const Reply info = s.get("/api/info");
  for (const Json& o : info.body["opponents"])
    if (o["type"] == "mcts") CHECK(o["rules"]["pitches"] == Json::array({"8x10"}));
  CHECK(info.body["engines"] == Json::array({"alphabeta", "puct"}));
  const Reply puct =
      s.post("/api/analyse", {{"engine", "puct"}, {"record", ""}, {"pitch", "8x12"}, {"visits", 10}});
  CHECK(puct.status == 400);
  CHECK(contains(puct.body, "is for pitches 8x10"));
  const Reply game =
      s.post("/api/games", {{"opponent", "mcts"}, {"pitch", "8x12"}, {"variant", "single-bounce"}});
  CHECK(game.status == 400);
  CHECK(contains(game.body, "the bot plays every rule"));
  // The alpha-beta analysis of the same position answers.
  CHECK(s.post("/api/analyse", {{"record", ""}, {"pitch", "8x12"}, {"time_ms", 100}}).status == 200);
}
