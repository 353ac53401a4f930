#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/fileutil.h"
#include "core/plural.h"
#include "core/stats.h"
#include "engine/render.h"
#include "report/palette.h"
#include "report/plot.h"
#include "selfplay/reference.h"

namespace ps::report {

namespace {

using namespace palette;

std::string h(const std::string& s) { return escape_xml(s); }

std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "–";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  // A value that rounds to zero prints without its sign ("-0" said nothing).
  if (s[0] == '-' && s.find_first_not_of("0.", 1) != std::string::npos) s = "\u2212" + s.substr(1);
  else if (s[0] == '-') s = s.substr(1);
  return s;
}

// Whole numbers with thousands separators: 12,345.
std::string count(double v) {
  if (!std::isfinite(v)) return "–";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", std::fabs(v));
  std::string digits = buf, out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "\u2212" : "") + out;
}

std::string duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "–";
  char buf[64];
  if (seconds < 60) std::snprintf(buf, sizeof buf, "%.1f s", seconds);
  else if (seconds < 3600) std::snprintf(buf, sizeof buf, "%d min %02d s", int(seconds) / 60, int(seconds) % 60);
  else std::snprintf(buf, sizeof buf, "%d h %02d min", int(seconds) / 3600, int(seconds) % 3600 / 60);
  return buf;
}

std::string file_size(uintmax_t bytes) {
  const double b = double(bytes);
  if (b < 1e3) return std::to_string(bytes) + " B";
  if (b < 1e6) return fixed(b / 1e3, 1) + " kB";
  if (b < 1e9) return fixed(b / 1e6, 1) + " MB";
  return fixed(b / 1e9, 2) + " GB";
}

// "2026-11-29T19:00:00Z" -> "2026-11-29 19:00 UTC"; other forms are shown as written.
std::string timestamp(const std::string& iso) {
  if (iso.size() == 20 && iso[10] == 'T' && iso[19] == 'Z') return iso.substr(0, 10) + " " + iso.substr(11, 5) + " UTC";
  return iso;
}

std::string percent(double fraction, int decimals = 0) { return fixed(100 * fraction, decimals) + "%"; }

// Background for a score in [0, 1]: soft red (0) through off-white (0.5) to soft green (1).
std::string score_colour(double s) {
  s = std::clamp(s, 0.0, 1.0);
  const int lo[3] = {0xf2, 0xbf, 0xbf}, mid[3] = {0xf7, 0xf6, 0xf2}, hi[3] = {0xb4, 0xe0, 0xc2};
  const int* a = s < 0.5 ? lo : mid;
  const int* b = s < 0.5 ? mid : hi;
  const double t = s < 0.5 ? s / 0.5 : (s - 0.5) / 0.5;
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", int(std::lround(a[0] + (b[0] - a[0]) * t)),
                int(std::lround(a[1] + (b[1] - a[1]) * t)), int(std::lround(a[2] + (b[2] - a[2]) * t)));
  return buf;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

std::string empty_block(const std::string& why) { return "<p class=\"empty\">" + h(why) + "</p>\n"; }

// The opening of a report section: its anchor id (the page's navigation links to it), heading
// and lead paragraph (HTML, written as is; none when empty). The caller closes the section.
std::string section_head(const char* id, const char* title, const char* lead = "") {
  std::string out = std::string("<section id=\"") + id + "\"><h2>" + title + "</h2>\n";
  if (*lead) out += std::string("<p class=\"lead\">") + lead + "</p>\n";
  return out;
}

std::string card(const std::string& body, const std::string& extra_class = "") {
  return "<div class=\"card" + (extra_class.empty() ? "" : " " + extra_class) + "\">\n" + body + "</div>\n";
}

const char* kStyle = R"CSS(
:root { --ink:#1f2430; --muted:#5b6270; --faint:#8a909c; --line:#e3e6ec; --bg:#f3f4f7; --card:#ffffff;
        --p0:#e0457b; --p1:#2f6fd0; --good:#17977a; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
       font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1320px; margin: 0 auto; padding: 28px 28px 64px; }
