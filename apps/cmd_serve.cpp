// `papersoccer serve`: play, review and analyse in the browser (serve/server.h); prints the
// address and serves until Ctrl-C or SIGTERM.
#include <pthread.h>

#include <csignal>
#include <iostream>
#include <optional>

#include "apps/commands.h"
#include "nn/checkpoint.h"
#include "search/bot_player.h"
#include "search/leaf_evals.h"
#include "serve/server.h"

namespace ps::cmd {

namespace {

// Blocks SIGINT and SIGTERM in this thread and every thread started after it, so that only
// run_until_signal's sigwait receives them.
sigset_t block_stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

// `mcts_search`: the mcts opponent's search on the model's rules (nullopt: no model).
void run_serve(const serve::ServeOptions& o, const std::optional<SearchParams>& mcts_search) {
  const sigset_t stop = block_stop_signals();
  serve::Server server(o);
  server.start();
  std::string nets;
  for (const auto& [rules, file] : o.value_nets) nets += (nets.empty() ? "" : ", ") + rules + " " + file;
  // The bot's evaluation on rules without a net: the one rule of search/bot_player.h.
  const std::string fallback =
      "the " + describe_leaf_eval(leaf_eval_from_name(kBotFallbackValueNet)) + " evaluation";
  const std::string bot = "; the bot: alpha-beta with " + (nets.empty() ? fallback : nets) +
                          (nets.empty() ? "" : " (" + fallback + " on other rules)");
  const std::string endgame = mcts_search
                                  ? "; the mcts opponent: " + describe_play_search(*mcts_search) + ", " +
                                        describe_play_search(*mcts_search, true) + " in a game given visits"
                                  : "";
  std::cout << "papersoccer serve: open " << server.url() << " in a browser (Ctrl-C stops)" << bot
            << (o.model.empty() ? std::string("; no --model: no mcts opponent or PUCT analysis") : endgame)
            << std::endl;
  int sig = 0;
  sigwait(&stop, &sig);
  std::cout << "stopping" << std::endl;
  server.stop();
  throw StoppedOnRequest{128 + sig};
}

}  // namespace

void register_serve_command(CLI::App& app) {
  auto o = std::make_shared<serve::ServeOptions>();
  auto* c = app.add_subcommand("serve", "Play, review and analyse games in the browser (a local web page and a JSON API)");
  c->add_option("--model", o->model, "model file or checkpoint: the mcts opponent and the analysis");
  c->add_option("--host", o->host, "address to listen on (0.0.0.0: every interface, reachable from the network)")
      ->capture_default_str();
  c->add_option("--port", o->port, "port (0: any free port)")
      ->capture_default_str()
      ->check(in_range(0, 65535));
  c->add_option("--device", o->device, "cpu | cuda | cuda:N")->capture_default_str()->check(device_check());
  c->add_option("--runs", o->runs_dir, "folder whose run directories are offered for review")->capture_default_str();
  c->add_option("--max-games", o->max_games, "games kept; the least recently used is dropped beyond")
      ->capture_default_str()->check(integer_at_least(1));
  c->add_option("--search-threads", o->search_threads, "threads for bot turns and analyses")
      ->capture_default_str()->check(integer_at_least(1));
  c->add_option("--max-time-ms", o->max_time_ms, "longest search a request may ask, ms")
      ->capture_default_str()->check(integer_at_least(1));
  c->add_option("--max-visits", o->max_visits, "most visits a request may ask")
      ->capture_default_str()->check(integer_at_least(1));
  auto value_net = std::make_shared<std::string>();  // as typed: a .vnet file, none or hand
  c->add_option("--value-net", *value_net,
                "the small value net of the mcts bot's alpha-beta endgame (.vnet; default: the shipped "
                "models/<pitch>-<variant>.vnet of the model's rules; none: the random evaluation; hand: "
                "the hand evaluation, as bot --value-net); the bot opponent and the alpha-beta analysis "
                "use the shipped net of each rule")
      ->check(non_empty_name(".vnet file, none or hand"));
  c->callback([o, value_net] {
    serve::ServeOptions so = *o;
    // The evaluation is the mcts opponent's, which needs a model: without one the flag would
    // be read and forgotten.
    if (so.model.empty() && !value_net->empty())
      throw std::invalid_argument("serve: --value-net " + *value_net +
                                  " chooses the mcts opponent's endgame evaluation, and there is no mcts "
                                  "opponent without --model FILE");
    // The bot's and the analysis's value nets: the shipped one of each rule, checked now (a bad
    // file is named at the start, not at a game's first turn).
    for (const char* pitch_text : {"8x10", "8x12"})
      for (Variant variant : {Variant::kStandard, Variant::kSingleBounce, Variant::kNoBounce}) {
        const PitchChoice pc = parse_pitch_spec(pitch_text);
        const Pitch& pitch = Pitch::get(pc.width, pc.length, pc.goal);
        const std::string file = default_model_path(pitch, variant, ".vnet");
        if (file.empty()) continue;
        check_value_net_rules(file, pitch, variant);
        so.value_nets[pitch.name() + "/" + variant_name(variant)] = file;
      }
    std::optional<SearchParams> mcts_search;
    if (!so.model.empty()) {
      // The model's rules: the mcts opponent's evaluation on them (--value-net, else the bot's
      // own rule), the given net checked against them (a bad file or one for other rules is
      // named now, not at a game's turn 20).
      const nn::CheckpointMeta meta = nn::read_checkpoint_meta(so.model);
      const PitchChoice pc = parse_pitch_spec(rules_choice("", meta.pitches, "8x10"));
      const Pitch& pitch = Pitch::get(pc.width, pc.length, pc.goal);
      const Variant variant = parse_variant(rules_choice("", meta.variants, "standard"));
      auto shipped = so.value_nets.find(pitch.name() + "/" + variant_name(variant));
      const BotEval eval = bot_eval(*value_net, pitch, variant,
                                    shipped == so.value_nets.end() ? std::string() : shipped->second);
      if (!value_net->empty()) try {
          check_bot_eval(eval, pitch, variant);
        } catch (const BotValueNetError& e) {  // say where the file was named, as ladder and bot
          throw std::invalid_argument(std::string("serve --value-net: ") + e.what());
        }
      so.value_net = *value_net;
      mcts_search = bot_search_params(eval.spec);
    }
    run_serve(so, mcts_search);
  });
}

}  // namespace ps::cmd
