// Looking at positions: any position of a game (by id or by record) and its analysis.
#include <chrono>
#include <future>

#include "serve/api.h"
#include "serve/api_error.h"
#include "serve/position_json.h"
#include "serve/request.h"

namespace ps::serve {

namespace {

// The game a request names: "game" (an id: that game as it stands) or its rules and record;
// cut after "at_kick" kicks when given.
Game requested_game(ApiContext& ctx, const Json& body) {
  const std::string id = get_string(body, "game", "", 64);
  const int64_t at = get_int(body, "at_kick", -1, -1, 1 << 20);
  if (id.empty()) return cut_at_kick(get_game(body, ctx.options.max_request_bytes), at);
  auto s = ctx.games.get(id);
  std::lock_guard<std::mutex> lock(s->mu);
  return cut_at_kick(s->game, at);
}

}  // namespace

Json api_position(ApiContext& ctx, const Json& body) {
  const Game g = requested_game(ctx, body);
  return {{"position", position_json(g)}, {"record", record_json(g)}};
}

Json api_analyse(ApiContext& ctx, const Json& body) {
  // The search's fields first: a refused request does not touch the game it names.
  AnalyseRequest r;
  r.visits = get_int(body, "visits", r.visits, 0, ctx.options.max_visits);
  r.time_ms = get_int(body, "time_ms", r.time_ms, -1, ctx.options.max_time_ms);
  if (r.time_ms == 0) throw bad_request("field 'time_ms' must be positive, or -1 for no limit");
  if (r.time_ms < 0 && r.visits > 0) r.time_ms = ctx.options.max_time_ms;  // "no limit" is the server's
  r.top = size_t(get_int(body, "top", int64_t(r.top), 1, 256));
  r.pv_turns = int(get_int(body, "pv_turns", r.pv_turns, 0, 64));
  r.fresh = get_bool(body, "fresh", false);
  if (!ctx.analyst.available()) throw bad_request("no model: start the server with --model FILE to analyse");
  const Game g = requested_game(ctx, body);
  // The search runs on the job pool, never on this HTTP thread.
  auto done = std::make_shared<std::promise<Json>>();
  std::future<Json> result = done->get_future();
  const Position pos = g.position();
  Analyst& analyst = ctx.analyst;
  if (!ctx.jobs.submit([done, pos, r, &analyst] {
        try {
          done->set_value(analyst.analyse(pos, r));
        } catch (...) {
          done->set_exception(std::current_exception());
        }
      }))
    throw ApiError(503, "the server is busy: too many searches queued; try again shortly");
  const int64_t limit = r.time_ms > 0 ? r.time_ms : ctx.options.max_time_ms;
  if (result.wait_for(std::chrono::milliseconds(limit + 10000)) != std::future_status::ready)
    throw ApiError(503, "the analysis did not finish in time; the server is busy");
  Json out = result.get();
  out["num_kicks"] = g.kicks().size();
  return out;
}

}  // namespace ps::serve
