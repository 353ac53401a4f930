#include "report/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace ps::report {

namespace {

constexpr const char* kFont = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
constexpr const char* kInk = "#1f2430";
constexpr const char* kMuted = "#5b6270";
constexpr const char* kGrid = "#e6e8ee";
constexpr const char* kAxis = "#a4aab4";

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

std::string plot_svg(const PlotSpec& spec) {
  const double W = spec.width, H = spec.height;
  bool has_legend = false;
  for (const Series& s : spec.series) has_legend |= !s.name.empty();
  const double left = 66, right = W - 22, top = has_legend ? 62 : 42, bottom = H - 46;

  // Data ranges over finite points (error bars included in y).
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  size_t finite = 0;
  for (const Series& s : spec.series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      ++finite;
      xlo = std::min(xlo, s.x[i]);
      xhi = std::max(xhi, s.x[i]);
      double e = i < s.err.size() && std::isfinite(s.err[i]) ? std::fabs(s.err[i]) : 0;
      ylo = std::min(ylo, s.y[i] - e);
      yhi = std::max(yhi, s.y[i] + e);
    }

  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"" << spec.width << "\" height=\""
     << spec.height << "\" viewBox=\"0 0 " << spec.width << ' ' << spec.height << "\" font-family=\"" << kFont
     << "\" role=\"img\" aria-label=\"" << escape_xml(spec.title) << "\">\n";
  os << "<text x=\"14\" y=\"24\" font-size=\"15\" font-weight=\"600\" fill=\"" << kInk << "\">"
     << escape_xml(spec.title) << "</text>\n";

  // Legend: one row under the title.
  if (has_legend) {
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

  os << "<rect x=\"" << num(left) << "\" y=\"" << num(top) << "\" width=\"" << num(right - left)
     << "\" height=\"" << num(bottom - top) << "\" fill=\"#ffffff\" stroke=\"" << kGrid << "\"/>\n";

  if (finite == 0) {
    os << "<text x=\"" << num((left + right) / 2) << "\" y=\"" << num((top + bottom) / 2 + 5)
       << "\" text-anchor=\"middle\" font-size=\"14\" font-style=\"italic\" fill=\"" << kAxis << "\">"
       << escape_xml(spec.empty_text) << "</text>\n";
  } else {
    for (const RefLine& r : spec.refs) {
      if (!std::isfinite(r.at)) continue;
      if (r.vertical) {
        xlo = std::min(xlo, r.at);
        xhi = std::max(xhi, r.at);
      } else {
        ylo = std::min(ylo, r.at);
        yhi = std::max(yhi, r.at);
      }
    }
    // x axis.
    std::vector<double> xt;
    double x0, x1;
    if (spec.x_integer) {
      double a = std::round(xlo), b = std::round(xhi);
      double step = nice_step(std::max(1.0, b - a), 6, 1.0);
      step = std::max(1.0, std::round(step));
      for (double v : ticks_with_step(a, b, step))
        if (v >= a && v <= b) xt.push_back(v);
      x0 = a - 0.5;
      x1 = b + 0.5;
    } else {
      widen(xlo, xhi);
      xt = ticks_with_step(xlo, xhi, nice_step(xhi - xlo, 6, 0));
      x0 = xt.front();
      x1 = xt.back();
    }
    // y axis.
    std::vector<double> yt;
    double y0, y1;
    if (spec.y_min < spec.y_max) {
      y0 = spec.y_min;
      y1 = spec.y_max;
      yt = ticks_with_step(y0, y1, nice_step(y1 - y0, 5, 0));
      yt.erase(std::remove_if(yt.begin(), yt.end(), [&](double v) { return v < y0 - 1e-9 || v > y1 + 1e-9; }),
               yt.end());
    } else {
      if (spec.y_include_zero) {
        ylo = std::min(ylo, 0.0);
        yhi = std::max(yhi, 0.0);
      }
      widen(ylo, yhi);
      yt = ticks_with_step(ylo, yhi, nice_step(yhi - ylo, 5, 0));
      y0 = yt.front();
      y1 = yt.back();
    }
    const double xstep = xt.size() > 1 ? xt[1] - xt[0] : 1, ystep = yt.size() > 1 ? yt[1] - yt[0] : 1;
    auto X = [&](double v) { return left + (std::clamp(v, x0, x1) - x0) / (x1 - x0) * (right - left); };
    auto Y = [&](double v) { return bottom - (std::clamp(v, y0, y1) - y0) / (y1 - y0) * (bottom - top); };

    // Gridlines and tick labels.
    os << "<g font-size=\"11\" fill=\"" << kMuted << "\">\n";
    for (double v : yt) {
      os << "<line x1=\"" << num(left) << "\" y1=\"" << num(Y(v)) << "\" x2=\"" << num(right) << "\" y2=\""
         << num(Y(v)) << "\" stroke=\"" << kGrid << "\"/>\n";
      std::string label = spec.y_percent ? tick_label(v * 100, ystep * 100) + "%" : tick_label(v, ystep);
      os << "<text x=\"" << num(left - 7) << "\" y=\"" << num(Y(v) + 4) << "\" text-anchor=\"end\">" << label
         << "</text>\n";
    }
    for (double v : xt) {
      os << "<line x1=\"" << num(X(v)) << "\" y1=\"" << num(top) << "\" x2=\"" << num(X(v)) << "\" y2=\""
         << num(bottom) << "\" stroke=\"" << kGrid << "\"/>\n";
      os << "<line x1=\"" << num(X(v)) << "\" y1=\"" << num(bottom) << "\" x2=\"" << num(X(v)) << "\" y2=\""
         << num(bottom + 4) << "\" stroke=\"" << kAxis << "\"/>\n";
      os << "<text x=\"" << num(X(v)) << "\" y=\"" << num(bottom + 17) << "\" text-anchor=\"middle\">"
         << tick_label(v, xstep) << "</text>\n";
    }
    os << "</g>\n";
    os << "<line x1=\"" << num(left) << "\" y1=\"" << num(bottom) << "\" x2=\"" << num(right) << "\" y2=\""
       << num(bottom) << "\" stroke=\"" << kAxis << "\"/>\n";
    os << "<line x1=\"" << num(left) << "\" y1=\"" << num(top) << "\" x2=\"" << num(left) << "\" y2=\""
       << num(bottom) << "\" stroke=\"" << kAxis << "\"/>\n";

    // Reference lines.
    for (const RefLine& r : spec.refs) {
      if (!std::isfinite(r.at)) continue;
      if (r.vertical) {
        os << "<line x1=\"" << num(X(r.at)) << "\" y1=\"" << num(top) << "\" x2=\"" << num(X(r.at)) << "\" y2=\""
           << num(bottom) << "\" stroke=\"" << r.colour << "\" stroke-dasharray=\"3 3\"/>\n";
        if (!r.label.empty())
          os << "<text x=\"" << num(X(r.at) + 3) << "\" y=\"" << num(top + 11) << "\" font-size=\"10\" fill=\""
             << r.colour << "\">" << escape_xml(r.label) << "</text>\n";
      } else {
        os << "<line x1=\"" << num(left) << "\" y1=\"" << num(Y(r.at)) << "\" x2=\"" << num(right) << "\" y2=\""
           << num(Y(r.at)) << "\" stroke=\"" << r.colour << "\" stroke-dasharray=\"4 3\"/>\n";
        if (!r.label.empty())
          os << "<text x=\"" << num(right - 4) << "\" y=\"" << num(Y(r.at) - 4)
             << "\" text-anchor=\"end\" font-size=\"10.5\" fill=\"" << r.colour << "\">" << escape_xml(r.label)
             << "</text>\n";
      }
    }

    // Series: error bars, then lines, then markers.
    for (const Series& s : spec.series) {
      const size_t n = std::min(s.x.size(), s.y.size());
      auto ok = [&](size_t i) { return std::isfinite(s.x[i]) && std::isfinite(s.y[i]); };
      os << "<g>\n";
      for (size_t i = 0; i < n && i < s.err.size(); ++i) {
        if (!ok(i) || !std::isfinite(s.err[i]) || s.err[i] <= 0) continue;
        const double x = X(s.x[i]), ya = Y(s.y[i] - s.err[i]), yb = Y(s.y[i] + s.err[i]);
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
        d += (pen ? "L" : "M") + num(X(s.x[i])) + " " + num(Y(s.y[i]));
        pen = true;
      }
      if (!d.empty())
        os << "<path d=\"" << d << "\" fill=\"none\" stroke=\"" << s.colour
           << "\" stroke-width=\"2.2\" stroke-linejoin=\"round\" stroke-linecap=\"round\""
           << (s.dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
      if ((s.markers && points <= 80) || points == 1)
        for (size_t i = 0; i < n; ++i)
          if (ok(i))
            os << "<circle cx=\"" << num(X(s.x[i])) << "\" cy=\"" << num(Y(s.y[i])) << "\" r=\"3.8\" fill=\""
               << s.colour << "\" stroke=\"#fff\" stroke-width=\"1.5\"/>\n";
      os << "</g>\n";
    }
  }

  // Axis labels.
  if (!spec.x_label.empty())
    os << "<text x=\"" << num((left + right) / 2) << "\" y=\"" << num(H - 9)
       << "\" text-anchor=\"middle\" font-size=\"12\" fill=\"" << kMuted << "\">" << escape_xml(spec.x_label)
       << "</text>\n";
  if (!spec.y_label.empty())
    os << "<text transform=\"translate(17 " << num((top + bottom) / 2)
       << ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\" fill=\"" << kMuted << "\">"
       << escape_xml(spec.y_label) << "</text>\n";
  os << "</svg>\n";
  return os.str();
}

}  // namespace ps::report
