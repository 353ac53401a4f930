#include "report/value_net_report.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "core/fileutil.h"
#include "report/plot.h"

namespace ps::report {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json read_json(const std::string& path) {
  try {
    return json::parse(read_file(path, 16 << 20));
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": not JSON (" + e.what() + ")");
  }
}

std::vector<json> read_generations(const std::string& path) {
  std::vector<json> out;
  std::ifstream in(path);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    try {
      out.push_back(json::parse(line));
    } catch (const json::exception& e) {
      throw std::runtime_error(path + ": line " + std::to_string(n) + ": not JSON (" + e.what() + ")");
    }
  }
  return out;
}

std::string pct(int w, int n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", n ? 100.0 * w / n : 0.0);
  return buf;
}

std::string interval(const json& ci) {
  if (!ci.is_array() || ci.size() != 2) return "";
  char buf[48];
  std::snprintf(buf, sizeof buf, "[%.1f, %.1f]", 100 * ci[0].get<double>(), 100 * ci[1].get<double>());
  return buf;
}

std::string num(double v, const char* fmt) {
  char buf[48];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

const char* kStyle = R"CSS(
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}.yes{color:#14743a;font-weight:600}.no{color:#a33}
code{background:#f4f4f4;padding:0 3px}
)CSS";

}  // namespace

bool is_value_net_run(const std::string& run_dir) {
  const std::string state = run_dir + "/state.json";
  if (fs::exists(state)) {
    try {
      return read_json(state).value("learner", std::string()) == "value-net";
    } catch (const std::exception&) {
      return false;
    }
  }
  // A run record kept without its state (config, logs, report) says so in its config.
  const std::string config = run_dir + "/config.yaml";
  if (!fs::exists(config)) return false;
  try {
    const YAML::Node learner = YAML::LoadFile(config)["run"]["learner"];
    return learner && learner.IsScalar() && learner.as<std::string>() == "value-net";
  } catch (const std::exception&) {
    return false;
  }
}

