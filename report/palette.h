// The report's colours and font in one place: the SVG plots (plot.cpp) and the page
// (report.cpp: series colours, the boards' seat colours) draw with these. The page's CSS
// variables (--ink, --muted, --faint, --p0, --p1, --good) hold the same values.
#pragma once

namespace ps::report::palette {

constexpr const char* kFont =
    "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
// Text and frame; the seats (as on the boards); the plot series.
constexpr const char *kInk = "#1f2430", *kMuted = "#5b6270", *kGrid = "#e6e8ee", *kAxis = "#a4aab4";
constexpr const char *kPlayer0 = "#e0457b", *kPlayer1 = "#2f6fd0";
constexpr const char *kPolicy = "#7c5cc4", *kValue = "#17977a", *kMovesLeft = "#e07b1f", *kElo = "#17977a",
                     *kEloNow = "#7c5cc4", *kBaseline = "#8a909c";

}  // namespace ps::report::palette
