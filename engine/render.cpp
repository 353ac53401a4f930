#include "engine/render.h"

#include <cstdio>
#include <sstream>
#include <vector>

namespace ps {

std::string render_ascii(const Position& pos) {
  const Pitch& pitch = pos.pitch();
  const int gw = pitch.grid_width(), gh = pitch.grid_height();
  const int cols = 4 * (gw - 1) + 1, rows = 2 * (gh - 1) + 1;
  std::vector<std::string> canvas(size_t(rows), std::string(size_t(cols), ' '));
  auto put = [&](int r, int c, char ch) {
    char& cell = canvas[size_t(r)][size_t(c)];
    if ((cell == '/' && ch == '\\') || (cell == '\\' && ch == '/')) cell = 'X';
    else cell = ch;
  };
  for (int p = 0; p < pitch.num_points(); ++p) {
    if (!pitch.is_ball_point(p)) continue;
    const int r = 2 * (pitch.y_of(p) + 1), c = 4 * pitch.x_of(p);
    for (int d = kE; d <= kSW; ++d) {
      if (!pos.is_drawn(p, d)) continue;
      if (d == kE) { put(r, c + 1, '-'); put(r, c + 2, '-'); put(r, c + 3, '-'); }
      if (d == kS) put(r + 1, c, '|');
      if (d == kSE) put(r + 1, c + 2, '\\');
      if (d == kSW) put(r + 1, c - 2, '/');
    }
  }
  for (int p = 0; p < pitch.num_points(); ++p) {
    if (!pitch.is_ball_point(p)) continue;
    const int r = 2 * (pitch.y_of(p) + 1), c = 4 * pitch.x_of(p);
    canvas[size_t(r)][size_t(c)] = p == pos.ball() ? '@' : pos.touched(p) ? '+' : '.';
  }
  std::ostringstream os;
  for (auto& row : canvas) {
    size_t end = row.find_last_not_of(' ');
    os << "  " << (end == std::string::npos ? "" : row.substr(0, end + 1)) << '\n';
  }
  os << "  " << pitch.name() << " " << variant_name(pos.variant()) << ", kicks " << pos.num_kicks()
     << ": ";
  if (pos.game_over())
    os << "player " << pos.winner() << " won (" << reason_name(pos.reason()) << ")\n";
  else
    os << "player " << pos.side_to_move() << " to kick"
       << (pos.turn_start() ? "" : " again (bounce)") << ", attacking "
       << (pos.side_to_move() == 0 ? "north" : "south") << "\n";
  return os.str();
}

SvgGeometry svg_geometry(const Pitch& pitch, const SvgOptions& opt) {
  SvgGeometry g;
  g.unit = opt.unit;
  g.left = opt.unit * 0.8;
  g.top = g.left + (opt.title.empty() ? 0 : opt.unit * 0.8);
  g.width = pitch.width() * g.unit + 2 * g.left;
  g.height = (pitch.length() + 2) * g.unit + g.top + g.left;
  return g;
}

namespace {

const char* kPlayerColour[2] = {"#e0457b", "#2f6fd0"};
const char* kGoalShade[2] = {"#f7c6d8", "#c8daf6"};

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Long (about 90 lines): the picture drawn layer by layer (pitch, goals, grid, segments, ball,
// labels) into one stream, each layer a few lines.
// kicks == nullptr: no history, segments in a neutral colour.
std::string svg_impl(const Position& pos, const std::vector<KickEvent>* kicks,
                     const SvgOptions& opt) {
  const Pitch& pitch = pos.pitch();
  const SvgGeometry geo = svg_geometry(pitch, opt);
  const double u = geo.unit, margin = geo.left, width = geo.width, height = geo.height;
  auto X = [&](int x) { return geo.px(x); };
  auto Y = [&](int y) { return geo.py(y); };
  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << fmt(width) << "\" height=\""
     << fmt(height) << "\" viewBox=\"0 0 " << fmt(width) << ' ' << fmt(height)
     << "\" font-family=\"sans-serif\">\n";
  os << "<rect x=\"0\" y=\"0\" width=\"" << fmt(width) << "\" height=\"" << fmt(height)
     << "\" fill=\"#fbfaf5\"/>\n";
  if (!opt.title.empty())
    os << "<text x=\"" << fmt(width / 2) << "\" y=\"" << fmt(margin + u * 0.3)
       << "\" text-anchor=\"middle\" font-size=\"" << fmt(u * 0.45) << "\">" << opt.title
       << "</text>\n";
  // Pitch and goal pockets; each goal shaded in its defender's colour (north goal: player 1).
  const int gx0 = pitch.width() / 2 - pitch.goal() / 2;
  os << "<rect x=\"" << fmt(X(0)) << "\" y=\"" << fmt(Y(0)) << "\" width=\""
     << fmt(pitch.width() * u) << "\" height=\"" << fmt(pitch.length() * u)
     << "\" fill=\"#eef5e9\"/>\n";
  os << "<rect x=\"" << fmt(X(gx0)) << "\" y=\"" << fmt(Y(-1)) << "\" width=\""
     << fmt(pitch.goal() * u) << "\" height=\"" << fmt(u) << "\" fill=\"" << kGoalShade[1]
     << "\"/>\n";
  os << "<rect x=\"" << fmt(X(gx0)) << "\" y=\"" << fmt(Y(pitch.length())) << "\" width=\""
     << fmt(pitch.goal() * u) << "\" height=\"" << fmt(u) << "\" fill=\"" << kGoalShade[0]
     << "\"/>\n";
  // Grid dots.
  os << "<g fill=\"#b9c2b0\">\n";
  for (int p = 0; p < pitch.num_points(); ++p)
    if (pitch.is_ball_point(p))
      os << "<circle cx=\"" << fmt(X(pitch.x_of(p))) << "\" cy=\"" << fmt(Y(pitch.y_of(p)))
         << "\" r=\"" << fmt(u * 0.05) << "\"/>\n";
  os << "</g>\n";
  // Walls.
  os << "<g stroke=\"#3b4252\" stroke-width=\"" << fmt(u * 0.09) << "\" stroke-linecap=\"round\">\n";
  for (int p = 0; p < pitch.num_points(); ++p)
    for (int d = kE; d <= kSW; ++d)
      if ((pitch.wall_dirs(p) >> d) & 1) {
        int q = p + pitch.dir_offset(d);
        os << "<line x1=\"" << fmt(X(pitch.x_of(p))) << "\" y1=\"" << fmt(Y(pitch.y_of(p)))
           << "\" x2=\"" << fmt(X(pitch.x_of(q))) << "\" y2=\"" << fmt(Y(pitch.y_of(q)))
           << "\"/>\n";
      }
  os << "</g>\n";
  // Drawn segments.
  auto line = [&](int p, int q, const char* colour, double w, double opacity) {
    os << "<line x1=\"" << fmt(X(pitch.x_of(p))) << "\" y1=\"" << fmt(Y(pitch.y_of(p)))
       << "\" x2=\"" << fmt(X(pitch.x_of(q))) << "\" y2=\"" << fmt(Y(pitch.y_of(q)))
       << "\" stroke=\"" << colour << "\" stroke-width=\"" << fmt(w) << "\" stroke-opacity=\""
       << fmt(opacity) << "\" stroke-linecap=\"round\"/>\n";
  };
  if (kicks) {
    // Start of the last turn: the last kick whose mover differs from the one before it.
    size_t last_turn = kicks->size();
    if (opt.highlight_last_turn && !kicks->empty()) {
      last_turn = kicks->size() - 1;
      // Players strictly alternate between turns, so the last turn is the trailing run of
      // kicks by the last kicker.
      while (last_turn > 0 && (*kicks)[last_turn - 1].player == kicks->back().player) --last_turn;
    }
    for (size_t i = 0; i < kicks->size(); ++i) {
      const KickEvent& k = (*kicks)[i];
      int q = k.from + pitch.dir_offset(k.dir);
      bool recent = i >= last_turn;
      line(k.from, q, kPlayerColour[k.player], u * (recent ? 0.11 : 0.07), recent ? 1.0 : 0.8);
    }
  } else {
    for (int p = 0; p < pitch.num_points(); ++p)
      for (int d = kE; d <= kSW; ++d)
        if (pos.is_drawn(p, d) && !((pitch.wall_dirs(p) >> d) & 1))
          line(p, p + pitch.dir_offset(d), "#555555", u * 0.07, 0.9);
  }
  // Ball.
  const char* ring = pos.game_over() ? kPlayerColour[pos.winner()] : kPlayerColour[pos.side_to_move()];
  os << "<circle cx=\"" << fmt(X(pitch.x_of(pos.ball()))) << "\" cy=\""
     << fmt(Y(pitch.y_of(pos.ball()))) << "\" r=\"" << fmt(u * 0.2)
     << "\" fill=\"#ffffff\" stroke=\"" << ring << "\" stroke-width=\"" << fmt(u * 0.08)
     << "\"/>\n";
  if (opt.show_coordinates) {
    os << "<g font-size=\"" << fmt(u * 0.3) << "\" fill=\"#7a7f87\">\n";
    for (int x = 0; x <= pitch.width(); ++x)
      os << "<text x=\"" << fmt(X(x)) << "\" y=\"" << fmt(height - margin * 0.3)
         << "\" text-anchor=\"middle\">" << x << "</text>\n";
    for (int y = 0; y <= pitch.length(); ++y)
      os << "<text x=\"" << fmt(margin * 0.35) << "\" y=\"" << fmt(Y(y) + u * 0.1)
         << "\" text-anchor=\"middle\">" << y << "</text>\n";
    os << "</g>\n";
  }
  os << "</svg>\n";
  return os.str();
}

}  // namespace

std::string render_svg(const Game& game, const SvgOptions& options) {
  return svg_impl(game.position(), &game.kicks(), options);
}

std::string render_svg(const Position& pos, const SvgOptions& options) {
  return svg_impl(pos, nullptr, options);
}

}  // namespace ps
