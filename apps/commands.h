// Each subcommand registers itself on the CLI11 app (one file per command family).
#pragma once

#include <CLI/CLI.hpp>

#include <cctype>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/text.h"
#include "engine/pitch.h"
#include "nn/net_config.h"
#include "search/bot_player.h"  // default_model_path
#include "search/leaf_evals.h"

namespace ps::cmd {

/// Thrown by a command that stopped cleanly on request (Ctrl-C, SIGTERM) after saving its
/// state: main prints nothing more and exits with `code` (128 + the signal, as shells report
/// it: 130 after SIGINT, 143 after SIGTERM).
struct StoppedOnRequest {
  int code = 130;
};

/// Arguments that do not go together (a required one missing, two that exclude each other).
/// Thrown by a command while CLI11 parses: main prints it with "Run with --help" and exits 2, as
/// for CLI11's own usage errors.
class UsageError : public CLI::ValidationError {
 public:
  explicit UsageError(const std::string& what) : CLI::ValidationError(what) {}
};

/// Prints a parse error (or the help) and returns the exit status: 0 for --help, else 2, the
/// usage-error status of the README (CLI11 gives each kind of parse error its own: 105, 109, ...).
inline int usage_exit_status(const CLI::App& app, const CLI::ParseError& e) {
  return app.exit(e) == 0 ? 0 : 2;
}

void register_engine_commands(CLI::App& app);  // replay, turns, perft
void register_analyse_commands(CLI::App& app);  // show, analyse
void register_bench_command(CLI::App& app);    // bench
void register_tournament_command(CLI::App& app);  // tournament
void register_play_command(CLI::App& app);        // play
/// The `bench` command, made by the first caller: each bench family adds its subcommand to it
/// in any order.
CLI::App* bench_command(CLI::App& app);
void register_bench_nn_command(CLI::App& app);        // bench nn
void register_bench_search_command(CLI::App& app);    // bench search
void register_bench_selfplay_command(CLI::App& app);  // bench selfplay
void register_report_command(CLI::App& app);  // report RUNDIR
void register_run_commands(CLI::App& app);  // run, selfplay, train, gatekeeper, export, init-net
/// `export --single-file OUT MODEL` (apps/cmd_export_single_file.cpp): bits 8, 4 or 0 (auto).
/// MODEL may be a value net (.vnet, is_value_net_file): the file is then the alpha-beta bot.
void export_single_file(const std::string& model, const std::string& out, const std::string& pitch,
                        const std::string& variant, int bits, int64_t max_chars);
/// Whether path starts with the value-net file's magic (valuenet/value_net_file.h).
bool is_value_net_file(const std::string& path);
void register_bot_command(CLI::App& app);   // bot
void register_ladder_command(CLI::App& app);  // ladder
void register_value_net_commands(CLI::App& app);  // train-value, bench value-net

/// Refuses to play `model` on rules its checkpoint does not list: throws std::invalid_argument
/// "<who>: MODEL is not trained for pitch P (its pitches: ...)" (or variant) when `pitches` /
/// `variants` (CheckpointMeta's; empty: any) do not hold `pitch` (Pitch::name()) / `variant`
/// (variant_name()). bot and ladder check before the first game, not in every evaluation.
void check_model_rules(const std::string& who, const std::string& model,
                       const std::vector<std::string>& pitches, const std::vector<std::string>& variants,
                       const std::string& pitch, const std::string& variant);
/// The pitch or variant text a command plays a model on: the option's text when given, else the
/// first one the checkpoint lists (`listed`: CheckpointMeta's pitches or variants), else
/// `fallback` ("8x10", "standard"). bot, ladder, serve and export --single-file choose alike.
inline std::string rules_choice(const std::string& option, const std::vector<std::string>& listed,
                                const char* fallback) {
  return !option.empty() ? option : listed.empty() ? std::string(fallback) : listed[0];
}
void register_serve_command(CLI::App& app);  // serve
void register_teacher_command(CLI::App& app);  // teacher (apps/cmd_teacher.cpp)

/// The size and goal of a `--pitch` spec (parse_pitch_spec: WxL, or WxLgG; goal 2 where the spec
/// names none). Throws std::invalid_argument starting "--pitch: " for bad text.
inline PitchChoice pitch_option_spec(const std::string& spec) {
  try {
    return parse_pitch_spec(spec);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--pitch: ") + e.what());
  }
}

/// The pitch of a `--pitch` option (parse_pitch_spec: WxL, or WxLgG) with goal width `goal`
/// (the `--goal` option) unless the spec names its own. Throws std::invalid_argument naming the
/// option: --pitch for bad text or an impossible size, both for a spec whose goal differs from
/// a `--goal` other than 2, --goal for a goal the pitch cannot have.
inline const Pitch& pitch_option(const std::string& spec, int goal) {
  PitchChoice p = pitch_option_spec(spec);  // the size and the spec's own goal; goal 2 fits every size
  if (!pitch_spec_has_goal(spec)) {
    p.goal = goal;
  } else if (p.goal != goal && goal != 2) {
    throw std::invalid_argument("--pitch " + quoted_text(spec) + " and --goal " + std::to_string(goal) +
                                " name different goals");
  }
  try {
    return Pitch::get(p.width, p.length, p.goal);
  } catch (const std::invalid_argument& e) {  // the goal does not fit the pitch: --goal's fault
    throw std::invalid_argument("--goal " + std::to_string(goal) + ": " + e.what());
  }
}

/// CLI11 check of a file-or-name option: an empty value is refused ("an empty name: give a
/// WANT"), not taken as "not given" (an empty name once meant the default without a word).
inline CLI::Validator non_empty_name(const std::string& want) {
  return CLI::Validator(
      [want](std::string& s) { return s.empty() ? "an empty name: give a " + want : std::string(); }, "");
}

/// CLI11 checks of integer options that give clear messages (CLI11's own number checks print
/// the range as doubles). `unlimited`: also accept -1, meaning "no limit".
inline CLI::Validator integer_at_least(long long minimum, bool unlimited = false) {
  const std::string want =
      "an integer >= " + std::to_string(minimum) + (unlimited ? ", or -1 for no limit" : "");
  return CLI::Validator(
      [minimum, unlimited, want](std::string& s) -> std::string {
        long long v = 0;
        size_t used = 0;
        try {
          v = std::stoll(s, &used);
        } catch (const std::out_of_range&) {
          // Digits beyond 64 bits: a number out of range, not a word; "-" and "x" suffixes are not.
          const size_t digits = s[0] == '-' || s[0] == '+' ? 1 : 0;
          if (s.size() > digits && s.find_first_not_of("0123456789", digits) == std::string::npos)
            return quoted_text(s) + " is out of range: expected " + want +
                   (s[0] == '-' ? std::string()
                                : " (at most " + std::to_string(std::numeric_limits<long long>::max()) + ")");
          used = 0;
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != s.size() || (v < minimum && !(unlimited && v == -1)))
          return quoted_text(s) + " is not allowed here: expected " + want;
        return "";
      },
      unlimited ? "-1 or >= " + std::to_string(minimum) : ">= " + std::to_string(minimum));
}

/// CLI11 check of a number option in [minimum, maximum] (T integral: an integer). Replaces
/// CLI::Range, which said "Value abc not in range 1 to 100000" for a value that is no number at
/// all: this says "'abc' is not an integer" (or "is not a number"), and for a number out of
/// range (an integer too long for 64 bits, NaN included) "'0' is out of range: expected an
/// integer in [1, 100000]". CLI11 prefixes the option's name.
template <class T>
CLI::Validator in_range(T minimum, T maximum) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
  std::ostringstream range;
  range << "[" << minimum << ", " << maximum << "]";
  const std::string kind = std::is_integral_v<T> ? "an integer" : "a number";
  return CLI::Validator(
      [minimum, maximum, kind, range = range.str()](std::string& s) -> std::string {
        size_t used = 0;
        bool out_of_range = false;
        long double v = 0;
        try {
          v = std::is_integral_v<T> ? (long double)(std::stoll(s, &used)) : std::stold(s, &used);
        } catch (const std::out_of_range&) {
          out_of_range = true;
          used = s.size();
        } catch (const std::exception&) {
          used = 0;
        }
        // stoll/stold skip leading blanks; CLI11 hands over the text as typed.
        if (used == 0 || used != s.size() || s.empty() || std::isspace((unsigned char)s[0]))
          return quoted_text(s) + " is not " + kind;
        // A floating bound is compared as T reads the text: 0.01 as a long double is below the
        // double 0.01, which would refuse the bound itself.
        const bool inside = std::is_integral_v<T> ? v >= (long double)minimum && v <= (long double)maximum
                                                  : T(v) >= minimum && T(v) <= maximum;
        if (out_of_range || !inside)
          return quoted_text(s) + " is out of range: expected " + kind + " in " + range;
        return "";
      },
      std::string(std::is_integral_v<T> ? "INT" : "FLOAT") + " in " + range.str());
}

