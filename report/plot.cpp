#include "report/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "report/palette.h"

namespace ps::report {

namespace {

using namespace palette;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Step of 1, 2 or 5 x 10^k near range / target, at least min_step.
double nice_step(double range, int target, double min_step) {
  const double raw = range / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double r = raw / mag;
  const double nice = r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10;
  return std::max(nice * mag, min_step);
}

std::vector<double> ticks_with_step(double lo, double hi, double step) {
  std::vector<double> out;
  const double start = std::floor(lo / step + 1e-9), end = std::ceil(hi / step - 1e-9);
  for (double i = start; i <= end + 1e-9 && out.size() < 200; i += 1) {
    double v = i * step;
    if (std::fabs(v) < step * 1e-9) v = 0;
    out.push_back(v);
  }
  return out;
}

void widen(double& lo, double& hi) {
  if (hi > lo) return;
  const double d = lo != 0 ? std::fabs(lo) * 0.1 : 1.0;
  lo -= d;
  hi += d;
}

}  // namespace

std::string escape_xml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {};
  if (lo > hi) std::swap(lo, hi);
  widen(lo, hi);
  return ticks_with_step(lo, hi, nice_step(hi - lo, target, 0));
}

std::string tick_label(double value, double step) {
  char buf[48];
  if (step >= 1000 && std::fmod(step, 1000) == 0 && std::fabs(value) >= 1000) {
    std::snprintf(buf, sizeof buf, "%.0fk", value / 1000);
  } else {
    int decimals = step >= 1 ? 0 : int(std::ceil(-std::log10(step) - 1e-9));
    std::snprintf(buf, sizeof buf, "%.*f", std::clamp(decimals, 0, 6), value);
  }
  std::string s = buf;
  if (!s.empty() && s[0] == '-') {
    if (s.find_first_not_of("-0.") == std::string::npos) s = s.substr(1);  // "-0.0" is 0
    else s = "\u2212" + s.substr(1);                                        // typographic minus
  }
  return s;
}

