// The `bot` command's options, and its play without a network: alpha-beta over the small value
// net (search/alphabeta.h, valuenet/value_net_eval.h), the same search the single file of a .vnet
// (`export --single-file`) plays. This part needs no LibTorch, so the `papersoccer` front
// (apps/front.cpp) answers `bot` without loading it: the first answer comes within milliseconds
// of the process start instead of after LibTorch's ~0.5 s. `bot` with a MODEL, --visits, --config
// or a device other than cpu loads the network (apps/cmd_bot.cpp, in papersoccer-torch).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "tournament/protocol.h"

namespace ps::cmd {

struct BotArgs {
  std::string model, device = "cpu", pitch_text, variant_text, config, value_net;
  int64_t first_ms = tour::kProtocolFirstTurnMs, turn_ms = tour::kProtocolTurnMs, safety_ms = 40,
          search_margin_ms = 10, visits = -1, nodes = -1;
};

/// The `bot` subcommand of app with every option, writing into a (which must outlive the app).
/// Both executables register it so (apps/front.cpp, apps/cmd_bot.cpp) and add their callback.
CLI::App* add_bot_command(CLI::App& app, BotArgs& a);

/// Whether these options need the network: a MODEL, --visits, --config or a device other than
/// cpu. Without them `bot` plays alpha-beta with the value net (run_alphabeta_bot).
bool bot_needs_network(const BotArgs& a);

/// Throws std::invalid_argument when --safety-ms (with --search-margin-ms) leaves the search no
/// time within --first-ms or --turn-ms.
void check_bot_margins(const BotArgs& a);

/// The protocol loop's options from a's times, for a player on these rules with `visits` per
/// turn (-1: none): the first answer's limit counts from this process's start (the referee
/// writes the first lines at once, so its clock may start with the process).
tour::ProtocolBotOptions bot_protocol_options(const BotArgs& a, const Pitch& pitch, Variant variant,
                                              int64_t visits);

/// Plays the protocol on stdin/stdout with the shipped bot without a network
/// (search/bot_player.h's make_bot_player): alpha-beta over --value-net (default: the shipped
/// models/<pitch>-<variant>.vnet, else the random evaluation; none: the random evaluation; hand:
/// the hand evaluation). Throws std::invalid_argument for bad options or a value net it cannot
/// play (unreadable, or of other rules; naming the flag or the shipped file), ProtocolError for
/// bad input.
void run_alphabeta_bot(const BotArgs& a);

}  // namespace ps::cmd