std::string write_value_net_report(const std::string& run_dir, const std::string& out_path) {
  const std::string out = out_path.empty() ? run_dir + "/report.html" : out_path;
  const std::vector<json> gens = read_generations(run_dir + "/logs/generations.jsonl");
  // Without state.json (a kept run record) the last generation's line gives the best net and the
  // wall time, and the phase is said to be unknown.
  json state;
  if (fs::exists(run_dir + "/state.json")) {
    state = read_json(run_dir + "/state.json");
  } else {
    state = {{"phase", "not recorded (no state.json)"}};
    if (!gens.empty()) {
      state["best"] = gens.back().value("best", std::string("?"));
      state["seconds"] = gens.back().value("seconds", 0.0);
    }
  }
  std::ostringstream os;
  const std::string name = fs::path(run_dir).filename().string();
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << escape_xml(name)
     << " \u00b7 value-net run</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  os << "<h1>" << escape_xml(name) << ": value-net learner</h1>\n<p>" << gens.size()
     << " generations finished; best net <b>" << escape_xml(state.value("best", std::string("?")))
     << "</b> (<code>best.vnet</code>); phase " << escape_xml(state.value("phase", std::string())) << "; "
     << num(state.value("seconds", 0.0) / 60, "%.1f")
     << " min of wall time. Config: <code>config.yaml</code>.</p>\n";
  // Elo of the best net after each generation, chained from the gating matches.
  PlotSpec plot;
  plot.title = "Elo of the best net (generation 0 = 0), 95% interval";
  plot.x_label = "generation";
  plot.y_label = "Elo";
  plot.x_integer = true;
  Series elo("best net");
  elo.x.push_back(0);
  elo.y.push_back(0);
  elo.err.push_back(0);
  for (const json& g : gens) {
    elo.x.push_back(g.value("generation", 0));
    elo.y.push_back(g.value("elo", 0.0));
    elo.err.push_back(g.value("ci95", 0.0));
  }
  plot.series.push_back(elo);
  os << plot_svg(plot) << "\n";
  os << "<h2>Generations</h2>\n<table><tr><th>gen</th><th class=l>teacher</th><th>teacher games</th>"
        "<th>training positions</th><th>held-out MSE</th><th class=l>gating vs best</th><th>score [95%]</th>"
        "<th>LLR</th><th class=l>decision</th><th>best Elo</th><th>wall</th><th>peak RSS</th></tr>\n";
  for (const json& g : gens) {
    const json& d = g.at("gating");
    const json& t = g.value("train", json::object());
    const int w = d.value("wins", 0), n = d.value("games", 0);
    const bool promoted = g.value("promoted", false);
    os << "<tr><td>" << g.value("generation", 0) << "</td><td class=l>"
       << escape_xml(g.value("teacher", std::string())) << "</td><td>" << g.value("teacher_games", 0)
       << "</td><td>" << (t.is_object() ? std::to_string(t.value("train_samples", 0)) : std::string(""))
       << "</td><td>"
       << (t.is_object() && t.contains("holdout_mse") ? num(t.at("holdout_mse").get<double>(), "%.4f") : "")
       << "</td><td class=l>" << escape_xml(d.value("best", std::string())) << " at " << d.value("time_ms", 0)
       << " ms</td><td>" << w << "/" << n << " " << pct(w, n) << " " << interval(d.value("ci95", json()))
       << "</td><td>" << num(d.value("llr", 0.0), "%.2f")
       << "</td><td class=l><span class=" << (promoted ? "yes" : "no") << ">"
       << (promoted ? "promoted" : "rejected") << "</span> (" << escape_xml(d.value("reason", std::string()))
       << ")</td><td>" << num(g.value("elo", 0.0), "%+.0f") << " &plusmn; "
       << num(g.value("ci95", 0.0), "%.0f") << "</td><td>" << num(g.value("seconds", 0.0) / 60, "%.1f")
       << " min</td><td>" << num(g.value("peak_rss_mib", 0.0), "%.0f") << " MiB</td></tr>\n";
  }
  os << "</table>\n<h2>Ladders of the promoted nets</h2>\n<table><tr><th>gen</th><th class=l>opponent</th>"
        "<th>score [95%]</th><th>Elo</th><th class=l>single file</th></tr>\n";
  for (const json& g : gens) {
    const json& l = g.value("ladder", json());
    if (!l.is_object()) continue;
    const json& sf = g.value("single_file", json());
    std::string file;
    if (sf.is_object())
      file = escape_xml(fs::path(sf.value("file", std::string())).filename().string()) + ", " +
             std::to_string(sf.value("chars", 0)) + " chars" +
             (sf.contains("compiles") ? (sf.at("compiles").get<bool>() ? ", compiles" : ", DOES NOT COMPILE")
                                      : "");
    for (const json& row : l.at("rows")) {
      const int w = row.value("wins", 0), n = row.value("games", 0);
      os << "<tr><td>" << g.value("generation", 0) << "</td><td class=l>"
         << escape_xml(row.value("opponent", std::string())) << " at " << l.value("time_ms", 0)
         << " ms</td><td>" << w << "/" << n << " " << pct(w, n) << " " << interval(row.value("ci95", json()))
         << "</td><td>" << num(row.value("elo", 0.0), "%+.0f") << "</td><td class=l>" << file
         << "</td></tr>\n";
      file.clear();
    }
  }
  os << "</table>\n<p>Games to replay: <code>gating/gen-NNNN/games.pgn</code>, <code>ladder/gen-NNNN/games.pgn</code>; "
        "the teachers' games: <code>data/teacher-gen-NNNN/*.tsv</code>.</p>\n</body>\n</html>\n";
  write_file_atomic(out, os.str());
  return out;
}

}  // namespace ps::report
