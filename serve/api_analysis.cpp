// Looking at positions: any position of a game (by id or by record) and its analysis.
#include <chrono>
#include <future>
#include <vector>

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
  check_fields(body, {"game", "record", "kicks", "pitch", "variant", "at_kick"});
  const Game g = requested_game(ctx, body);
  return {{"position", position_json(g)}, {"record", record_json(g)}};
}

// Runs fn on the job pool, never on this HTTP thread, and waits for it up to its time and a
// margin: 503 when the queue is full or the search is late.
template <class Fn>
Json on_job_pool(ApiContext& ctx, int64_t time_ms, Fn fn) {
  auto done = std::make_shared<std::promise<Json>>();
  std::future<Json> result = done->get_future();
  if (!ctx.jobs.submit([done, fn] {
        try {
          done->set_value(fn());
        } catch (...) {
          done->set_exception(std::current_exception());
        }
      }))
    throw ApiError(503, "the server is busy: too many searches queued; try again shortly");
  const int64_t limit = time_ms > 0 ? time_ms : ctx.options.max_time_ms;
  if (result.wait_for(std::chrono::milliseconds(limit + 10000)) != std::future_status::ready)
    throw ApiError(503, "the analysis did not finish in time; the server is busy");
  return result.get();
}

// "engine": "alphabeta" (the default: the shipped bot's search, serve/engine_analyst.h) or
// "puct" (the network's search, with a model: serve/analyst.h).
Json api_analyse(ApiContext& ctx, const Json& body) {
  // The search's fields first: a refused request does not touch the game it names.
  check_fields(body, {"engine", "game", "record", "kicks", "pitch", "variant", "at_kick", "time_ms", "lines",
                      "pv_turns", "visits", "top", "fresh"});
  const std::string engine = get_string(body, "engine", "alphabeta", 16);
  if (engine != "alphabeta" && engine != "puct")
    throw bad_request("field 'engine': must be alphabeta or puct, not '" + engine + "'");
  // A field of the other engine would be read by nothing: refused, naming it.
  for (const char* key : engine == "alphabeta" ? std::vector<const char*>{"visits", "top", "fresh"}
                                               : std::vector<const char*>{"lines"})
    if (body.is_object() && body.contains(key))
      throw bad_request(
          std::string("field '") + key + "': is read by engine '" +
          (engine == "alphabeta" ? "puct" : "alphabeta") + "', not '" + engine +
          "' (alphabeta: time_ms, lines, pv_turns; puct: visits, time_ms, top, pv_turns, fresh)");
  if (engine == "alphabeta") {
    EngineRequest r;
    r.time_ms = get_int(body, "time_ms", r.time_ms, 1, ctx.options.max_time_ms);
    r.lines = int(get_int(body, "lines", r.lines, 1, 8));
    r.pv_turns = int(get_int(body, "pv_turns", r.pv_turns, 1, 64));
    const Game g = requested_game(ctx, body);
    const Position pos = g.position();
    const EngineAnalyst& engine_analyst = ctx.engine;
    Json out =
        on_job_pool(ctx, r.time_ms, [pos, r, &engine_analyst] { return engine_analyst.analyse(pos, r); });
    out["num_kicks"] = g.kicks().size();
    return out;
  }
  AnalyseRequest r;
  r.visits = get_int(body, "visits", r.visits, 0, ctx.options.max_visits);
  r.time_ms = get_int(body, "time_ms", r.time_ms, -1, ctx.options.max_time_ms);
  if (r.time_ms == 0) throw bad_request("field 'time_ms' must be positive, or -1 for no limit");
  if (r.time_ms < 0 && r.visits > 0) r.time_ms = ctx.options.max_time_ms;  // "no limit" is the server's
  r.top = size_t(get_int(body, "top", int64_t(r.top), 1, 256));
  r.pv_turns = int(get_int(body, "pv_turns", r.pv_turns, 0, 64));
  r.fresh = get_bool(body, "fresh", false);
  if (!ctx.analyst.available())
    throw bad_request(
        "engine 'puct' needs a model: start the server with --model FILE (engine 'alphabeta' needs none)");
  const Game g = requested_game(ctx, body);
  if (!ctx.model.supports(g.start().pitch(), g.start().variant()))
    throw bad_request("engine 'puct': the model " + ctx.model.path + " is for " + ctx.model.rules_text() +
                      ", not " + g.start().pitch().name() + " " + variant_name(g.start().variant()) +
                      " (engine 'alphabeta' analyses every rule)");
  const Position pos = g.position();
  Analyst& analyst = ctx.analyst;
  Json out = on_job_pool(ctx, r.time_ms, [pos, r, &analyst] { return analyst.analyse(pos, r); });
  out["engine"] = "puct";
  out["num_kicks"] = g.kicks().size();
  return out;
}

}  // namespace ps::serve
