// Pictures of positions: an ASCII board for terminals and an SVG drawing for reports and tools.
#pragma once

#include <string>

#include "engine/position.h"
#include "engine/record.h"

namespace ps {

/// ASCII board, north up: '@' ball, '+' touched point, '.' untouched point, '-' '|' '/' '\'
/// drawn segments ('X' where both diagonals of a square are drawn), goal rows included.
/// Ends with a status line (side to move / result).
std::string render_ascii(const Position& pos);

struct SvgOptions {
  double unit = 36.0;           ///< pixels per grid square
  bool highlight_last_turn = true;
  bool show_coordinates = false;
  std::string title;            ///< drawn above the pitch when not empty
};

/// Where render_svg puts things, so tools can draw over its picture: point (x, y) is at pixel
/// (left + x * unit, top + (y + 1) * unit); the picture is width x height pixels.
struct SvgGeometry {
  double unit = 0, left = 0, top = 0, width = 0, height = 0;
  double px(int x) const { return left + x * unit; }
  double py(int y) const { return top + (y + 1) * unit; }
};
SvgGeometry svg_geometry(const Pitch& pitch, const SvgOptions& options = {});

/// SVG picture of the game's current position: pitch, walls, goals shaded in the colour of the
/// player defending them, drawn segments coloured by who kicked them (player 0 pink, player 1
/// blue), the last turn emphasised, and the ball. A self-contained <svg> element.
std::string render_svg(const Game& game, const SvgOptions& options = {});
/// Same for a bare position: segments drawn in a neutral colour (no history).
std::string render_svg(const Position& pos, const SvgOptions& options = {});

}  // namespace ps
