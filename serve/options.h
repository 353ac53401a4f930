// Options of `papersoccer serve` (apps/cmd_serve.cpp) and of the in-process server of the tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace ps::serve {

struct ServeOptions {
  std::string host = "127.0.0.1";  ///< interface to bind; 0.0.0.0 exposes the server to the network
  int port = 8080;                 ///< 0: any free port (start() returns it)
  std::string model;               ///< model file or checkpoint for mcts and analysis; "": none
  /// The evaluation of the mcts opponent's alpha-beta as `--value-net` names it (a .vnet file,
  /// none, hand; search/bot_player.h's BotSpec::value_net); a .vnet is used in games of its rules
  /// only. "": in every game the bot's own rule, the value net of the game's rules
  /// (value_nets), else the random evaluation.
  std::string value_net;
  /// The shipped small value nets, by rules: "<WxL>/<variant>" -> .vnet (`serve` fills it with
  /// the shipped models/<WxL>-<variant>.vnet found). The bot opponent plays with them (rules not
  /// listed: the random evaluation, search/bot_player.h's one rule) and the alpha-beta analysis
  /// searches with them (rules not listed: the hand evaluation, whose scores read as positions'
  /// values where random ones would read as nothing).
  std::map<std::string, std::string> value_nets;
  std::string device = "cpu";      ///< where the network runs
  std::string runs_dir = "runs";   ///< run directories offered for review live below this
  size_t max_games = 64;           ///< games kept; the least recently used is evicted beyond
  size_t max_request_bytes = 256 * 1024;  ///< larger request bodies are refused (413)
  int search_threads = 2;          ///< threads running bot turns and analyses
  size_t max_queued = 16;          ///< searches waiting for a thread; more are refused (503)
  /// Threads answering requests. A request that waits for its search holds one, and up to
  /// search_threads + max_queued (18) can wait at once: with 32 the other requests still find
  /// a free thread (with 8, GET /api/info took 8-23 s behind 12 slow analyses).
  int http_threads = 32;
  int64_t max_time_ms = 30000;     ///< longest time per bot turn or analysis a request may ask
  int64_t max_visits = 20000;      ///< most visits per bot turn or analysis a request may ask
};

}  // namespace ps::serve
