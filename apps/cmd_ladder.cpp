// `papersoccer ladder MODEL`: the model against the fixed yardsticks (random, greedy, uct,
// alphabeta, an earlier model) at equal time per turn; prints each pairing's score with its
// Wilson interval and Elo with its interval (tournament/ladder.h). docs/STRENGTH.md's figures.
#include <atomic>
#include <csignal>
#include <iostream>

#include "apps/commands.h"
#include "core/config.h"
#include "core/plural.h"
#include "nn/checkpoint.h"
#include "search/bot_player.h"
#include "search/leaf_evals.h"
#include "tournament/ladder.h"
#include "tournament/registry.h"
#include "tournament/results.h"

namespace ps::cmd {

namespace {

std::atomic<bool> g_cancel{false};

extern "C" void on_ladder_interrupt(int) {
  g_cancel = true;
  std::signal(SIGINT, SIG_DFL);
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text + ",") {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  return out;
}

// The options of `ladder`.
struct LadderArgs {
  tour::LadderSpec spec;
  std::string opponents = "random,greedy,uct,alphabeta";
  std::string pitch, variant, config;
  std::string value_net;  // --value-net as typed: a .vnet file, none or hand ("" = not given)
  std::string previous_value_net;  // --previous-value-net as typed ("" = not given)
  bool quiet = false;
  bool opponents_given = false;  // --opponents on the command line
};

// The ladder's opponents and rules (the model's, or the options'), and the previous bot's
// files, checked against those rules and named by their flags.
void set_ladder_rules(LadderArgs& a) {
  tour::LadderSpec& spec = a.spec;
  spec.opponents = split_list(a.opponents);
  // --previous-value-net alone: the previous bot is this model with that evaluation (the model's
  // network plays no timed turn of alpha-beta's).
  if (!a.previous_value_net.empty() && spec.previous.empty()) spec.previous = spec.model;
  if (!spec.previous.empty() &&
      std::find(spec.opponents.begin(), spec.opponents.end(), "previous") == spec.opponents.end())
    spec.opponents.push_back("previous");
  const nn::CheckpointMeta meta = nn::read_checkpoint_meta(spec.model);
  const std::string p = rules_choice(a.pitch, meta.pitches, "8x10");
  const std::string v = rules_choice(a.variant, meta.variants, "standard");
  const PitchChoice ps = parse_pitch_spec(p);
  spec.width = ps.width;
  spec.length = ps.length;
  spec.goal = ps.goal;
  spec.variant = parse_variant(v);
  // The model would forfeit every game by a player error on rules it was not trained for.
  check_model_rules("ladder", spec.model, meta.pitches, meta.variants,
                    Pitch::get(ps.width, ps.length, ps.goal).name(), variant_name(spec.variant));
  if (!spec.previous.empty()) {
    // Read now, so that a bad file is named with its flag (it used to fail in the tournament's
    // player factory as "<code>: model.checkpoint").
    nn::CheckpointMeta previous;
    try {
      previous = nn::read_checkpoint_meta(spec.previous);
    } catch (const std::exception& e) {
      throw std::runtime_error("ladder --previous " + spec.previous + ": " + e.what());
    }
    check_model_rules("ladder --previous", spec.previous, previous.pitches, previous.variants,
                      Pitch::get(ps.width, ps.length, ps.goal).name(), variant_name(spec.variant));
  }
  if (!a.previous_value_net.empty()) {
    spec.previous_eval = leaf_eval_from_name(a.previous_value_net);
    if (spec.previous_eval->eval == "nnue") try {
        check_value_net_rules(spec.previous_eval->value_net, Pitch::get(ps.width, ps.length, ps.goal),
                              spec.variant);
      } catch (const std::exception& e) {
        throw std::runtime_error(std::string("ladder --previous-value-net: ") + e.what());
      }
  }
}

// The model's alpha-beta evaluation (--value-net, else the shipped net of the rules) and the
// alphabeta-nnue yardstick's, checked against the rules.
void set_ladder_evaluations(LadderArgs& a) {
  tour::LadderSpec& spec = a.spec;
  const Pitch& pitch = Pitch::get(spec.width, spec.length, spec.goal);
  const bool nnue_asked =
      std::find(spec.opponents.begin(), spec.opponents.end(), "alphabeta-nnue") != spec.opponents.end();
  // --value-net none / hand: the model's endgame on the random / hand evaluation, as `bot
  // --value-net`, and no alphabeta-nnue yardstick unless asked for (which then names the missing
  // net). The shipped value net joins the default yardsticks; an explicit list is kept as given.
  // The bot's evaluation by its one rule (search/bot_player.h): --value-net, else the shipped
  // net of the rules, else the random evaluation.
  const BotEval eval = bot_eval(a.value_net, pitch, spec.variant);
  spec.endgame_eval = eval.spec;
  const bool has_net = eval.spec.eval == "nnue";
  bool add_nnue = has_net && !a.opponents_given;
  // The model's endgame and the yardstick use it: one for other rules is refused now, not in
  // every game.
  try {
    check_bot_eval(eval, pitch, spec.variant);
  } catch (const BotValueNetError& e) {  // say where the file was named
    throw std::runtime_error((e.where().empty() ? "ladder --value-net: " : "ladder: " + e.where() + ": ") +
                             std::string(e.what()));
  }
  // --yardstick-value-net: the yardstick keeps its own (fixed) net while the model's changes.
  if (!spec.yardstick_value_net.empty()) {
    try {
      check_value_net_rules(spec.yardstick_value_net, pitch, spec.variant);
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("ladder --yardstick-value-net: ") + e.what());
    }
    add_nnue = true;
  }
  if (add_nnue && !nnue_asked) spec.opponents.push_back("alphabeta-nnue");
}

// --config's model map: the model's player options; the flags it would override are refused.
void read_ladder_model_config(LadderArgs& a) {
  tour::LadderSpec& spec = a.spec;
  const std::string& value_net_given = a.value_net;
  if (!a.config.empty()) {
    ConfigReader top = ConfigReader::from_file(a.config);
    ConfigReader m = top.child("model");
    spec.model_type = m.get<std::string>("type", spec.model_type);
    // The model is MODEL (and --previous): a checkpoint here was silently replaced by it; its
    // evaluation is --value-net's (or its search map's endgame_eval).
    if (m.has("checkpoint"))
      m.fail_key("checkpoint", "the model is the command line's MODEL (and --previous); remove this key");
    if (m.has("value_net"))
      m.fail_key("value_net",
                 "the model's evaluation is --value-net (or search.endgame_eval / endgame_value_net); remove "
                 "this key");
    // The model's player factory reads these keys strictly; the nodes themselves (not clones)
    // keep their lines, and the file is named, so its errors say file, key and line.
    spec.model_options = YAML::Node(YAML::NodeType::Map);
    if (m.node() && m.node().IsMap())
      for (auto it = m.node().begin(); it != m.node().end(); ++it)
        if (it->first.as<std::string>() != "type") spec.model_options[it->first] = it->second;
    spec.model_source = a.config;
    // An explicit --value-net the config overrides would be ignored without a word, as in `bot`.
    const ConfigReader search = m.child("search");
    if (!value_net_given.empty() && (search.has("endgame_eval") || search.has("endgame_value_net")))
      throw UsageError("ladder: --value-net " + value_net_given + " and " + a.config +
                       "'s model.search.endgame_eval / endgame_value_net both choose the model's "
                       "endgame evaluation: give one of them");
    if (!a.previous_value_net.empty() && (search.has("endgame_eval") || search.has("endgame_value_net")))
      throw UsageError("ladder: --previous-value-net " + a.previous_value_net + " and " + a.config +
                       "'s model.search.endgame_eval / endgame_value_net both choose the previous "
                       "bot's evaluation: give one of them");
    top.finish();
  }
  // --value-net none / hand choose only the model's endgame: with the endgame turned off they
  // would be read and forgotten (a file is still the alphabeta-nnue yardstick's net).
  const YAML::Node& model_options = spec.model_options;  // const: reading adds no key
  if (!value_net_given.empty() && spec.endgame_eval && spec.endgame_eval->eval != "nnue" && model_options &&
      model_options.IsMap() && endgame_turned_off(model_options["search"]))
    throw UsageError("ladder: --value-net " + value_net_given +
                     " chooses the model's alpha-beta endgame, and " + a.config +
                     "'s model.search.endgame_from_turn: -1 turns it off");
  if (!a.previous_value_net.empty() && model_options && model_options.IsMap() &&
      endgame_turned_off(model_options["search"]))
    throw UsageError("ladder: --previous-value-net " + a.previous_value_net +
                     " chooses the previous bot's alpha-beta evaluation, and " + a.config +
                     "'s model.search.endgame_from_turn: -1 turns alpha-beta off");
}

// The ladder of a.spec.model with the rules of the model (or of the options).
void run_ladder(LadderArgs& a) {
  set_ladder_rules(a);
  set_ladder_evaluations(a);
  read_ladder_model_config(a);
  tour::LadderSpec& spec = a.spec;
  const std::vector<tour::PlayerSpec> players = tour::ladder_players(spec);
  // The model's options (its --config, its endgame's value net) are tried once now, with their
  // file and line: a bad one made the model forfeit every game.
  const Pitch& pitch = Pitch::get(spec.width, spec.length, spec.goal);
  for (const tour::PlayerSpec& p : players)
    if (p.name == "model" || p.name == "previous")
      (void)tour::create_player(p.type, p.options, tour::PlayerContext{&pitch, spec.variant, 0, p.name},
                                p.source, p.where);
  const tour::TournamentSpec tspec = tour::ladder_tournament(spec);
  std::signal(SIGINT, on_ladder_interrupt);
  tour::TournamentResult r = tour::run_tournament(
      tspec, players,
      [&](const tour::GameResult& g, int done, int total) {
        if (a.quiet) return;
        std::cout << "[" << done << "/" << total << "] " << players[size_t(g.seat[0])].name << " vs "
                  << players[size_t(g.seat[1])].name << ": " << players[size_t(g.winner)].name << " wins by "
                  << g.termination << (g.detail.empty() ? "" : " (" + g.detail + ")") << ", "
                  << counted(g.turns, "turn") << "\n"
                  << std::flush;
      },
      &g_cancel);
  std::signal(SIGINT, SIG_DFL);
  std::cout << "\n" << tour::format_ladder(tour::ladder_rows(r), spec) << "\n" << tour::format_results(r);
  if (!spec.out_dir.empty()) std::cout << "Wrote the games and results to " << spec.out_dir << "\n";
}

}  // namespace

