#include "apps/bot_alphabeta.h"

#include <time.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "apps/commands.h"
#include "search/bot_player.h"

namespace ps::cmd {

namespace {

// The longest time limit of an answer, ms: a day.
constexpr int64_t kMaxAnswerMs = 86400000;

// When this process started, on the steady clock: /proc/self/stat's start time against
// CLOCK_BOOTTIME; `fallback` where either is unavailable.
std::chrono::steady_clock::time_point process_start(std::chrono::steady_clock::time_point fallback) {
  std::ifstream f("/proc/self/stat");
  std::string line;
  if (!std::getline(f, line)) return fallback;
  const size_t close = line.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return fallback;
  std::istringstream rest(line.substr(close + 1));
  std::string field;
  // Fields after the name start at 3 (state); the start time is field 22.
  for (int i = 3; i < 22; ++i) rest >> field;
  long long ticks = 0;
  const long hz = ::sysconf(_SC_CLK_TCK);
  timespec now{};
  if (!(rest >> ticks) || hz <= 0 || ::clock_gettime(CLOCK_BOOTTIME, &now) != 0) return fallback;
  const double age_s = double(now.tv_sec) + 1e-9 * double(now.tv_nsec) - double(ticks) / double(hz);
  if (age_s < 0 || age_s > 3600) return fallback;
  return std::chrono::steady_clock::now() - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                std::chrono::duration<double>(age_s));
}

}  // namespace

CLI::App* add_bot_command(CLI::App& app, BotArgs& a) {
  auto* bot =
      app.add_subcommand("bot", "Play the CodinGame protocol on stdin/stdout: alpha-beta with the value net");
  bot->footer(
      "Protocol (tournament/protocol.h): the first line is the bot's id (0: first player, attacks "
      "the north goal; 1: second player). Then on each of its turns two lines: the length of the "
      "opponent's last turn and that turn as direction digits (RULES.md), \"1\" and \"-\" on player "
      "0's first turn. The bot answers one line, its whole turn as digits. Example: printf "
      "'0\\n1\\n-\\n' | papersoccer bot");
  bot->add_option("model", a.model,
                  "a network model (export) or checkpoint: loads LibTorch and the net (for --visits, or "
                  "--config's PUCT turns); without it alpha-beta plays with the value net and no network");
  bot->add_option("--device", a.device, "cpu | cuda | cuda:N (the network's)")
      ->capture_default_str()
      ->check(device_check());
  bot->add_option("--pitch", a.pitch_text, "pitch (default: the model's first pitch, else 8x10)")
      ->check(pitch_check());
  bot->add_option("--variant", a.variant_text, "variant (default: the model's first variant, else standard)")
      ->check(variant_check());
  // At most a day: a deadline of ~9.2e12 ms overflowed the clock (an instant fallback turn,
  // then a search that never ended).
  bot->add_option("--first-ms", a.first_ms,
                  "time limit of the first answer, ms (1 to 86,400,000), counted from the bot's start (the "
                  "referee writes the first lines at once); never less than --turn-ms")
      ->capture_default_str()
      ->check(in_range<int64_t>(1, kMaxAnswerMs));
  bot->add_option("--turn-ms", a.turn_ms, "time limit of later answers, ms (1 to 86,400,000)")
      ->capture_default_str()
      ->check(in_range<int64_t>(1, kMaxAnswerMs));
  bot->add_option("--safety-ms", a.safety_ms,
                  "answer this long before the limit, ms (>= 0, below --first-ms and --turn-ms)")
      ->capture_default_str()
      ->check(integer_at_least(0));
  bot->add_option("--search-margin-ms", a.search_margin_ms,
                  "the search stops this long before the safety deadline, ms (>= 0): its "
                  "overshoot past its own budget")
      ->capture_default_str()
      ->check(in_range<int64_t>(0, kMaxAnswerMs));
  bot->add_option("--visits", a.visits,
                  "play the net's PUCT with at most this many visits per turn, within the time "
                  "(>= 1; -1: none, and alpha-beta answers every turn with the time unless "
                  "--config sets search.endgame_from_turn)")
      ->check(integer_at_least(1, true));
  bot->add_option("--value-net", a.value_net,
                  "the small value net of alpha-beta (.vnet; default: the shipped "
                  "models/<pitch>-<variant>.vnet when it exists, else the random evaluation; "
                  "none: the random evaluation; hand: the hand evaluation)")
      ->check(non_empty_name(".vnet file, none or hand"));
  bot->add_option("--nodes", a.nodes,
                  "alpha-beta's node budget per turn, within the time (>= 1; deterministic: the alpha-beta "
                  "single file's --nodes); not with a network")
      ->check(integer_at_least(1));
  bot->add_option("--config", a.config, "YAML with a search: map (search/params.h); loads the network");
  return bot;
}

