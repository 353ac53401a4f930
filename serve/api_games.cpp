// Playing: new game, state, kicks, the bot's turn, undo.
#include <chrono>

#include "loop/players.h"
#include "search/bot_player.h"
#include "search/leaf_evals.h"
#include "serve/api.h"
#include "serve/api_error.h"
#include "serve/bot_turn.h"
#include "serve/net_setup.h"
#include "serve/position_json.h"
#include "serve/request.h"
#include "tournament/registry.h"

namespace ps::serve {

namespace {

// Player types a page may pick: "bot" (the shipped bot, the default), "human" (no bot: two
// people at one board) and these of the registry: the yardsticks and the network's player. Not
// "external" (it runs a command line, not something a web request may choose), nor the
// registry's players for experiments (their descriptions are config keys, not words for a player).
bool offered(const std::string& type) {
  return type == "mcts" || type == "alphabeta" || type == "greedy" || type == "uct" || type == "random";
}

// The shipped bot's strengths by name: its budget per turn (alpha-beta reads visits as nodes).
struct Strength {
  const char* name;
  const char* about;
  int64_t time_ms, nodes;
};
constexpr Strength kStrengths[] = {{"easy", "a shallow search, about 100 positions per turn", 1000, 100},
                                   {"medium", "a few turns deep, about 2,000 positions per turn", 1000, 2000},
                                   {"strong", "200 ms per turn, as in the CodinGame arena", 200, -1},
                                   {"full", "2 seconds per turn", 2000, -1}};
constexpr const char* kDefaultStrength = "strong";

const Strength& strength_named(const std::string& name) {
  for (const Strength& s : kStrengths)
    if (name == s.name) return s;
  throw bad_request("field 'strength': must be easy, medium, strong or full, not '" + name + "'");
}

// What a person reads about each opponent.
std::string opponent_about(const ApiContext& ctx, const std::string& type, const std::string& registry_text) {
  if (type == "human") return "No bot: both sides play on this board.";
  if (type == "bot")
    return "The shipped bot: alpha-beta search over whole turns with a small value net (a random "
           "evaluation on rules without one). The strongest player here.";
  if (type == "mcts")
    return (ctx.model.present() ? "The network " + ctx.model.path
                                : std::string("The network given with --model")) +
           ": on a timed turn it answers as the bot does (alpha-beta with the value net); given visits, "
           "with the network's PUCT search.";
  if (type == "alphabeta")
    return "Alpha-beta search with the hand-written evaluation (goal distances, mobility).";
  if (type == "greedy")
    return "Scores at once when it can, never allows an immediate goal, else heads for goal.";
  if (type == "uct") return "Monte Carlo tree search with random play-outs (no network).";
  if (type == "random") return "Random turns.";
  return registry_text;
}

// Whether an opponent plays these rules: every player but the network's (its model's rules).
bool plays_rules(const ApiContext& ctx, const std::string& type, const Pitch& pitch, Variant variant) {
  return type != "mcts" || (ctx.model.present() && ctx.model.supports(pitch, variant));
}

// The shipped bot of these rules (search/bot_player.h): alpha-beta with the server's value net
// of the rules, else the random evaluation; with the model, its network answers turns given
// visits (the mcts opponent).
std::unique_ptr<Player> make_shipped_bot(ApiContext& ctx, const Pitch& pitch, Variant variant, uint64_t seed,
                                         bool with_model) {
  BotSpec spec;
  spec.pitch = &pitch;
  spec.variant = variant;
  spec.seed = seed;
  spec.shipped_value_net = ctx.engine.value_net_for(pitch, variant);
  if (with_model) {
    spec.network = shared_net_evaluator(ctx.options.model, service_options(ctx.options));
    spec.name = "mcts";
    // --value-net's evaluation; its value net only in games of its rules.
    spec.value_net = ctx.options.value_net;
    const LeafEvalSpec given = spec.value_net.empty() ? LeafEvalSpec{} : leaf_eval_from_name(spec.value_net);
    if (given.eval == "nnue") try {
        check_value_net_rules(given.value_net, pitch, variant);
      } catch (const std::exception&) {
        spec.value_net.clear();
      }
  }
  std::unique_ptr<Player> bot = make_bot_player(spec).player;
  bot->new_game(pitch, variant);
  return bot;
}

std::unique_ptr<Player> make_bot(ApiContext& ctx, const std::string& type, const Pitch& pitch,
                                 Variant variant, uint64_t seed) {
  if (type == "bot") return make_shipped_bot(ctx, pitch, variant, seed, false);
  if (!offered(type) || !tour::has_player_type(type)) {
    std::string known = "human, bot";
    for (const auto& [name, what] : tour::player_types())
      if (offered(name)) known += ", " + name;
    throw bad_request("field 'opponent': unknown player type '" + type + "' (known: " + known + ")");
  }
  if (type == "mcts") {
    if (!ctx.model.present()) throw bad_request("opponent 'mcts' needs a model: start the server with --model FILE");
    if (!ctx.model.supports(pitch, variant))
      throw bad_request("the model " + ctx.model.path + " is for " + ctx.model.rules_text() + ", not " +
                        pitch.name() + " " + variant_name(variant));
  }
  try {
    if (type == "mcts")
      return make_shipped_bot(ctx, pitch, variant, seed, true);  // the network as `bot` plays it
    auto bot = tour::create_player(type, YAML::Node(), tour::PlayerContext{&pitch, variant, seed, type},
                                   "serve", "opponent");
    bot->new_game(pitch, variant);
    return bot;
  } catch (const std::exception& e) {
    throw bad_request(std::string("opponent '") + type + "': " + e.what());
  }
}

// The state of a session; the caller holds s.mu.
Json state_json(const GameSession& s) {
  const std::string bot = s.human < 0 ? "human" : s.opponent;
  const std::map<std::string, std::string> tags = {
      {"Event", "papersoccer serve"},
      {"Player0", s.human == 0 || s.human < 0 ? "human" : bot},
      {"Player1", s.human == 1 || s.human < 0 ? "human" : bot}};
  return {{"id", s.id},
          {"human", s.human},
          {"opponent", bot},
          {"strength", s.strength},
          {"budget", {{"time_ms", s.budget.time_ms}, {"visits", s.budget.visits}}},
          {"thinking", s.thinking},
          {"bots_turn", s.bots_turn()},
          {"last_bot_turn", s.last_bot_turn},
          {"last_bot_ms", s.last_bot_ms},
          {"bot_error", s.bot_error},
          {"version", s.version},
          {"position", position_json(s.game)},
          {"record", record_json(s.game, tags)}};
}

Json locked_state(GameSession& s) {
  std::lock_guard<std::mutex> lock(s.mu);
  return state_json(s);
}

void refuse_while_thinking(const GameSession& s) {
  if (s.thinking) throw ApiError(409, "the bot is thinking; wait for its turn (POST .../bot)");
}

// The answer to a request that queued the bot's turn: with wait, once the turn is played (or
// its time and a margin are over); without, at once.
Json bot_answer(ApiContext& ctx, GameSession& s, bool wait) {
  if (!wait) return locked_state(s);
  const int64_t limit = s.budget.time_ms > 0 ? s.budget.time_ms : ctx.options.max_time_ms;
  wait_for_bot(s, std::chrono::milliseconds(limit + 5000));
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.bot_error.empty()) throw ApiError(500, s.bot_error);
  return state_json(s);
}

}  // namespace