void register_ladder_command(CLI::App& app) {
  auto a = std::make_shared<LadderArgs>();
  auto* c = app.add_subcommand(
      "ladder", "Play a model against the fixed yardsticks at equal time per turn; print scores "
                "with Wilson intervals and Elo with intervals");
  c->add_option("model", a->spec.model, "model file (export) or checkpoint")->required();
  c->add_option("--time-ms", a->spec.time_ms, "time per turn of every player, ms")
      ->capture_default_str()
      ->check(in_range(1, 86400000));
  c->add_option("--games", a->spec.games,
                "games per opponent (even: colours swapped); at most 1,000,000 over all opponents")
      ->capture_default_str()
      ->check(integer_at_least(2))
      ->check(CLI::Range(2, tour::TournamentSpec::kMaxGamesPerPairing))
      ->check(even_integer());
  CLI::Option* opponents =
      c->add_option(
           "--opponents", a->opponents,
           "comma-separated: random, greedy, uct, alphabeta, alphabeta-noise, alphabeta-nnue, previous")
          ->capture_default_str()
          ->check(checked_by([](const std::string& s) {
            for (const std::string& o : split_list(s)) tour::check_ladder_opponent(o);
          }));
  c->add_option("--value-net", a->value_net,
                "the small value net of the alphabeta-nnue yardstick (added to the opponents) "
                "and of the alpha-beta that answers the model's timed turns (.vnet; default: "
                "models/<pitch>-<variant>.vnet when it exists, which adds that yardstick "
                "unless --opponents is given; none: no value net, alpha-beta's evaluation is random; "
                "hand: the hand evaluation, as bot --value-net)")
      ->check(non_empty_name(".vnet file, none or hand"));
  c->add_option("--yardstick-value-net", a->spec.yardstick_value_net,
                "the alphabeta-nnue yardstick's own value net (.vnet; added to the opponents), when "
                "it should stay fixed while the model's endgame net (--value-net) changes")
      ->check(non_empty_name(".vnet file"));
  c->add_option("--previous", a->spec.previous, "an earlier model: the 'previous' yardstick "
                                                "(added to the opponents when given)");
  c->add_option("--previous-value-net", a->previous_value_net,
                "the 'previous' yardstick's evaluation (.vnet, none or hand; default: the model's): "
                "the previously shipped bot's value net (adds 'previous' to the opponents); "
                "without --previous the previous bot is MODEL with it")
      ->check(non_empty_name(".vnet file, none or hand"));
  c->add_option("--openings", a->spec.openings, "distinct balanced openings")
      ->capture_default_str()
      ->check(integer_at_least(1));
  c->add_option("--opening-turns", a->spec.opening_turns, "random turns per opening")
      ->capture_default_str()
      ->check(integer_at_least(0));
  c->add_option("--concurrency", a->spec.concurrency, "games at the same time (one core each)")
      ->capture_default_str()
      ->check(integer_at_least(1));
  c->add_option("--seed", a->spec.seed, "openings and player seeds")
      ->capture_default_str()
      ->check(integer_at_least(0));
  c->add_option("--pitch", a->pitch, "pitch WxL (default: the model's first pitch, else 8x10)")
      ->check(pitch_check());
  c->add_option("--variant", a->variant, "variant (default: the model's first variant)")
      ->check(variant_check());
  c->add_option("--config", a->config, "YAML whose `model:` map adds keys to the model's player "
                                       "(e.g. search: {...}, type: mcts)");
  c->add_option("--out", a->spec.out_dir, "directory for games and results");
  c->add_flag("--quiet", a->quiet, "no line per game");
  c->callback([a, opponents] {
    a->opponents_given = opponents->count() > 0;
    run_ladder(*a);
  });
}

}  // namespace ps::cmd