namespace {

// The plot area in pixels and the data window it shows, with the ticks of both axes.
struct Frame {
  double left = 0, right = 0, top = 0, bottom = 0;  // pixels
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;            // data window
  std::vector<double> xt, yt;                       // ticks
  double X(double v) const { return left + (std::clamp(v, x0, x1) - x0) / (x1 - x0) * (right - left); }
  double Y(double v) const { return bottom - (std::clamp(v, y0, y1) - y0) / (y1 - y0) * (bottom - top); }
  double xstep() const { return xt.size() > 1 ? xt[1] - xt[0] : 1; }
  double ystep() const { return yt.size() > 1 ? yt[1] - yt[0] : 1; }
};

// The range of the finite points (error bars included in y).
struct DataRange {
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  size_t finite = 0;
};

// The ends of point i's error bar, if it has one (Series: lo/hi, else y -+ err).
bool error_bar(const Series& s, size_t i, double& a, double& b) {
  if (i < s.lo.size() && i < s.hi.size()) {
    a = s.lo[i];
    b = s.hi[i];
    return std::isfinite(a) && std::isfinite(b) && a < b;
  }
  if (i >= s.err.size() || !std::isfinite(s.err[i]) || s.err[i] == 0) return false;
  a = s.y[i] - std::fabs(s.err[i]);
  b = s.y[i] + std::fabs(s.err[i]);
  return true;
}

DataRange data_range(const PlotSpec& spec) {
  DataRange r;
  for (const Series& s : spec.series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      ++r.finite;
      r.xlo = std::min(r.xlo, s.x[i]);
      r.xhi = std::max(r.xhi, s.x[i]);
      double a = s.y[i], b = s.y[i];
      (void)error_bar(s, i, a, b);
      r.ylo = std::min({r.ylo, s.y[i], a});
      r.yhi = std::max({r.yhi, s.y[i], b});
    }
  for (const RefLine& ref : spec.refs) {
    if (!std::isfinite(ref.at)) continue;
    if (ref.vertical) {
      r.xlo = std::min(r.xlo, ref.at);
      r.xhi = std::max(r.xhi, ref.at);
    } else {
      r.ylo = std::min(r.ylo, ref.at);
      r.yhi = std::max(r.yhi, ref.at);
    }
  }
  return r;
}

// The data window and ticks of a plot with finite points.
void fit_axes(const PlotSpec& spec, DataRange r, Frame& f) {
  if (spec.x_integer) {
    double a = std::round(r.xlo), b = std::round(r.xhi);
    double step = nice_step(std::max(1.0, b - a), 6, 1.0);
    step = std::max(1.0, std::round(step));
    for (double v : ticks_with_step(a, b, step))
      if (v >= a && v <= b) f.xt.push_back(v);
    f.x0 = a - 0.5;
    f.x1 = b + 0.5;
  } else {
    widen(r.xlo, r.xhi);
    f.xt = ticks_with_step(r.xlo, r.xhi, nice_step(r.xhi - r.xlo, 6, 0));
    f.x0 = f.xt.front();
    f.x1 = f.xt.back();
  }
  if (spec.y_min < spec.y_max) {
    f.y0 = spec.y_min;
    f.y1 = spec.y_max;
    f.yt = ticks_with_step(f.y0, f.y1, nice_step(f.y1 - f.y0, 5, 0));
    f.yt.erase(std::remove_if(f.yt.begin(), f.yt.end(),
                              [&](double v) { return v < f.y0 - 1e-9 || v > f.y1 + 1e-9; }),
               f.yt.end());
  } else {
    if (spec.y_include_zero) {
      r.ylo = std::min(r.ylo, 0.0);
      r.yhi = std::max(r.yhi, 0.0);
    }
    widen(r.ylo, r.yhi);
    f.yt = ticks_with_step(r.ylo, r.yhi, nice_step(r.yhi - r.ylo, 5, 0));
    f.y0 = f.yt.front();
    f.y1 = f.yt.back();
  }
}

// Legend: one row under the title.
void draw_legend(const PlotSpec& spec, double left, std::ostream& os) {
  double lx = left;
  for (const Series& s : spec.series) {
    if (s.name.empty()) continue;
    os << "<line x1=\"" << num(lx) << "\" y1=\"42\" x2=\"" << num(lx + 20) << "\" y2=\"42\" stroke=\""
       << s.colour << "\" stroke-width=\"2.5\"" << (s.dashed ? " stroke-dasharray=\"5 3\"" : "") << "/>\n";
    if (s.markers)
      os << "<circle cx=\"" << num(lx + 10) << "\" cy=\"42\" r=\"3.5\" fill=\"" << s.colour
         << "\" stroke=\"#fff\" stroke-width=\"1.2\"/>\n";
    os << "<text x=\"" << num(lx + 26) << "\" y=\"46\" font-size=\"12\" fill=\"" << kMuted << "\">"
       << escape_xml(s.name) << "</text>\n";
    lx += 26 + 6.6 * double(s.name.size()) + 22;
  }
}

// Gridlines, tick labels and the two axis lines.
void draw_grid(const PlotSpec& spec, const Frame& f, std::ostream& os) {
  os << "<g font-size=\"11\" fill=\"" << kMuted << "\">\n";
  for (double v : f.yt) {
    os << "<line x1=\"" << num(f.left) << "\" y1=\"" << num(f.Y(v)) << "\" x2=\"" << num(f.right)
       << "\" y2=\"" << num(f.Y(v)) << "\" stroke=\"" << kGrid << "\"/>\n";
    std::string label =
        spec.y_percent ? tick_label(v * 100, f.ystep() * 100) + "%" : tick_label(v, f.ystep());
    os << "<text x=\"" << num(f.left - 7) << "\" y=\"" << num(f.Y(v) + 4) << "\" text-anchor=\"end\">"
       << label << "</text>\n";
  }
  for (double v : f.xt) {
    os << "<line x1=\"" << num(f.X(v)) << "\" y1=\"" << num(f.top) << "\" x2=\"" << num(f.X(v)) << "\" y2=\""
       << num(f.bottom) << "\" stroke=\"" << kGrid << "\"/>\n";
    os << "<line x1=\"" << num(f.X(v)) << "\" y1=\"" << num(f.bottom) << "\" x2=\"" << num(f.X(v))
       << "\" y2=\"" << num(f.bottom + 4) << "\" stroke=\"" << kAxis << "\"/>\n";
    os << "<text x=\"" << num(f.X(v)) << "\" y=\"" << num(f.bottom + 17) << "\" text-anchor=\"middle\">"
       << tick_label(v, f.xstep()) << "</text>\n";
  }
  os << "</g>\n";
  os << "<line x1=\"" << num(f.left) << "\" y1=\"" << num(f.bottom) << "\" x2=\"" << num(f.right)
     << "\" y2=\"" << num(f.bottom) << "\" stroke=\"" << kAxis << "\"/>\n";
  os << "<line x1=\"" << num(f.left) << "\" y1=\"" << num(f.top) << "\" x2=\"" << num(f.left) << "\" y2=\""
     << num(f.bottom) << "\" stroke=\"" << kAxis << "\"/>\n";
}

void draw_ref_lines(const PlotSpec& spec, const Frame& f, std::ostream& os) {
  for (const RefLine& r : spec.refs) {
    if (!std::isfinite(r.at)) continue;
    if (r.vertical) {
      os << "<line x1=\"" << num(f.X(r.at)) << "\" y1=\"" << num(f.top) << "\" x2=\"" << num(f.X(r.at))
         << "\" y2=\"" << num(f.bottom) << "\" stroke=\"" << r.colour << "\" stroke-dasharray=\"3 3\"/>\n";
      if (!r.label.empty())
        os << "<text x=\"" << num(f.X(r.at) + 3) << "\" y=\"" << num(f.top + 11)
           << "\" font-size=\"10\" fill=\"" << r.colour << "\">" << escape_xml(r.label) << "</text>\n";
    } else {
      os << "<line x1=\"" << num(f.left) << "\" y1=\"" << num(f.Y(r.at)) << "\" x2=\"" << num(f.right)
         << "\" y2=\"" << num(f.Y(r.at)) << "\" stroke=\"" << r.colour << "\" stroke-dasharray=\"4 3\"/>\n";
      if (!r.label.empty())
        os << "<text x=\"" << num(f.right - 4) << "\" y=\"" << num(f.Y(r.at) - 4)
           << "\" text-anchor=\"end\" font-size=\"10.5\" fill=\"" << r.colour << "\">" << escape_xml(r.label)
           << "</text>\n";
    }
  }
}

// One series: error bars, then the line, then markers.
void draw_series(const Series& s, const Frame& f, std::ostream& os) {
  const size_t n = std::min(s.x.size(), s.y.size());
  auto ok = [&](size_t i) { return std::isfinite(s.x[i]) && std::isfinite(s.y[i]); };
  os << "<g>\n";
  for (size_t i = 0; i < n; ++i) {
    double a = 0, b = 0;
    if (!ok(i) || !error_bar(s, i, a, b)) continue;
    const double x = f.X(s.x[i]), ya = f.Y(a), yb = f.Y(b);
    os << "<path d=\"M" << num(x) << ' ' << num(ya) << "V" << num(yb) << "M" << num(x - 4) << ' ' << num(ya)
       << "h8M" << num(x - 4) << ' ' << num(yb) << "h8\" stroke=\"" << s.colour
       << "\" stroke-opacity=\"0.55\" stroke-width=\"1.5\" fill=\"none\"/>\n";
  }
  std::string d;
  bool pen = false;
  size_t points = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!ok(i)) {
      pen = false;
      continue;
    }
    ++points;
    d += (pen ? "L" : "M") + num(f.X(s.x[i])) + " " + num(f.Y(s.y[i]));
    pen = true;
  }
  if (!d.empty())
    os << "<path d=\"" << d << "\" fill=\"none\" stroke=\"" << s.colour
       << "\" stroke-width=\"2.2\" stroke-linejoin=\"round\" stroke-linecap=\"round\""
       << (s.dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
  if ((s.markers && points <= 80) || points == 1)
    for (size_t i = 0; i < n; ++i)
      if (ok(i))
        os << "<circle cx=\"" << num(f.X(s.x[i])) << "\" cy=\"" << num(f.Y(s.y[i])) << "\" r=\"3.8\" fill=\""
           << s.colour << "\" stroke=\"#fff\" stroke-width=\"1.5\"/>\n";
  os << "</g>\n";
}