/// CLI11 check that runs `check(value)`: what it throws (a std::exception) is the message, so
/// a bad value is a usage error (exit 2) that names the option before anything runs. The
/// checks below are the ones the command would make later, moved to parsing.
template <class F>
CLI::Validator checked_by(F check, const std::string& description = "") {
  return CLI::Validator(
      [check](std::string& s) -> std::string {
        try {
          check(s);
        } catch (const std::exception& e) {
          return e.what();
        }
        return "";
      },
      description);
}

/// --pitch: WxL or WxLgG of a pitch that exists (parse_pitch_spec, Pitch::get).
inline CLI::Validator pitch_check() {
  return checked_by([](const std::string& s) {
    const PitchChoice c = parse_pitch_spec(s);
    (void)Pitch::get(c.width, c.length, c.goal);
  });
}

/// --variant: standard, single-bounce or no-bounce (parse_variant).
inline CLI::Validator variant_check() {
  return checked_by([](const std::string& s) { (void)parse_variant(s); });
}

/// --device: the form cpu, cuda or cuda:N (nn::is_device_name). Whether the device exists is
/// checked where the network is loaded (nn/net.h parse_device, which needs LibTorch).
inline CLI::Validator device_check() {
  return checked_by([](const std::string& s) {
    if (!nn::is_device_name(s))
      throw std::invalid_argument(quoted_text(s) + " is not a device: expected cpu, cuda or cuda:N");
  });
}

/// An even integer option (games with colours swapped): CLI11 runs it after integer_at_least.
inline CLI::Validator even_integer() {
  return checked_by([](const std::string& s) {
    if (std::stoll(s) % 2 != 0)
      throw std::invalid_argument(
          quoted_text(s) + " is odd: expected an even number (each opening is played with both colours)");
  });
}

}  // namespace ps::cmd