Json api_info(ApiContext& ctx) {
  // Each opponent with the rules it plays ("rules": null, every rule; else the model's) and
  // whether it can be chosen at all; the shipped bot first, with its strengths.
  Json strengths = Json::array();
  for (const Strength& st : kStrengths)
    strengths.push_back(
        {{"name", st.name}, {"description", st.about}, {"time_ms", st.time_ms}, {"nodes", st.nodes}});
  Json opponents = Json::array();
  opponents.push_back({{"type", "bot"},
                       {"description", opponent_about(ctx, "bot", "")},
                       {"available", true},
                       {"rules", nullptr},
                       {"strengths", strengths},
                       {"default_strength", kDefaultStrength}});
  opponents.push_back({{"type", "human"},
                       {"description", opponent_about(ctx, "human", "")},
                       {"available", true},
                       {"rules", nullptr}});
  for (const auto& [type, what] : tour::player_types()) {
    if (!offered(type)) continue;
    Json rules = nullptr;
    if (type == "mcts") rules = {{"pitches", ctx.model.pitches}, {"variants", ctx.model.variants}};
    opponents.push_back({{"type", type},
                         {"description", opponent_about(ctx, type, what)},
                         {"available", type != "mcts" || ctx.model.present()},
                         {"rules", rules}});
  }
  Json value_nets = Json::object();
  for (const auto& [rules, file] : ctx.options.value_nets) value_nets[rules] = file;
  Json model = nullptr;
  if (ctx.model.present())
    model = {{"path", ctx.model.path}, {"summary", ctx.model.summary}, {"pitches", ctx.model.pitches},
             {"variants", ctx.model.variants}};
  const ServeOptions& o = ctx.options;
  return {{"model", model},
          {"opponents", opponents},
          {"default_opponent", "bot"},
          {"value_nets", value_nets},
          {"engines", ctx.model.present() ? Json{"alphabeta", "puct"} : Json{"alphabeta"}},
          {"pitches", {"8x10", "8x12"}},
          {"variants", {"standard", "single-bounce", "no-bounce"}},
          {"limits",
           {{"max_time_ms", o.max_time_ms},
            {"max_visits", o.max_visits},
            {"max_games", o.max_games},
            {"max_request_bytes", o.max_request_bytes}}},
          {"games", ctx.games.size()}};
}

