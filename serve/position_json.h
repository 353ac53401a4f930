// Positions and games as the API returns them: the board as the engine draws it (render_svg)
// with the geometry to draw over it, the kicks legal from the ball, the result with its reason,
// and the record as text and PGN.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/record.h"

namespace ps::serve {

using Json = nlohmann::json;

/// The drawing unit of the API's boards (pixels per square).
constexpr double kBoardUnit = 36.0;

/// null while the game goes on; else {winner, reason: "goal" | "own goal" | "blocked", text}.
Json result_json(const Game& game);

/// The current position of game: {svg, geometry {unit, left, top, width, height}, ball [x, y],
/// side_to_move, kicks_in_turn (> 0: a bounce, the same player kicks again), num_kicks,
/// legal [{dir, to [x, y], again (the kicker keeps the turn), ends (the game ends)}], result}.
Json position_json(const Game& game);

/// The record of game: {record (turns), kicks (flat digits), turn_ends (kick counts at which
/// each turn ends), pgn (with `tags`)}.
Json record_json(const Game& game, const std::map<std::string, std::string>& tags = {});

/// [x, y] of point p.
Json point_json(const Pitch& pitch, int p);

}  // namespace ps::serve
