// Each subcommand registers itself on the CLI11 app (one file per command family).
#pragma once

#include <CLI/CLI.hpp>

namespace ps::cmd {

void register_engine_commands(CLI::App& app);  // replay, turns, perft, show
void register_bench_command(CLI::App& app);    // bench
void register_tournament_commands(CLI::App& app);  // tournament, play
void register_bench_nn_command(CLI::App& app);  // bench nn (after register_bench_command)
void register_bench_search_command(CLI::App& app);  // bench search (after register_bench_command)
void register_bench_selfplay_command(CLI::App& app);  // bench selfplay (after register_bench_command)
void register_report_command(CLI::App& app);  // report RUNDIR
void register_run_commands(CLI::App& app);  // run, selfplay, train, export
void register_bot_command(CLI::App& app);   // bot

}  // namespace ps::cmd