Json api_new_game(ApiContext& ctx, const Json& body) {
  check_fields(body, {"pitch", "variant", "opponent", "strength", "human_side", "time_ms", "visits", "seed"});
  const Pitch& pitch = get_pitch(body);
  const Variant variant = get_variant(body);
  const std::string opponent = get_string(body, "opponent", "bot", 64);
  const int side = int(get_int(body, "human_side", 0, 0, 1));
  auto s = std::make_shared<GameSession>(pitch, variant);
  s->human = opponent == "human" ? -1 : side;
  // The shipped bot's strength sets its budget; time_ms or visits given make it "custom".
  const bool custom = body.is_object() && (body.contains("time_ms") || body.contains("visits"));
  if (opponent != "bot" && body.is_object() && body.contains("strength"))
    throw bad_request("field 'strength': only the opponent 'bot' has strengths (give time_ms or visits)");
  if (opponent == "bot" && custom && body.contains("strength"))
    throw bad_request("field 'strength': give a strength or time_ms / visits, not both");
  if (opponent == "bot" && !custom) {
    const Strength& st = strength_named(get_string(body, "strength", kDefaultStrength, 16));
    s->strength = st.name;
    s->budget.time_ms = st.time_ms;
    s->budget.visits = st.nodes;
  } else {
    if (opponent == "bot") s->strength = "custom";
    s->budget.time_ms = get_int(body, "time_ms", 1000, -1, ctx.options.max_time_ms);
    s->budget.visits = get_int(body, "visits", -1, -1, ctx.options.max_visits);
  }
  if (s->budget.time_ms == 0 || s->budget.visits == 0) throw bad_request("time_ms and visits must be positive, or -1 for no limit");
  if (s->budget.time_ms < 0) s->budget.time_ms = ctx.options.max_time_ms;  // "no limit" is the server's
  if (s->human >= 0 && !plays_rules(ctx, opponent, pitch, variant))
    throw bad_request(ctx.model.present()
                          ? "opponent 'mcts': the model " + ctx.model.path + " is for " +
                                ctx.model.rules_text() + ", not " + pitch.name() + " " +
                                variant_name(variant) + " (the bot plays every rule)"
                          : std::string("opponent 'mcts' needs a model: start the server with --model FILE"));
  const uint64_t seed = uint64_t(get_int(body, "seed", int64_t(std::random_device{}() >> 1), 0, INT64_MAX));
  if (s->human >= 0) {
    s->opponent = opponent;
    s->bot = make_bot(ctx, opponent, pitch, variant, seed);
  }
  ctx.games.add(s);
  return locked_state(*s);
}

