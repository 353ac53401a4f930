// `papersoccer bot [MODEL]`: plays the CodinGame Paper Soccer protocol on stdin/stdout within a
// time budget. Without MODEL, --visits, --config or a device: alpha-beta over the small value net
// and no network (apps/bot_alphabeta.h). With them the network model (from `export` or a
// checkpoint) is loaded: alpha-beta over the value net still answers every timed turn
// (MctsPlayer::kPlayEndgameFromTurn), the net's PUCT search every turn with --visits, and the
// turns before search.endgame_from_turn when a --config sets one.
#include <algorithm>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "apps/bot_alphabeta.h"
#include "apps/commands.h"
#include "core/config.h"
#include "loop/players.h"
#include "nn/checkpoint.h"
#include "search/bot_player.h"
#include "tournament/protocol.h"

namespace ps::cmd {

namespace {

// --config's search map beside bot's other options: the pairs that would leave one of them read
// and forgotten are refused, naming both. `search`: --config's search map (null: no --config);
// sp: the search they give (bot_search_params).
void check_network_bot_options(const BotArgs& a, ConfigReader* search, const SearchParams& sp) {
  if (!a.value_net.empty() && a.visits > 0)  // every turn is the net's PUCT: the net would be unused
    throw UsageError("bot: --value-net " + a.value_net + " chooses alpha-beta's evaluation, and --visits " +
                     std::to_string(a.visits) +
                     " gives every turn to the net's PUCT search: give one of them");
  if (a.visits > 0 && search) {  // alpha-beta's keys would be read and forgotten
    for (const char* key : {"endgame_from_turn", "endgame_eval", "endgame_value_net", "endgame_eval_noise"})
      if (search->has(key) && !(std::string(key) == "endgame_from_turn" && sp.endgame_from_turn < 0))
        throw UsageError("bot: --visits " + std::to_string(a.visits) +
                         " gives every turn to the net's PUCT search, and " + search->where(key) +
                         " chooses alpha-beta's: give one of them");
  }
  if (!a.value_net.empty() && sp.endgame_from_turn < 0)  // it would be read and forgotten
    throw UsageError(
        "bot: --value-net " + a.value_net + " chooses the alpha-beta endgame's evaluation, and " +
        (search ? search->where("endgame_from_turn") : a.config) + ": -1 turns that endgame off");
}

// --config's search map before it is read: an explicit --value-net the map overrides would be
// ignored without a word, and --value-net none leaves the random evaluation, which takes no
// noise beside it (said here, where the user's words are known: the search's own check names
// endgame_eval).
void check_value_net_beside_config(const BotArgs& a, const ConfigReader& s) {
  if ((s.has("endgame_eval") || s.has("endgame_value_net")) && !a.value_net.empty())
    throw UsageError("bot: --value-net " + a.value_net + " and " + a.config +
                     "'s search.endgame_eval / endgame_value_net both choose the "
                     "endgame's evaluation: give one of them");
  const YAML::Node noise = s.node() && s.node().IsMap() ? s.node()["endgame_eval_noise"] : YAML::Node();
  if (a.value_net == "none" && noise && noise.IsScalar() && noise.Scalar() != "0")
    throw std::invalid_argument("bot: --value-net none leaves the endgame the random evaluation, and " +
                                s.where("endgame_eval_noise") +
                                " is only added to the hand or learned one (give search.endgame_eval: "
                                "hand, or drop the key)");
}

// The network bot (search/bot_player.h's make_bot_player with the model's network): PUCT on
// turns given --visits, alpha-beta on every timed turn evaluating with --value-net (else the
// shipped net of these rules, else the random evaluation), then --config's search map over it.
BotPlayer make_network_bot(const BotArgs& a, const Pitch& pitch, Variant variant) {
  std::optional<ConfigReader> top, search;  // --config and its search map
  if (!a.config.empty()) {
    top.emplace(ConfigReader::from_file(a.config));
    search.emplace(top->child("search"));
    check_value_net_beside_config(a, *search);
  }
  BotSpec spec;
  spec.pitch = &pitch;
  spec.variant = variant;
  spec.value_net = a.value_net;
  spec.search = search ? &*search : nullptr;
  spec.name = "bot";
  // The search the options give, read before the network is loaded: its threads size the
  // service, and options that leave each other unread are refused first.
  const SearchParams sp = bot_search_params(bot_eval(a.value_net, pitch, variant).spec, spec.search);
  if (top) top->finish();
  check_network_bot_options(a, spec.search, sp);
  // One search, num_threads evaluations in flight at most: a batch never needs to wait for
  // more (a batch timeout would add its full length to every evaluation of a 1-thread search).
  nn::ServiceOptions so;
  so.device = a.device;
  so.max_batch = std::max(1, sp.num_threads);
  so.batch_timeout_us = 0;
  spec.network = shared_net_evaluator(a.model, so);
  try {
    return make_bot_player(spec);
  } catch (const BotValueNetError& e) {  // say where the file was named
    throw std::invalid_argument("bot: " + (e.where().empty() ? std::string("--value-net") : e.where()) +
                                ": " + e.what());
  }
}

// Runs the protocol loop with the model of a (the shipped one when a.model is empty).
void run_bot(BotArgs a) {
  if (!bot_needs_network(a)) {  // alpha-beta with the value net: no network to load
    run_alphabeta_bot(a);
    return;
  }
  check_bot_margins(a);
  if (a.nodes > 0)
    throw UsageError(
        "bot: --nodes is the budget of alpha-beta without a network; with a MODEL, "
        "--visits, --config or --device give --visits");
  if (a.model.empty()) {
    const PitchChoice c = parse_pitch_spec(a.pitch_text.empty() ? "8x10" : a.pitch_text);
    const Pitch& pt = Pitch::get(c.width, c.length, c.goal);
    const Variant vv = parse_variant(a.variant_text.empty() ? "standard" : a.variant_text);
    a.model = default_model_path(pt, vv);
    if (a.model.empty())
      throw std::invalid_argument("bot: no MODEL given and no shipped model models/" + pt.name() + "-" +
                                  variant_name(vv) +
                                  ".model (export one: papersoccer "
                                  "export CKPT OUT)");
  }
  nn::CheckpointMeta meta = nn::read_checkpoint_meta(a.model);
  std::string p = rules_choice(a.pitch_text, meta.pitches, "8x10");
  std::string v = rules_choice(a.variant_text, meta.variants, "standard");
  PitchChoice pc = parse_pitch_spec(p);
  const Pitch& pitch = Pitch::get(pc.width, pc.length, pc.goal);
  // A model that lists its pitches/variants would refuse every evaluation on another one:
  // say so now rather than play fallback turns all game.
  check_model_rules("bot", a.model, meta.pitches, meta.variants, pitch.name(),
                    variant_name(parse_variant(v)));
  const BotPlayer bot = make_network_bot(a, pitch, parse_variant(v));
  // Loading LibTorch and the model took part of the first answer's time.
  const tour::ProtocolBotOptions o = bot_protocol_options(a, pitch, parse_variant(v), a.visits);
  std::cerr << "bot: " << a.model << " (" << meta.net.summary() << ", step " << meta.training_step << ") on "
            << pitch.name() << " " << v << ", " << a.turn_ms << " ms per turn, "
            << describe_play_search(bot.search, a.visits > 0)
            << (a.visits > 0 ? ", at most " + std::to_string(a.visits) + " visits per turn" : std::string())
            << "\n";
  tour::ProtocolBot runner(*bot.player, o);
  runner.run(std::cin, std::cout, &std::cerr);
}

}  // namespace

void register_bot_command(CLI::App& app) {
  auto a = std::make_shared<BotArgs>();
  add_bot_command(app, *a)->callback([a] { run_bot(*a); });
}

}  // namespace ps::cmd
