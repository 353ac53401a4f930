// The SVG plot helper: tick choice, tick labels, and what a plot draws.
#include <catch2/catch.hpp>

#include <cmath>

#include "report/plot.h"

using namespace ps::report;
using Catch::Matchers::Contains;

namespace {
int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}
}  // namespace

TEST_CASE("nice ticks are round numbers that cover the range") {
  CHECK(nice_ticks(0, 97) == std::vector<double>{0, 20, 40, 60, 80, 100});
  auto t = nice_ticks(0.31, 0.87);
  REQUIRE(t.size() == 7);
  CHECK(t.front() == Approx(0.3));
  CHECK(t.back() == Approx(0.9));
  CHECK(nice_ticks(-130, 370) == std::vector<double>{-200, -100, 0, 100, 200, 300, 400});
  CHECK(nice_ticks(-130, 870) == std::vector<double>{-200, 0, 200, 400, 600, 800, 1000});
  CHECK(nice_ticks(1200, 19800) == std::vector<double>{0, 5000, 10000, 15000, 20000});
  // A single value is widened around itself.
  auto one = nice_ticks(5, 5);
  CHECK(one.front() <= 4.5);
  CHECK(one.back() >= 5.5);
  CHECK(nice_ticks(0, 0).size() >= 2);
  CHECK(nice_ticks(NAN, 1).empty());
}

TEST_CASE("tick labels use the decimals of the step") {
  CHECK(tick_label(0.5, 0.1) == "0.5");
  CHECK(tick_label(0.25, 0.05) == "0.25");
  CHECK(tick_label(40, 20) == "40");
  CHECK(tick_label(15000, 5000) == "15k");
  CHECK(tick_label(500, 500) == "500");
  CHECK(tick_label(-20, 10) == "\u221220");
  CHECK(tick_label(-0.0001, 0.1) == "0.0");
}

TEST_CASE("a plot draws its title, labels, legend, lines with gaps and error bars") {
  PlotSpec p;
  p.title = "Rating <by> generation";
  p.x_label = "generation";
  p.y_label = "Elo";
  p.x_integer = true;
  Series a{"net", "#17977a"};
  a.x = {1, 2, 3, 4};
  a.y = {100, NAN, 300, 350};
  a.err = {50, 0, 40, NAN};
  Series b{"other", "#7c5cc4"};
  b.x = {1, 4};
  b.y = {0, 10};
  b.dashed = true;
  p.series = {a, b};
  p.refs.push_back({0, "random 0", false, "#888888"});
  const std::string svg = plot_svg(p);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\"", 0) == 0);
  CHECK(occurrences(svg, "</svg>") == 1);
  CHECK_THAT(svg, Contains(">Rating &lt;by&gt; generation</text>"));
  CHECK_THAT(svg, Contains(">generation</text>"));
  CHECK_THAT(svg, Contains("rotate(-90)\" text-anchor=\"middle\" font-size=\"12\" fill=\"#5b6270\">Elo</text>"));
  CHECK_THAT(svg, Contains(">net</text>"));
  CHECK_THAT(svg, Contains(">other</text>"));
  CHECK_THAT(svg, Contains(">random 0</text>"));
  CHECK_THAT(svg, Contains("stroke-dasharray=\"6 4\""));
  // Two error bars (points 1 and 3), the NaN point splits the line into two pieces.
  CHECK(occurrences(svg, "stroke-opacity=\"0.55\"") == 2);
  CHECK(occurrences(svg, "<circle") == 3 + 2 + 2);  // markers of both series and their legend dots
  // Integer x ticks 1..4 only.
  for (const char* tick : {">1</text>", ">2</text>", ">3</text>", ">4</text>"}) CHECK_THAT(svg, Contains(tick));
  CHECK(svg.find(">1.5</text>") == std::string::npos);
}

TEST_CASE("a plot without data still draws its frame and says so") {
  PlotSpec p;
  p.title = "Training losses";
  p.empty_text = "no steps yet";
  Series s{"policy", "#000"};
  s.x = {1, 2};
  s.y = {NAN, NAN};
  p.series = {s};
  const std::string svg = plot_svg(p);
  CHECK_THAT(svg, Contains(">no steps yet</text>"));
  CHECK(occurrences(svg, "<path") == 0);
}

TEST_CASE("fixed and percent y axes") {
  PlotSpec p;
  p.y_min = 0;
  p.y_max = 1;
  p.y_percent = true;
  Series s{"", "#000"};
  s.x = {0, 100};
  s.y = {0.4, 1.3};  // out of range values are clamped onto the frame
  p.series = {s};
  const std::string svg = plot_svg(p);
  CHECK_THAT(svg, Contains(">100%</text>"));
  CHECK_THAT(svg, Contains(">0%</text>"));
  CHECK(svg.find(">120%</text>") == std::string::npos);
}
