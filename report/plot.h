// A small SVG line-plot helper for the training report: axes with nice tick values, gridlines,
// axis labels, a legend, several series with optional error bars, and labelled reference lines.
// The output is one self-contained <svg> element (no scripts, no external resources).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ps::report {

/// One line of a plot. x, y (and err, lo, hi when not empty) have the same length; a NaN y
/// leaves a gap in the line. err[i] is the half-width of a symmetric error bar at point i (NaN
/// or 0: none); lo[i] and hi[i], when given, are the ends of an asymmetric one (a Wilson
/// interval) and replace err.
struct Series {
  explicit Series(std::string name_ = "", std::string colour_ = "#2f6fd0")
      : name(std::move(name_)), colour(std::move(colour_)) {}
  std::string name;
  std::string colour;
  std::vector<double> x, y, err, lo, hi;
  bool markers = true;   ///< a dot on every point (drawn only where there are at most 80 points)
  bool dashed = false;
};

/// A horizontal (y = at) or vertical (x = at) reference line with a short label.
struct RefLine {
  double at = 0;
  std::string label;
  bool vertical = false;
  std::string colour = "#9aa0a6";
};

struct PlotSpec {
  std::string title;
  std::string x_label, y_label;
  int width = 620, height = 320;
  std::vector<Series> series;
  std::vector<RefLine> refs;
  bool x_integer = false;       ///< x is a count (generations): integer ticks, half-unit padding
  bool y_include_zero = false;  ///< extend the y range down (or up) to 0
  double y_min = 0, y_max = 0;  ///< fixed y range when y_min < y_max (e.g. 0..1 for accuracies)
  bool y_percent = false;       ///< label y ticks as percentages (values are fractions)
  std::string empty_text = "no data yet";
};

/// Tick values for an axis covering [lo, hi]: about `target` multiples of 1, 2 or 5 x 10^k,
/// the first <= lo and the last >= hi, so the axis ends on ticks. lo == hi is widened.
std::vector<double> nice_ticks(double lo, double hi, int target = 5);

/// Tick label text: as few decimals as the tick step needs; thousands as "12k" when the step
/// is a multiple of 1000.
std::string tick_label(double value, double step);

/// The plot as an <svg> element. Without any finite point it still draws the frame and
/// spec.empty_text.
std::string plot_svg(const PlotSpec& spec);

/// Escapes &, <, >, " and ' for HTML/SVG text and attributes.
std::string escape_xml(const std::string& text);

}  // namespace ps::report