tour::ProtocolBotOptions bot_protocol_options(const BotArgs& a, const Pitch& pitch, Variant variant,
                                              int64_t visits) {
  tour::ProtocolBotOptions o;
  o.pitch = &pitch;
  o.variant = variant;
  o.first_turn_ms = a.first_ms;
  o.turn_ms = a.turn_ms;
  o.safety_ms = a.safety_ms;
  o.search_margin_ms = a.search_margin_ms;
  o.visits = visits;
  o.first_turn_clock_start = process_start(std::chrono::steady_clock::now());
  return o;
}

bool bot_needs_network(const BotArgs& a) {
  return !a.model.empty() || a.visits > 0 || !a.config.empty() || a.device != "cpu";
}

void check_bot_margins(const BotArgs& a) {
  // With no time left after the safety margin every answer would be the fallback turn.
  if (a.safety_ms >= std::min(a.first_ms, a.turn_ms))
    throw UsageError("bot: --safety-ms " + std::to_string(a.safety_ms) + " must be below --first-ms (" +
                     std::to_string(a.first_ms) + ") and --turn-ms (" + std::to_string(a.turn_ms) + ")");
  // The search's budget is the limit less both margins: none left is a fallback turn every time.
  if (a.safety_ms + a.search_margin_ms >= std::min(a.first_ms, a.turn_ms))
    throw UsageError("bot: --safety-ms " + std::to_string(a.safety_ms) + " + --search-margin-ms " +
                     std::to_string(a.search_margin_ms) + " must be below --first-ms (" +
                     std::to_string(a.first_ms) + ") and --turn-ms (" + std::to_string(a.turn_ms) +
                     "): the search would have no time");
}

void run_alphabeta_bot(const BotArgs& a) {
  check_bot_margins(a);
  const PitchChoice pc = parse_pitch_spec(a.pitch_text.empty() ? "8x10" : a.pitch_text);
  const Pitch& pitch = Pitch::get(pc.width, pc.length, pc.goal);
  const Variant variant = parse_variant(a.variant_text.empty() ? "standard" : a.variant_text);
  BotSpec spec;  // no network: the AlphaBetaPlayer with --value-net, else the shipped net, else random
  spec.pitch = &pitch;
  spec.variant = variant;
  spec.value_net = a.value_net;
  BotPlayer bot;
  try {
    bot = make_bot_player(spec);
  } catch (const BotValueNetError& e) {
    throw std::invalid_argument("bot: " + (e.where().empty() ? std::string("--value-net") : e.where()) +
                                ": " + e.what());
  }
  // Alpha-beta reads a visit budget as nodes.
  const tour::ProtocolBotOptions o = bot_protocol_options(a, pitch, variant, a.nodes);
  const LeafEvalSpec& ev = bot.eval.spec;
  std::cerr << "bot: alpha-beta with "
            << (ev.eval == "nnue"   ? "value net " + ev.value_net
                : ev.eval == "hand" ? std::string("the hand evaluation")
                                    : std::string("the random evaluation"))
            << " on " << pitch.name() << " " << variant_name(variant) << ", " << a.turn_ms
            << " ms per turn (first answer " << a.first_ms << " ms from the start); no network loaded\n";
  tour::ProtocolBot runner(*bot.player, o);
  runner.run(std::cin, std::cout, &std::cerr);
}

}  // namespace ps::cmd
