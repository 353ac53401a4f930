// `papersoccer bot MODEL`: plays the CodinGame Paper Soccer protocol on stdin/stdout with a
// network model (from `export` or a checkpoint) and the PUCT search, within a time budget.
#include <iostream>

#include "apps/commands.h"
#include "loop/players.h"
#include "nn/checkpoint.h"
#include "selfplay/selfplay.h"
#include "tournament/protocol.h"

namespace ps::cmd {

void register_bot_command(CLI::App& app) {
  static std::string model, device = "cpu", pitch_text, variant_text, config;
  static int64_t first_ms = tour::kProtocolFirstTurnMs, turn_ms = tour::kProtocolTurnMs,
                 safety_ms = 40, visits = -1;
  auto* bot = app.add_subcommand("bot", "Play the CodinGame protocol on stdin/stdout with a model");
  bot->add_option("model", model, "model file (export) or checkpoint")->required();
  bot->add_option("--device", device, "cpu | cuda | cuda:N")->capture_default_str();
  bot->add_option("--pitch", pitch_text, "pitch (default: the model's first pitch, else 8x10)");
  bot->add_option("--variant", variant_text, "variant (default: the model's first variant)");
  bot->add_option("--first-ms", first_ms, "time limit of the first answer, ms")->capture_default_str();
  bot->add_option("--turn-ms", turn_ms, "time limit of later answers, ms")->capture_default_str();
  bot->add_option("--safety-ms", safety_ms, "answer this long before the limit, ms")
      ->capture_default_str();
  bot->add_option("--visits", visits, "also cap the search at this many visits per turn");
  bot->add_option("--config", config, "YAML with a search: map (search/params.h)");
  bot->callback([] {
    nn::CheckpointMeta meta = nn::read_checkpoint_meta(model);
    std::string p = pitch_text.empty() ? (meta.pitches.empty() ? "8x10" : meta.pitches[0]) : pitch_text;
    std::string v = variant_text.empty() ? (meta.variants.empty() ? "standard" : meta.variants[0])
                                         : variant_text;
    PitchChoice pc = parse_pitch(p);
    const Pitch& pitch = Pitch::get(pc.width, pc.length, pc.goal);
    SearchParams sp;
    sp.temperature = 0;
    sp.root_noise = false;
    if (!config.empty()) {
      ConfigReader top = ConfigReader::from_file(config);
      ConfigReader s = top.child("search");
      sp = parse_search_params(s);
      top.finish();
    }
    nn::ServiceOptions so;
    so.device = device;
    so.max_batch = 16;
    auto player = make_net_player(model, so, sp, 1, "bot");
    tour::ProtocolBotOptions o;
    o.pitch = &pitch;
    o.variant = parse_variant(v);
    o.first_turn_ms = first_ms;
    o.turn_ms = turn_ms;
    o.safety_ms = safety_ms;
    o.visits = visits;
    std::cerr << "bot: " << model << " (" << meta.net.summary() << ", step " << meta.training_step
              << ") on " << pitch.name() << " " << v << ", " << turn_ms << " ms per turn\n";
    tour::ProtocolBot runner(*player, o);
    runner.run(std::cin, std::cout, &std::cerr);
  });
}

}  // namespace ps::cmd
