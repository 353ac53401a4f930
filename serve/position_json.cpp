#include "serve/position_json.h"

#include "engine/render.h"

namespace ps::serve {

Json point_json(const Pitch& pitch, int p) { return Json::array({pitch.x_of(p), pitch.y_of(p)}); }

Json result_json(const Game& game) {
  const Position& pos = game.position();
  if (!pos.game_over()) return nullptr;
  const int winner = pos.winner();
  std::string reason = reason_name(pos.reason()), text;
  if (pos.reason() == Reason::kGoal) {
    const int kicker = game.kicks().empty() ? winner : game.kicks().back().player;
    if (kicker != winner) reason = "own goal";
    text = reason == "own goal" ? "player " + std::to_string(kicker) + " kicked the ball into their own goal"
                                : "player " + std::to_string(winner) + " scored";
  } else {
    text = "player " + std::to_string(1 - winner) + " cannot kick: the ball is blocked";
  }
  return {{"winner", winner}, {"reason", reason}, {"text", text}};
}

namespace {

Json legal_json(const Position& pos) {
  Json legal = Json::array();
  for (int d = 0; d < kNumDirs; ++d) {
    if (!pos.is_legal(d)) continue;
    Position next = pos;
    next.make_kick(d);
    const bool again = !next.game_over() && next.side_to_move() == pos.side_to_move();
    legal.push_back({{"dir", d},
                     {"to", point_json(pos.pitch(), next.ball())},
                     {"again", again},
                     {"ends", next.game_over()}});
  }
  return legal;
}

}  // namespace

Json position_json(const Game& game) {
  const Position& pos = game.position();
  const Pitch& pitch = pos.pitch();
  SvgOptions opt;
  opt.unit = kBoardUnit;
  const SvgGeometry geo = svg_geometry(pitch, opt);
  return {{"svg", render_svg(game, opt)},
          {"geometry",
           {{"unit", geo.unit}, {"left", geo.left}, {"top", geo.top}, {"width", geo.width},
            {"height", geo.height}}},
          {"pitch", pitch.name()},
          {"variant", variant_name(pos.variant())},
          {"ball", point_json(pitch, pos.ball())},
          {"side_to_move", pos.side_to_move()},
          {"kicks_in_turn", pos.kicks_in_turn()},
          {"num_kicks", pos.num_kicks()},
          {"legal", legal_json(pos)},
          {"result", result_json(game)}};
}

Json record_json(const Game& game, const std::map<std::string, std::string>& tags) {
  std::string flat;
  Json turn_ends = Json::array();
  for (const std::string& t : game.turns()) {
    flat += t;
    turn_ends.push_back(flat.size());
  }
  return {{"record", game.record()},
          {"kicks", flat},
          {"turn_ends", turn_ends},
          {"pgn", write_pgn(game, tags)}};
}

}  // namespace ps::serve
