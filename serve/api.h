// The JSON API's handlers, one function per endpoint (routes in server.cpp, documented in the
// README). Each takes the parsed request body and returns the response body; bad input throws
// ApiError.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "serve/analyst.h"
#include "serve/engine_analyst.h"
#include "serve/game_table.h"
#include "serve/job_pool.h"
#include "serve/model_info.h"
#include "serve/options.h"

namespace ps::serve {

using Json = nlohmann::json;

/// Everything the handlers share. Thread-safe: each member guards itself.
struct ApiContext {
  ApiContext(const ServeOptions& o, ModelInfo m, std::shared_ptr<Evaluator> net)
      : options(o),
        model(std::move(m)),
        games(o.max_games),
        analyst(std::move(net), 2, 2 * o.max_visits),
        engine(o.value_nets),
        jobs(o.search_threads, o.max_queued) {}
  const ServeOptions options;
  const ModelInfo model;
  GameTable games;
  Analyst analyst;             ///< the network's PUCT (with a model)
  const EngineAnalyst engine;  ///< alpha-beta with the value net (always)
  JobPool jobs;  ///< last: destroyed first, so no job outlives what it uses
};

// api_games.cpp
Json api_info(ApiContext& ctx);
Json api_new_game(ApiContext& ctx, const Json& body);
Json api_game(ApiContext& ctx, const std::string& id);
Json api_kick(ApiContext& ctx, const std::string& id, const Json& body);
Json api_bot(ApiContext& ctx, const std::string& id, const Json& body);
Json api_undo(ApiContext& ctx, const std::string& id, const Json& body);

// api_analysis.cpp
Json api_position(ApiContext& ctx, const Json& body);
Json api_analyse(ApiContext& ctx, const Json& body);

// api_review.cpp
Json api_review(ApiContext& ctx, const Json& body);
Json api_runs(ApiContext& ctx, const Json& body);

}  // namespace ps::serve