void draw_axis_labels(const PlotSpec& spec, const Frame& f, std::ostream& os) {
  if (!spec.x_label.empty())
    os << "<text x=\"" << num((f.left + f.right) / 2) << "\" y=\"" << num(spec.height - 9)
       << "\" text-anchor=\"middle\" font-size=\"12\" fill=\"" << kMuted << "\">" << escape_xml(spec.x_label)
       << "</text>\n";
  if (!spec.y_label.empty())
    os << "<text transform=\"translate(17 " << num((f.top + f.bottom) / 2)
       << ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\" fill=\"" << kMuted << "\">"
       << escape_xml(spec.y_label) << "</text>\n";
}

}  // namespace

std::string plot_svg(const PlotSpec& spec) {
  bool has_legend = false;
  for (const Series& s : spec.series) has_legend |= !s.name.empty();
  Frame f;
  f.left = 66;
  f.right = spec.width - 22;
  f.top = has_legend ? 62 : 42;
  f.bottom = spec.height - 46;

  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"" << spec.width << "\" height=\""
     << spec.height << "\" viewBox=\"0 0 " << spec.width << ' ' << spec.height << "\" font-family=\"" << kFont
     << "\" role=\"img\" aria-label=\"" << escape_xml(spec.title) << "\">\n";
  os << "<text x=\"14\" y=\"24\" font-size=\"15\" font-weight=\"600\" fill=\"" << kInk << "\">"
     << escape_xml(spec.title) << "</text>\n";
  if (has_legend) draw_legend(spec, f.left, os);
  os << "<rect x=\"" << num(f.left) << "\" y=\"" << num(f.top) << "\" width=\"" << num(f.right - f.left)
     << "\" height=\"" << num(f.bottom - f.top) << "\" fill=\"#ffffff\" stroke=\"" << kGrid << "\"/>\n";

  const DataRange range = data_range(spec);
  if (range.finite == 0) {
    os << "<text x=\"" << num((f.left + f.right) / 2) << "\" y=\"" << num((f.top + f.bottom) / 2 + 5)
       << "\" text-anchor=\"middle\" font-size=\"14\" font-style=\"italic\" fill=\"" << kAxis << "\">"
       << escape_xml(spec.empty_text) << "</text>\n";
  } else {
    fit_axes(spec, range, f);
    draw_grid(spec, f, os);
    draw_ref_lines(spec, f, os);
    for (const Series& s : spec.series) draw_series(s, f, os);
  }
  draw_axis_labels(spec, f, os);
  os << "</svg>\n";
  return os.str();
}

}  // namespace ps::report