Json api_game(ApiContext& ctx, const std::string& id) { return locked_state(*ctx.games.get(id)); }

Json api_kick(ApiContext& ctx, const std::string& id, const Json& body) {
  // Every field is read before the game is touched: a refused request changes nothing.
  check_fields(body, {"dir", "kicks", "reply", "wait"});
  std::string kicks = get_string(body, "kicks", "", 1024);
  const int64_t dir = get_int(body, "dir", -1, 0, 7);
  const bool reply = get_bool(body, "reply", false);
  const bool wait = get_bool(body, "wait", true);  // with reply: for the bot's turn
  if (body.contains("wait") && !reply) throw bad_request("field 'wait': is read with \"reply\": true only");
  if (!kicks.empty() && dir >= 0) throw bad_request("give either 'dir' or 'kicks', not both");
  if (kicks.empty()) kicks = std::to_string(dir);
  if (kicks == "-1") throw bad_request("give the kick as 'dir' (0-7) or the kicks as 'kicks' (digits)");
  auto s = ctx.games.get(id);
  bool replying = false;
  {
    std::lock_guard<std::mutex> lock(s->mu);
    refuse_while_thinking(*s);
    Game next = s->game;
    for (size_t i = 0; i < kicks.size(); ++i) {
      const char c = kicks[i];
      if (c < '0' || c > '7')
        throw bad_request("kick " + std::to_string(i + 1) + " of '" + kicks.substr(0, 64) + "': '" +
                          (c >= 32 && c < 127 ? std::string(1, c) : "?") + "' is not a direction (0-7)");
      if (s->human >= 0 && !next.position().game_over() && next.position().side_to_move() != s->human)
        throw bad_request("kick " + std::to_string(i + 1) + " of '" + kicks + "': it is the bot's turn");
      try {
        next.kick(c - '0');
      } catch (const RecordError& e) {
        throw bad_request(e.what());
      }
    }
    Game before = std::move(s->game);
    s->game = std::move(next);
    ++s->version;
    replying = reply && s->bots_turn();
    // The kicks and the bot's reply are one step: when the reply cannot be queued (a full
    // search queue, 503), the kicks are taken back and the game is as it was.
    if (replying) try {
        start_bot_turn_locked(s, ctx.jobs);
      } catch (...) {
        s->game = std::move(before);
        --s->version;
        throw;
      }
  }
  return replying ? bot_answer(ctx, *s, wait) : locked_state(*s);
}

Json api_bot(ApiContext& ctx, const std::string& id, const Json& body) {
  check_fields(body, {"wait"});
  const bool wait = get_bool(body, "wait", true);
  auto s = ctx.games.get(id);
  start_bot_turn(s, ctx.jobs);
  return bot_answer(ctx, *s, wait);
}

Json api_undo(ApiContext& ctx, const std::string& id, const Json& body) {
  check_fields(body, {});
  auto s = ctx.games.get(id);
  std::lock_guard<std::mutex> lock(s->mu);
  refuse_while_thinking(*s);
  Game g = s->game;
  if (g.turns().empty()) throw bad_request("nothing to undo: no kick has been played");
  const Position& pos = g.position();
  if (s->human < 0 || (!pos.turn_start() && !pos.game_over())) {
    g.undo_turn();  // one turn between two people, or the person's unfinished turn
  } else {
    // The bot's reply (if any), then the person's last turn.
    while (!g.turns().empty()) {
      const int mover = g.kicks().back().player;
      g.undo_turn();
      if (mover == s->human) break;
    }
  }
  s->game = std::move(g);
  ++s->version;
  s->last_bot_turn.clear();
  return state_json(*s);
}

}  // namespace ps::serve