.hero { background: linear-gradient(135deg, #1d2742 0%, #2a3b63 100%); color: #fff; border-radius: 16px;
        padding: 26px 30px 24px; box-shadow: 0 6px 24px rgba(29,39,66,.18); position: relative; overflow: hidden; }
.hero::after { content: ""; position: absolute; right: 0; top: 0; bottom: 0; width: 10px;
               background: linear-gradient(180deg, var(--p0) 0 50%, var(--p1) 50% 100%); }
.kicker { text-transform: uppercase; letter-spacing: .09em; font-size: 12px; opacity: .72; }
h1 { margin: 2px 0 4px; font-size: 32px; font-weight: 700; letter-spacing: -.01em; }
.sub { opacity: .85; font-size: 14.5px; }
.chip { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px; font-weight: 600;
        vertical-align: middle; margin-left: 8px; }
.chip.live { background: #f4b740; color: #3a2a00; }
.chip.done { background: #3fbf96; color: #062a1f; }
.kpis { display: grid; grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); gap: 12px; margin-top: 20px; }
.kpi { background: rgba(255,255,255,.08); border: 1px solid rgba(255,255,255,.10); border-radius: 12px;
       padding: 11px 15px; }
.kpi .v { font-size: 24px; font-weight: 650; font-variant-numeric: tabular-nums; line-height: 1.25; white-space: nowrap; }
.kpi .v small { font-size: 14px; font-weight: 500; opacity: .7; }
.kpi .l { font-size: 11.5px; opacity: .7; text-transform: uppercase; letter-spacing: .06em; }
nav { margin: 18px 2px 0; font-size: 14px; color: var(--muted); }
nav a { color: var(--muted); text-decoration: none; margin-right: 18px; border-bottom: 1px dotted var(--faint); }
section { margin-top: 30px; }
h2 { font-size: 20px; margin: 0 0 4px; letter-spacing: -.005em; }
.lead { color: var(--muted); margin: 0 0 12px; font-size: 14px; }
.grid2 { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 16px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 12px 14px;
        box-shadow: 0 1px 2px rgba(16,24,40,.04); min-width: 0; }
.card svg.plot { width: 100%; height: auto; display: block; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 14px; width: 100%; }
th, td { padding: 6px 10px; text-align: right; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { font-size: 12px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); font-weight: 600; }
th:first-child, td:first-child, td.name, th.name { text-align: left; }
tbody tr:last-child td { border-bottom: none; }
td.name { font-weight: 600; }
.tag { display: inline-block; font-size: 11px; font-weight: 600; padding: 0 7px; border-radius: 999px;
       margin-left: 6px; vertical-align: 1px; }
.tag.best { background: #dff4ec; color: #0f6b52; }
.tag.anchor { background: #eceef3; color: var(--muted); }
.tag.kept { background: #eceef3; color: var(--muted); }
.muted { color: var(--faint); }
table.cross td, table.cross th { text-align: center; }
table.cross th.rowname, table.cross td.rowname { text-align: left; }
table.cross td.cell { font-weight: 600; border: 2px solid #fff; border-radius: 6px; }
table.cross td.self { background: #f4f5f8; color: var(--faint); border: 2px solid #fff; }
table.cross td.total { font-weight: 650; }
td.scores { padding: 2px; }
div.score { text-align: center; padding: 4px 10px; border-radius: 6px; margin: 1px 0; }
div.score b { font-size: 14.5px; }
div.score span { display: block; font-size: 11.5px; color: var(--muted); }
.bar { display: inline-block; width: 110px; height: 10px; border-radius: 5px; overflow: hidden;
       background: var(--p1); vertical-align: middle; margin-right: 8px; }
.bar i { display: block; height: 100%; background: var(--p0); }
.boards { display: flex; flex-wrap: wrap; gap: 16px; }
.board { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 12px 12px 10px;
         width: 238px; }
.board svg { display: block; margin: 0 auto; max-width: 100%; height: auto; }
.board .what { font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); }
.board .players { font-weight: 600; margin: 2px 0 6px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.board .result { font-size: 13.5px; color: var(--muted); }
.dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 5px; vertical-align: 0; }
.dot.p0 { background: var(--p0); } .dot.p1 { background: var(--p1); }
.empty { color: var(--faint); font-style: italic; margin: 8px 0; }
ul.notes { margin: 6px 0 0; padding-left: 20px; color: var(--muted); font-size: 14px; }
ul.files { columns: 3; margin: 6px 0 0; padding-left: 20px; font-size: 14px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
footer { margin-top: 36px; color: var(--faint); font-size: 13px; }
@media (max-width: 900px) { .grid2 { grid-template-columns: 1fr; } ul.files { columns: 1; } }
)CSS";

// ---------------------------------------------------------------------------------------------
// Header

std::string run_title(const RunData& run) {
  if (!run.config.name.empty()) return run.config.name;
  std::filesystem::path dir = std::filesystem::path(run.dir).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "runs/tiny/"
  return dir.filename().string();
}

std::string pitch_text(const RunData& run) {
  std::string p = run.config.pitch;
  if (p.empty()) {
    // Fall back to a replayed game's pitch.
    const RecordedGame* g = nullptr;
    if (!run.eval.empty() && !run.eval.back().games.empty()) g = &run.eval.back().games.front();
    for (const auto& sg : run.selfplay_games)
      if (!g && sg.sample) g = &*sg.sample;
    if (!g) return "";
    const Pitch& pitch = g->game->start().pitch();
    return std::to_string(pitch.width()) + "\u00d7" + std::to_string(pitch.length()) + " pitch, goal " +
           std::to_string(pitch.goal()) + " \u00b7 " + variant_name(g->game->start().variant());
  }
  std::string out = h(p);
  auto x = out.find('x');
  if (x != std::string::npos) out.replace(x, 1, "\u00d7");
  out += " pitch";
  if (run.config.goal > 0) out += ", goal " + std::to_string(run.config.goal);
  if (!run.config.variant.empty()) out += " \u00b7 " + h(run.config.variant) + " rules";
  return out;
}

// The verdict of the run as it stands: none while the generations done have moved past the
// last one logged (a run resumed with more generations, before its new verdict).
const Verdict* current_verdict(const RunData& run) {
  return run.verdict && run.verdict->after_generation == run.generations_done() ? &*run.verdict : nullptr;
}

std::string header(const RunData& run) {
  std::ostringstream os;
  const int done = run.generations_done();
  const int planned = run.config.generations;
  double games = 0, positions = 0;
  bool have_selfplay = false;
  for (const auto& s : run.selfplay) {
    if (std::isfinite(s.games)) games += s.games, have_selfplay = true;
    if (std::isfinite(s.samples)) positions += s.samples;
  }
  std::string best = run.state.best;
  if (best.empty() && !run.generations.empty()) best = run.generations.back().best;

  os << "<header class=\"hero\">\n<div class=\"kicker\">Paper Soccer \u00b7 self-play training report</div>\n";
  os << "<h1>" << h(run_title(run));
  if (planned > 0 && done >= planned) os << "<span class=\"chip done\">finished</span>";
  else if (planned > 0) os << "<span class=\"chip live\">" << done << " of " << planned << " generations</span>";
  os << "</h1>\n<div class=\"sub\">";
  std::vector<std::string> sub;
  if (!pitch_text(run).empty()) sub.push_back(pitch_text(run));
  if (!run.state.started.empty()) sub.push_back("started " + h(timestamp(run.state.started)));
  sub.push_back("<code>" + h(run.dir) + "</code>");
  for (size_t i = 0; i < sub.size(); ++i) os << (i ? " \u00b7 " : "") << sub[i];
  os << "</div>\n<div class=\"kpis\">\n";
  auto kpi = [&](const std::string& label, const std::string& value) {
    os << "<div class=\"kpi\"><div class=\"l\">" << h(label) << "</div><div class=\"v\">" << value << "</div></div>\n";
  };
  kpi("Generations", std::to_string(done) + (planned > 0 ? " <small>/ " + std::to_string(planned) + "</small>" : ""));
  kpi("Best network", best.empty() ? "–" : h(best));
  const Verdict* verdict = current_verdict(run);
  if (verdict && verdict->games > 0) {
    const Verdict& v = *verdict;
    const auto [lo, hi] = wilson_interval(v.wins, v.games);
    kpi("Verdict: " + v.network + " vs " + v.opponent,
        percent(double(v.wins) / v.games) + " <small>[" + fixed(100 * lo, 0) + "-" + fixed(100 * hi, 0) +
            "], " + std::to_string(v.wins) + "/" + std::to_string(v.games) + "</small>");
  } else if (verdict) {
    kpi("Verdict", "no generation promoted");
  }
  if (!run.generations.empty() && std::isfinite(run.generations.back().elo))
    kpi("Latest Elo", fixed(run.generations.back().elo, 0) + " <small>\u00b1" + fixed(run.generations.back().ci95, 0) +
                          "</small>");
  kpi("Self-play games", have_selfplay ? count(games) : "–");
  kpi("Positions", have_selfplay ? count(positions) : "–");
  kpi("Training steps", run.train.empty() ? "–" : count(run.train.back().step));
  kpi("Wall time", duration(run.state.seconds));
  os << "</div>\n</header>\n";
  return os.str();
}

// ---------------------------------------------------------------------------------------------
// Strength: Elo over generations and the ratings table.

std::string elo_plot(const RunData& run) {
  PlotSpec p;
  p.title = "Rating over generations";
  p.x_label = "generation";
  p.y_label = "Elo" + (run.ratings.anchor.empty() ? std::string() : " (" + run.ratings.anchor + " = 0)");
  p.x_integer = true;
  p.y_include_zero = true;
  Series at_eval{"at its evaluation (\u00b195%)", kElo};
  for (const auto& g : run.generations) {
    if (!std::isfinite(g.elo)) continue;
    at_eval.x.push_back(g.generation);
    at_eval.y.push_back(g.elo);
    at_eval.err.push_back(g.ci95);
  }
  Series now{"all games so far (ratings.json)", kEloNow};
  now.dashed = true;
  std::vector<std::pair<int, const PlayerRating*>> nets;
  for (const auto& pr : run.ratings.players) {
    const int gen = generation_of(pr.name);
    if (gen >= 0 && std::isfinite(pr.elo)) nets.emplace_back(gen, &pr);
    else if (gen < 0 && std::isfinite(pr.elo)) p.refs.push_back({pr.elo, pr.name + " " + fixed(pr.elo, 0), false, kBaseline});
  }
  std::sort(nets.begin(), nets.end());
  for (auto& [gen, pr] : nets) {
    now.x.push_back(gen);
    now.y.push_back(pr->elo);
  }
  if (!at_eval.x.empty()) p.series.push_back(at_eval);
  if (!now.x.empty()) p.series.push_back(now);
  if (p.series.empty()) p.refs.clear();
  p.empty_text = "no rated generation yet";
  return plot_svg(p);
}

std::string ratings_table(const RunData& run) {
  const Ratings& r = run.ratings;
  std::ostringstream os;
  os << "<h3 class=\"lead\" style=\"margin:2px 0 8px;color:#1f2430;font-size:15px\">Ratings</h3>\n";
  if (!r.present) return os.str() + empty_block("ratings.json has not been written yet");
  if (r.players.empty()) return os.str() + empty_block("ratings.json lists no players");
  std::vector<const PlayerRating*> order;
  for (const auto& p : r.players) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [](const PlayerRating* a, const PlayerRating* b) {
    const double ea = std::isfinite(a->elo) ? a->elo : -1e300, eb = std::isfinite(b->elo) ? b->elo : -1e300;
    return ea > eb;
  });
  std::string best = run.state.best.empty() && !run.generations.empty() ? run.generations.back().best : run.state.best;
  os << "<div class=\"scroll\"><table class=\"ratings\">\n<thead><tr><th>#</th><th class=\"name\">player</th><th>Elo</th>"
        "<th>\u00b195%</th><th>games</th><th>score</th></tr></thead>\n<tbody>\n";
  int rank = 0;
  for (const PlayerRating* p : order) {
    os << "<tr><td>" << ++rank << "</td><td class=\"name\">" << h(p->name);
    if (p->name == best) os << "<span class=\"tag best\">best</span>";
    if (p->name == r.anchor) os << "<span class=\"tag anchor\">anchor</span>";
    os << "</td><td>" << fixed(p->elo, 0) << "</td><td class=\"muted\">"
       << (std::isfinite(p->ci95) && p->ci95 > 0 ? "\u00b1" + fixed(p->ci95, 0) : "–") << "</td><td>"
       << (p->games >= 0 ? count(p->games) : "–") << "</td><td>"
       << (p->games > 0 && p->wins >= 0 ? percent(double(p->wins) / p->games, 1) : "–") << "</td></tr>\n";
  }
  os << "</tbody></table></div>\n";
  return os.str();
}

// A plot of a share (0-100%) per generation.
PlotSpec share_per_generation(const std::string& title, const std::string& y_label) {
  PlotSpec p;
  p.title = title;
  p.x_label = "generation";
  p.y_label = y_label;
  p.x_integer = true;
  p.y_min = 0;
  p.y_max = 1;
  p.y_percent = true;
  return p;
}

// Each generation's score against generation 0 in its own evaluation, with the 95% Wilson
// interval: whether the loop learns, read without the ratings' model.
std::string generation0_plot(const RunData& run) {
  PlotSpec p = share_per_generation("Score against generation 0 (95% Wilson interval)", "score");
  Series score{"", kElo};
  for (const auto& g : run.generations)
    for (const ScoreLine& l : g.scores) {
      if (l.opponent != "gen-0000" || l.games <= 0) continue;
      const auto [lo, hi] = wilson_interval(l.wins, l.games);
      score.x.push_back(g.generation);
      score.y.push_back(double(l.wins) / l.games);
      score.lo.push_back(lo);
      score.hi.push_back(hi);
    }
  // The verdict: the best network's own point, at its generation, over evaluate.final_games.
  Series verdict{"", kEloNow};
  const Verdict* current = current_verdict(run);
  if (current && current->games > 0 && generation_of(current->network) >= 0) {
    const Verdict& v = *current;
    const auto [lo, hi] = wilson_interval(v.wins, v.games);
    verdict.name = "verdict: best network, " + std::to_string(v.games) + " games";
    score.name = "each generation's evaluation";
    verdict.x.push_back(generation_of(v.network));
    verdict.y.push_back(double(v.wins) / v.games);
    verdict.lo.push_back(lo);
    verdict.hi.push_back(hi);
  }
  if (!score.x.empty()) p.series.push_back(score);
  if (!verdict.x.empty()) p.series.push_back(verdict);
  if (!p.series.empty()) p.refs.push_back({0.5, "level", false, kBaseline});
  p.empty_text = "no generation has played generation 0 yet";
  return plot_svg(p);
}

// Each generation's scores on the reference games (evaluate.reference, selfplay/reference.h):
// what the network learns, read without games between weak players.
std::string reference_plots(const RunData& run) {
  PlotSpec mse;
  mse.title = "Reference games: value MSE against the result";
  mse.x_label = "generation";
  mse.y_label = "MSE (a constant 0 scores 1)";
  mse.x_integer = true;
  mse.y_include_zero = true;
  Series all{"all positions", kValue},
      early{"more than " + std::to_string(kEarlyTurnsLeft) + " turns before the end", kPolicy};
  early.dashed = true;
  PlotSpec share = share_per_generation("Reference games: policy top-1, value sign", "share of positions");
  Series top1{"policy top-1 (the reference turn)", kPolicy}, sign{"sign of the value right", kValue};
  for (const ReferencePoint& p : run.reference) {
    all.x.push_back(p.generation);
    all.y.push_back(p.value_mse);
    early.x.push_back(p.generation);
    early.y.push_back(p.early_value_mse);
    top1.x.push_back(p.generation);
    top1.y.push_back(p.policy_top1);
    sign.x.push_back(p.generation);
    sign.y.push_back(p.value_sign_accuracy);
  }
  mse.series = {all, early};
  mse.refs.push_back({1.0, "constant 0", false, kBaseline});
  share.series = {top1, sign};
  return "<div class=\"grid2\">" + card(plot_svg(mse)) + card(plot_svg(share)) + "</div>";
}

std::string strength_section(const RunData& run) {
  std::ostringstream os;
  os << "<div class=\"grid2\">" << card(elo_plot(run)) << card(generation0_plot(run)) << "</div>";
  if (!run.reference.empty()) os << reference_plots(run);
  os << "<div class=\"grid2\">" << card(ratings_table(run)) << "</div>";
  return os.str();
}

// ---------------------------------------------------------------------------------------------
// Cross-table.

std::string crosstable_section(const RunData& run) {
  const Ratings& r = run.ratings;
  std::ostringstream os;
  if (r.cross_names.empty()) {
    os << card(
        empty_block(r.present ? "ratings.json has no cross-table" : "ratings.json has not been written yet"));
    return os.str();
  }
  const size_t n = r.cross_names.size();
  std::ostringstream t;
  t << "<div class=\"scroll\"><table class=\"cross\">\n<thead><tr><th class=\"rowname\">row vs column</th>";
  for (const auto& name : r.cross_names) t << "<th>" << h(name) << "</th>";
  t << "<th>total</th></tr></thead>\n<tbody>\n";
  for (size_t i = 0; i < n; ++i) {
    t << "<tr><td class=\"rowname name\">" << h(r.cross_names[i]) << "</td>";
    int tw = 0, tg = 0;
    for (size_t k = 0; k < n; ++k) {
      if (i == k) {
        t << "<td class=\"self\">\u2014</td>";
        continue;
      }
      const int w = r.cross_wins[i][k], g = w + r.cross_wins[k][i];
      tw += w;
      tg += g;
      if (g == 0) t << "<td class=\"self\">\u00b7</td>";
      else
        t << "<td class=\"cell\" style=\"background:" << score_colour(double(w) / g) << "\" title=\""
          << percent(double(w) / g) << "\">" << w << "/" << g << "</td>";
    }
    t << "<td class=\"total\">" << (tg ? std::to_string(tw) + "/" + std::to_string(tg) + " <span class=\"muted\">" +
                                             percent(double(tw) / tg) + "</span>"
                                       : "–")
      << "</td></tr>\n";
  }
  t << "</tbody></table></div>\n";
  os << card(t.str());
  return os.str();
}

// ---------------------------------------------------------------------------------------------
// Evaluation: per generation, the score against each opponent.

// One score: wins/games, the score, and its 95% Wilson interval; `label` names the opponent when
// the column does not.
std::string score_block(int wins, int games, const std::string& label = "") {
  auto [lo, hi] = wilson_interval(wins, games);
  const double s = double(wins) / games;
  std::ostringstream os;
  os << "<div class=\"score\" style=\"background:" << score_colour(s) << "\"><b>" << wins << "/" << games << "</b> "
     << percent(s) << "<span>" << (label.empty() ? "" : "vs " + h(label) + " \u00b7 ") << "95%: " << fixed(100 * lo, 0)
     << "\u2013" << fixed(100 * hi, 0) << "%</span></div>";
  return os.str();
}

std::string evaluation_section(const RunData& run) {
  std::ostringstream os;
  if (run.generations.empty()) {
    std::string why = "logs/generations.jsonl has no evaluated generation yet";
    if (!run.eval.empty())
      why += " (eval/ holds " + counted(int64_t(run.eval.size()), "generation folder") + ", " +
             counted(run.eval.back().total_games, "game") + " in the last)";
    os << card(empty_block(why));
    return os.str();
  }
  // Baselines get a column each; earlier networks (a different one every generation) share one.
  std::vector<std::string> baselines;
  bool any_network = false;
  for (const auto& g : run.generations)
    for (const auto& s : g.scores) {
      if (generation_of(s.opponent) >= 0) any_network = true;
      else if (std::find(baselines.begin(), baselines.end(), s.opponent) == baselines.end())
        baselines.push_back(s.opponent);
    }
  std::ostringstream t;
  t << "<div class=\"scroll\"><table class=\"eval\">\n<thead><tr><th>gen</th><th class=\"name\">network</th><th>Elo</th>"
       "<th class=\"name\">outcome</th>";
  if (any_network) t << "<th style=\"text-align:center\">vs earlier networks</th>";
  for (const auto& o : baselines) t << "<th style=\"text-align:center\">vs " << h(o) << "</th>";
  t << "</tr></thead>\n<tbody>\n";
  const std::string none = "<td class=\"muted\" style=\"text-align:center\">\u2013</td>";
  for (const auto& g : run.generations) {
    t << "<tr><td>" << g.generation << "</td><td class=\"name\">" << h(g.network) << "</td><td>" << fixed(g.elo, 0)
      << (std::isfinite(g.ci95) ? " <span class=\"muted\">\u00b1" + fixed(g.ci95, 0) + "</span>" : "") << "</td>";
    t << "<td class=\"name\" style=\"font-weight:400\">";
    if (g.promoted && *g.promoted) t << "<span class=\"tag best\" style=\"margin:0\">promoted</span>";
    else if (g.promoted) t << "<span class=\"tag kept\" style=\"margin:0\">kept " << h(g.best) << "</span>";
    else t << "<span class=\"muted\">\u2013</span>";
    t << "</td>";
    if (any_network) {
      std::string blocks;
      for (const auto& s : g.scores)
        if (generation_of(s.opponent) >= 0 && s.games > 0) blocks += score_block(s.wins, s.games, s.opponent);
      t << (blocks.empty() ? none : "<td class=\"scores\">" + blocks + "</td>");
    }
    for (const auto& o : baselines) {
      auto it = std::find_if(g.scores.begin(), g.scores.end(), [&](const ScoreLine& s) { return s.opponent == o; });
      t << (it == g.scores.end() || it->games == 0 ? none
                                                   : "<td class=\"scores\">" + score_block(it->wins, it->games) + "</td>");
    }
    t << "</tr>\n";
  }
  t << "</tbody></table></div>\n";
  os << card(t.str());
  return os.str();
}

// ---------------------------------------------------------------------------------------------
// Training.

std::vector<RefLine> generation_marks(const RunData& run) {
  // A new checkpoint name in the log starts the steps of the next generation.
  std::vector<RefLine> marks;
  for (size_t i = 1; i < run.train.size(); ++i)
    if (!run.train[i].checkpoint.empty() && run.train[i].checkpoint != run.train[i - 1].checkpoint) {
      const int gen = generation_of(run.train[i].checkpoint.substr(0, run.train[i].checkpoint.find('.')));
      marks.push_back({run.train[i].step, gen >= 0 ? "g" + std::to_string(gen) : "", true, "#c3c8d1"});
    }
  if (marks.size() > 14)
    for (auto& m : marks) m.label.clear();
  return marks;
}

// Long logs are averaged over runs of consecutive lines down to at most ~1000 points, which keeps
// the page small and the curves readable.
Series train_series(const RunData& run, const std::string& name, const char* colour, double TrainPoint::*field) {
  Series s{name, colour};
  s.markers = false;
  const size_t n = run.train.size(), group = n > 1200 ? (n + 999) / 1000 : 1;
  for (size_t i = 0; i < n; i += group) {
    double sx = 0, sy = 0;
    int count_y = 0;
    const size_t end = std::min(n, i + group);
    for (size_t k = i; k < end; ++k) {
      sx += run.train[k].step;
      const double v = run.train[k].*field;
      if (std::isfinite(v)) sy += v, ++count_y;
    }
    s.x.push_back(sx / double(end - i));
    s.y.push_back(count_y ? sy / count_y : kMissing);
  }
  bool any = false;
  for (double v : s.y) any |= std::isfinite(v);
  if (!any) s.x.clear(), s.y.clear();
  return s;
}

std::string training_section(const RunData& run) {
  PlotSpec loss;
  loss.title = "Training losses";
  loss.x_label = "training step";
  loss.y_label = "loss";
  loss.y_include_zero = true;
  loss.empty_text = "logs/train.jsonl has no steps yet";
  for (auto s : {train_series(run, "policy", kPolicy, &TrainPoint::policy_loss),
                 train_series(run, "value", kValue, &TrainPoint::value_loss),
                 train_series(run, "moves left", kMovesLeft, &TrainPoint::moves_left_loss)})
    if (!s.x.empty()) loss.series.push_back(s);
  loss.refs = generation_marks(run);

  PlotSpec acc;
  acc.title = "Prediction accuracy";
  acc.x_label = "training step";
  acc.y_label = "accuracy";
  acc.y_min = 0;
  acc.y_max = 1;
  acc.y_percent = true;
  acc.empty_text = loss.empty_text;
  for (auto s : {train_series(run, "policy (best turn)", kPolicy, &TrainPoint::policy_accuracy),
                 train_series(run, "value (winner)", kValue, &TrainPoint::value_accuracy)})
    if (!s.x.empty()) acc.series.push_back(s);
  acc.refs = loss.refs;

  std::ostringstream os;
  os << "<div class=\"grid2\">" << card(plot_svg(loss)) << card(plot_svg(acc)) << "</div>";
  return os.str();
}

// ---------------------------------------------------------------------------------------------
// Self-play.

Series selfplay_series(const RunData& run, const std::string& name, const char* colour,
                       double SelfplayGeneration::*field) {
  Series s{name, colour};
  for (const auto& g : run.selfplay)
    if (std::isfinite(g.*field)) {
      s.x.push_back(g.generation);
      s.y.push_back(g.*field);
    }
  return s;
}

std::string selfplay_plot(const RunData& run, const std::string& title, const std::string& y_label,
                          std::vector<Series> series) {
  PlotSpec p;
  p.title = title;
  p.x_label = "generation";
  p.y_label = y_label;
  p.x_integer = true;
  p.y_include_zero = true;
  p.empty_text = "logs/selfplay.jsonl has no generation yet";
  for (auto& s : series)
    if (!s.x.empty()) p.series.push_back(std::move(s));
  if (p.series.size() == 1) p.series[0].name.clear();  // the title says it
  return plot_svg(p);
}

std::string selfplay_section(const RunData& run) {
  std::ostringstream os;
  os << "<div class=\"grid2\">\n";
  os << card(selfplay_plot(run, "Mean game length", "turns per game",
                           {selfplay_series(run, "turns per game", kMovesLeft, &SelfplayGeneration::mean_game_turns)}));
  os << card(selfplay_plot(run, "Mean turns per search (root)", "turns at the search root",
                           {selfplay_series(run, "root turns", kPolicy, &SelfplayGeneration::mean_root_turns)}));
  os << card(selfplay_plot(run, "Self-play throughput", "positions per second",
                           {selfplay_series(run, "positions/s", kValue, &SelfplayGeneration::samples_per_s)}));
  // Results by seat: does the first player win more often?
  Series p0{"player 0 wins", kPlayer0}, p1{"player 1 wins", kPlayer1};
  for (const auto& g : run.selfplay)
    if (g.wins[0] >= 0 && g.wins[1] >= 0 && g.wins[0] + g.wins[1] > 0) {
      const double n = g.wins[0] + g.wins[1];
      p0.x.push_back(g.generation);
      p0.y.push_back(g.wins[0] / n);
      p1.x.push_back(g.generation);
      p1.y.push_back(g.wins[1] / n);
    }
  PlotSpec seats = share_per_generation("Self-play results by seat", "share of games won");
  seats.empty_text = "no win counts yet";
  if (!p0.x.empty()) seats.series = {p0, p1};
  seats.refs.push_back({0.5, "even", false, "#c3c8d1"});
  os << card(plot_svg(seats)) << "</div>\n";

  if (!run.selfplay.empty()) {
    std::ostringstream t;
    t << "<div class=\"scroll\"><table>\n<thead><tr><th>gen</th><th class=\"name\">network</th><th>games</th>"
         "<th>positions</th><th>full searches</th><th>turns/game</th><th>root turns</th><th>games/s</th>"
         "<th>positions/s</th><th>time</th><th class=\"name\">player 0 : player 1 wins</th></tr></thead>\n<tbody>\n";
    for (const auto& g : run.selfplay) {
      t << "<tr><td>" << g.generation << "</td><td class=\"name\">" << h(g.network) << "</td><td>" << count(g.games)
        << "</td><td>" << count(g.samples) << "</td><td>" << count(g.full_samples) << "</td><td>"
        << fixed(g.mean_game_turns, 1) << "</td><td>" << fixed(g.mean_root_turns, 1) << "</td><td>"
        << fixed(g.games_per_s, 2) << "</td><td>" << fixed(g.samples_per_s, 0) << "</td><td>" << duration(g.seconds)
        << "</td><td class=\"name\" style=\"font-weight:400\">";
      if (g.wins[0] >= 0 && g.wins[1] >= 0 && g.wins[0] + g.wins[1] > 0)
        t << "<span class=\"bar\"><i style=\"width:" << fixed(100.0 * g.wins[0] / (g.wins[0] + g.wins[1]), 1)
          << "%\"></i></span>" << g.wins[0] << " : " << g.wins[1];
      else
        t << "<span class=\"muted\">–</span>";
      t << "</td></tr>\n";
    }
    t << "</tbody></table></div>\n";
    os << "<div style=\"margin-top:16px\">" << card(t.str()) << "</div>\n";
  }
  return os.str();
}

// ---------------------------------------------------------------------------------------------
// Games drawn as boards.

std::string board(const RecordedGame& g, const std::string& what) {
  SvgOptions opt;
  opt.unit = 22;
  std::ostringstream os;
  os << "<figure class=\"board\" style=\"margin:0\">\n<div class=\"what\">" << h(what) << "</div>\n";
  const std::string p0 = g.player0.empty() ? "player 0" : g.player0, p1 = g.player1.empty() ? "player 1" : g.player1;
  const bool self_play = !g.player0.empty() && g.player0 == g.player1;
  if (self_play)
    os << "<div class=\"players\"><span class=\"dot p0\"></span><span class=\"dot p1\"></span>" << h(p0)
       << " <span class=\"muted\" style=\"font-weight:400\">vs itself</span></div>\n";
  else
    os << "<div class=\"players\"><span class=\"dot p0\"></span>" << h(p0)
       << " <span class=\"muted\" style=\"font-weight:400\">vs</span> <span class=\"dot p1\"></span>" << h(p1)
       << "</div>\n";
  os << render_svg(*g.game, opt);
  const std::string reason = g.termination.empty() ? g.reason : g.termination;
  os << "<figcaption class=\"result\">";
  if (g.winner == 0 || g.winner == 1) {
    os << "<span class=\"dot p" << g.winner << "\"></span><b>" << h(g.winner == 0 ? p0 : p1) << "</b> won";
    if (self_play) os << " as player " << g.winner;
  } else {
    os << "no winner recorded";
  }
  os << "<br>" << h(reason) << " \u00b7 " << g.turns << " turns</figcaption>\n";
  os << "<div class=\"muted\" style=\"font-size:11.5px;margin-top:2px\">" << h(g.source) << "</div>\n";
  os << "</figure>\n";
  return os.str();
}

std::string games_section(const RunData& run) {
  std::ostringstream os;
  std::ostringstream b;
  int shown = 0;
  if (!run.eval.empty()) {
    const EvalGames& ev = run.eval.back();
    for (size_t i = 0; i < ev.games.size(); ++i, ++shown)
      b << board(ev.games[i], "Evaluation \u00b7 gen " + std::to_string(ev.generation) + " \u00b7 game " +
                                  std::to_string(i + 1));
  }
  std::set<int> drawn;
  if (!run.selfplay_games.empty())
    for (const SelfplayGames* sg : {&run.selfplay_games.front(), &run.selfplay_games.back()})
      if (sg->sample && drawn.insert(sg->generation).second) {
        b << board(*sg->sample, "Self-play \u00b7 " + sg->network);
        ++shown;
      }
  if (shown == 0) os << card(empty_block("no finished games in eval/ or data/ yet"));
  else os << "<div class=\"boards\">\n" << b.str() << "</div>\n";
  return os.str();
}

// ---------------------------------------------------------------------------------------------
// Files and notes.

std::string files_section(const RunData& run) {
  std::ostringstream os;
  std::ostringstream c;
  c << "<h3 style=\"margin:0;font-size:15px\">Checkpoints</h3>\n";
  if (run.checkpoints.empty()) {
    c << empty_block("no checkpoints yet");
  } else {
    c << "<ul class=\"files\">\n";
    for (const auto& f : run.checkpoints)
      c << "<li><code>" << h(f.name) << "</code> <span class=\"muted\">" << file_size(f.bytes) << "</span></li>\n";
    c << "</ul>\n";
  }
  if (!run.missing.empty()) {
    c << "<h3 style=\"margin:14px 0 0;font-size:15px\">Not (yet) in the run directory</h3>\n<ul class=\"notes\">";
    for (const auto& m : run.missing) c << "<li><code>" << h(m) << "</code></li>";
    c << "</ul>\n";
  }
  if (!run.config_changes.empty()) {
    c << "<h3 style=\"margin:14px 0 0;font-size:15px\">Config changes on resuming</h3>\n<ul class=\"notes\">";
    for (const auto& l : run.config_changes)
      for (const auto& ch : l.changes)
        c << "<li>after generation " << l.after_generation << " (" << h(l.time) << "): <code>" << h(ch[0])
          << "</code> " << h(ch[1]) << " \u2192 " << h(ch[2]) << "</li>";
    c << "</ul>\n";
  }
  c << "<h3 style=\"margin:14px 0 0;font-size:15px\">Notes on the data</h3>\n";
  if (run.notes.empty()) {
    c << "<p class=\"muted\" style=\"margin:4px 0\">Every file present was read completely.</p>\n";
  } else {
    c << "<ul class=\"notes\">";
    for (const auto& n : run.notes) c << "<li>" << h(n) << "</li>";
    c << "</ul>\n";
  }
  os << card(c.str());
  return os.str();
}

// The page's sections in order: anchor id, the text of its link in the navigation bar, heading,
// lead paragraph (HTML, written as is; none when empty) and the function that writes the
// section's content.
struct Section {
  const char* id;
  const char* link;
  const char* title;
  const char* lead;
  std::string (*content)(const RunData&);
};
const Section kSections[] = {
    {"strength", "Strength", "Strength",
     "Bradley\u2013Terry Elo of each generation's network against the baselines and earlier networks; bars "
     "are 95% intervals, dashed grey lines the baselines.",
     strength_section},
    {"crosstable", "Cross-table", "Cross-table",
     "Wins/games of the row player against the column player; green cells are winning scores, red losing "
     "ones.",
     crosstable_section},
    {"evaluation", "Evaluation", "Evaluation by generation",
     "Each new network's games against its opponents: wins/games, score, and the 95% Wilson interval of "
     "the score.",
     evaluation_section},
    {"training", "Training", "Training",
     "Losses and accuracies as logged by the trainer; dotted lines mark where the next generation's "
     "training begins.",
     training_section},
    {"selfplay", "Self-play", "Self-play",
     "Games the current best network played against itself to make each generation's training data.",
     selfplay_section},
    {"games", "Games", "Games",
     "Final positions. Lines are coloured by who kicked them (player 0 pink, attacking north; player 1 "
     "blue, attacking south); the last turn is drawn bolder.",
     games_section},
    {"files", "Files &amp; notes", "Files &amp; notes", "", files_section},
};

}  // namespace

std::string render_report_html(const RunData& run) {
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
     << h(run_title(run)) << " \u00b7 Paper Soccer training report</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n<main>\n";
  os << header(run) << "<nav>";
  for (const Section& s : kSections) os << "<a href=\"#" << s.id << "\">" << s.link << "</a>";
  os << "</nav>\n";
  for (const Section& s : kSections)
    os << section_head(s.id, s.title, s.lead) << s.content(run) << "</section>\n";
  os << "<footer>Written by <code>papersoccer report</code> on " << utc_now() << ".</footer>\n";
  os << "</main>\n</body>\n</html>\n";
  return os.str();
}

std::string write_report(const std::string& run_dir, const std::string& out_path, RunData* loaded) {
  RunData run = load_run(run_dir);
  const std::string path = out_path.empty() ? (std::filesystem::path(run_dir) / "report.html").string() : out_path;
  write_file_atomic(path, render_report_html(run));
  if (loaded) *loaded = std::move(run);
  return path;
}

}  // namespace ps::report
