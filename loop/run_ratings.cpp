#include "loop/run_ratings.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "core/fileutil.h"
#include "loop/run_dir.h"

namespace ps {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Every evaluation game of the finished generations (eval/gen-*/outcomes.json).
std::vector<Outcome> load_outcomes(const std::string& eval_dir) {
  std::vector<Outcome> all;
  if (!fs::is_directory(eval_dir)) return all;
  std::vector<std::string> files;
  for (auto& e : fs::directory_iterator(eval_dir))
    if (fs::exists(e.path() / "outcomes.json")) files.push_back((e.path() / "outcomes.json").string());
  std::sort(files.begin(), files.end());
  for (auto& f : files) {
    json j = read_json_file(f);
    for (auto& g : j.at("games")) all.push_back({g.at("winner").get<std::string>(), g.at("loser").get<std::string>()});
  }
  return all;
}

int Ratings::index(const std::string& n) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == n) return int(i);
  return -1;
}

std::pair<double, double> Ratings::elo(const std::string& n) const {
  const int i = index(n);
  if (i < 0 || size_t(i) >= result.players.size()) return {NAN, NAN};
  return {result.players[size_t(i)].elo, result.players[size_t(i)].ci95};
}

Ratings rate_all(const std::vector<Outcome>& outcomes) {
  Ratings r;
  std::set<std::string> seen;
  // Baselines first, then networks in order.
  for (const char* b : {"random", "greedy"})
    for (auto& o : outcomes)
      if (o.winner == b || o.loser == b) {
        if (seen.insert(b).second) r.names.push_back(b);
        break;
      }
  std::set<std::string> nets;
  for (auto& o : outcomes) {
    if (!seen.count(o.winner)) nets.insert(o.winner);
    if (!seen.count(o.loser)) nets.insert(o.loser);
  }
  for (auto& n : nets) r.names.push_back(n);
  r.wins.assign(r.names.size(), std::vector<int>(r.names.size(), 0));
  std::vector<tour::GameOutcome> games;
  for (auto& o : outcomes) {
    tour::GameOutcome g;
    g.winner = r.index(o.winner);
    g.loser = r.index(o.loser);
    games.push_back(g);
    r.wins[size_t(g.winner)][size_t(g.loser)] += 1;
  }
  if (r.names.size() < 2) return r;
  tour::RatingOptions opt;
  opt.anchor = std::max(0, r.index("random"));
  r.anchor = r.names[size_t(opt.anchor)];
  r.result = tour::compute_ratings(int(r.names.size()), games, opt);
  return r;
}

void write_ratings_json(const Ratings& r, const std::string& path) {
  json players = json::array();
  for (size_t i = 0; i < r.names.size(); ++i) {
    const auto& p = r.result.players.size() > i ? r.result.players[i] : tour::PlayerRating{};
    players.push_back({{"name", r.names[i]},
                       {"elo", std::isfinite(p.elo) ? p.elo : 0.0},
                       {"rated", std::isfinite(p.elo)},
                       {"ci95", p.ci95},
                       {"games", p.games},
                       {"wins", p.wins}});
  }
  json j = {{"anchor", r.anchor},
            {"players", players},
            {"crosstable", {{"names", r.names}, {"wins", r.wins}}}};
  write_file_atomic(path, j.dump(2) + "\n");
}

}  // namespace ps
