#include "tournament/results.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/fileutil.h"
#include "core/plural.h"
#include "tournament/openings.h"
#include "tournament/ratings.h"

namespace ps::tour {

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::vector<int> ranking(const TournamentResult& res) {
  std::vector<int> order(res.players.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = int(i);
  auto key = [&](int i) {
    const PlayerRating& r = res.ratings.players[size_t(i)];
    return r.rated ? r.elo : -1e300;
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key(a) > key(b); });
  return order;
}

std::string fixed(double v, int prec) {
  if (std::isnan(v)) return "n/a";
  std::ostringstream os;
  os << std::fixed << std::setprecision(prec) << v;
  return os.str();
}

}  // namespace

std::string format_results(const TournamentResult& res) {
  std::ostringstream os;
  size_t w = 6;
  for (const auto& p : res.players) w = std::max(w, p.size());
  const auto order = ranking(res);
  os << "Tournament '" << res.spec.name << "': " << format_name(res.spec.format) << ", " << res.games.size()
     << "/" << res.scheduled_games << " games" << (res.cancelled ? " (cancelled)" : "") << ", "
     << counted(int64_t(res.openings.size()), "opening") << ", " << fixed(res.seconds, 1) << " s\n\n";
  os << std::left << std::setw(5) << "Rank" << std::setw(int(w) + 2) << "Player" << std::right << std::setw(9)
     << "Elo" << std::setw(9) << "+/-95%" << std::setw(8) << "Games" << std::setw(7) << "Wins" << std::setw(8)
     << "Score"
     << "\n";
  int rank = 0;
  for (int i : order) {
    const PlayerRating& r = res.ratings.players[size_t(i)];
    const int g = res.cross.total_games(i), wins = res.cross.total_wins(i);
    os << std::left << std::setw(5) << ++rank << std::setw(int(w) + 2) << res.players[size_t(i)] << std::right
       << std::setw(9) << fixed(elo_for_print(r.elo, 1), 1) << std::setw(9)
       << (i == res.ratings.anchor ? std::string("anchor") : fixed(r.ci95, 1)) << std::setw(8) << g
       << std::setw(7) << wins << std::setw(7) << (g ? fixed(100.0 * wins / g, 1) : "-") << "%\n";
  }
  os << "\nCross-table (wins/games of the row player against the column player):\n";
  os << std::left << std::setw(int(w) + 2) << "";
  for (int j : order)
    os << std::right << std::setw(std::max<int>(9, int(res.players[size_t(j)].size()) + 2))
       << res.players[size_t(j)];
  os << "\n";
  for (int i : order) {
    os << std::left << std::setw(int(w) + 2) << res.players[size_t(i)];
    for (int j : order) {
      const int width = std::max<int>(9, int(res.players[size_t(j)].size()) + 2);
      std::string cell = i == j                       ? "-"
                         : res.cross.games(i, j) == 0 ? "."
                                                      : std::to_string(res.cross.wins[size_t(i)][size_t(j)]) +
                                                            "/" + std::to_string(res.cross.games(i, j));
      os << std::right << std::setw(width) << cell;
    }
    os << "\n";
  }
  std::map<std::string, int> terms;
  for (const GameResult& g : res.games) terms[g.termination]++;
  os << "\nTerminations:";
  for (auto& [k, v] : terms) os << "  " << k << " " << v;
  os << "\n";
  if (!res.ratings.note.empty()) os << "Note: " << res.ratings.note << "\n";
  for (const std::string& note : res.notes) os << "Note: " << note << "\n";
  os << "Anchor: " << res.players[size_t(res.ratings.anchor)] << " = 0 Elo\n";
  return os.str();
}

namespace {

using nlohmann::json;

// results.json: the spec, the ratings, the cross-table and every game.
std::string results_json(const TournamentResult& res) {
  const int n = int(res.players.size());
  json j;
  j["name"] = res.spec.name;
  j["format"] = format_name(res.spec.format);
  j["pitch"] = std::to_string(res.spec.width) + "x" + std::to_string(res.spec.length);
  j["goal"] = res.spec.goal;
  j["variant"] = variant_name(res.spec.variant);
  j["games_per_pairing"] = res.spec.games_per_pairing;
  j["seed"] = res.spec.seed;
  j["scheduled_games"] = res.scheduled_games;
  j["played_games"] = res.games.size();
  j["cancelled"] = res.cancelled;
  j["seconds"] = res.seconds;
  j["anchor"] = res.players[size_t(res.ratings.anchor)];
  j["prior_draws_used"] = res.ratings.prior_draws_used;
  j["rating_note"] = res.ratings.note;
  j["notes"] = res.notes;
  j["openings"] = json::array();
  for (const auto& o : res.openings) j["openings"].push_back(opening_record(o));
  j["players"] = json::array();
  for (int i = 0; i < n; ++i) {
    const PlayerRating& r = res.ratings.players[size_t(i)];
    json p;
    p["name"] = res.players[size_t(i)];
    p["type"] = res.types[size_t(i)];
    p["rated"] = r.rated;
    p["elo"] = r.rated ? json(r.elo) : json(nullptr);
    p["ci95"] = r.rated ? json(r.ci95) : json(nullptr);
    p["stderr"] = r.rated ? json(r.stderr_elo) : json(nullptr);
    p["games"] = res.cross.total_games(i);
    p["wins"] = res.cross.total_wins(i);
    j["players"].push_back(p);
  }
  j["crosstable_wins"] = res.cross.wins;
  j["games"] = json::array();
  for (const GameResult& g : res.games) {
    json x;
    x["game"] = g.index + 1;
    x["player0"] = res.players[size_t(g.seat[0])];
    x["player1"] = res.players[size_t(g.seat[1])];
    x["winner"] = res.players[size_t(g.winner)];
    x["termination"] = g.termination;
    x["detail"] = g.detail;
    x["opening"] = g.opening;
    x["turns"] = g.turns;
    x["record"] = g.record;
    x["max_turn_ms"] = {g.max_turn_ms[0], g.max_turn_ms[1]};
    x["seconds"] = g.seconds;
    j["games"].push_back(x);
  }
  return j.dump(2) + "\n";
}

// ratings.csv: one row per player, best first.
std::string ratings_csv(const TournamentResult& res) {
  std::ostringstream rc;
  rc << "rank,player,type,elo,ci95,stderr,games,wins,score\n";
  int rank = 0;
  for (int i : ranking(res)) {
    const PlayerRating& r = res.ratings.players[size_t(i)];
    const int g = res.cross.total_games(i), w = res.cross.total_wins(i);
    rc << ++rank << "," << csv_field(res.players[size_t(i)]) << "," << csv_field(res.types[size_t(i)]) << ","
       << (r.rated ? fixed(elo_for_print(r.elo, 2), 2) : "") << "," << (r.rated ? fixed(r.ci95, 2) : "")
       << "," << (r.rated ? fixed(r.stderr_elo, 2) : "") << "," << g << "," << w << ","
       << (g ? fixed(double(w) / g, 4) : "") << "\n";
  }
  return rc.str();
}

// crosstable.csv: wins/games of the row player against the column player.
std::string crosstable_csv(const TournamentResult& res) {
  const int n = int(res.players.size());
  std::ostringstream ct;
  ct << "player";
  for (int i = 0; i < n; ++i) ct << "," << csv_field(res.players[size_t(i)]);
  ct << "\n";
  for (int i = 0; i < n; ++i) {
    ct << csv_field(res.players[size_t(i)]);
    for (int k = 0; k < n; ++k)
      ct << ","
         << (i == k ? std::string()
                    : std::to_string(res.cross.wins[size_t(i)][size_t(k)]) + "/" +
                          std::to_string(res.cross.games(i, k)));
    ct << "\n";
  }
  return ct.str();
}

// games.csv: one row per finished game.
std::string games_csv(const TournamentResult& res) {
  std::ostringstream gc;
  gc << "game,player0,player1,winner,termination,detail,opening,turns,record\n";
  for (const GameResult& g : res.games)
    gc << g.index + 1 << "," << csv_field(res.players[size_t(g.seat[0])]) << ","
       << csv_field(res.players[size_t(g.seat[1])]) << "," << csv_field(res.players[size_t(g.winner)]) << ","
       << csv_field(g.termination) << "," << csv_field(g.detail) << "," << g.opening << "," << g.turns << ","
       << csv_field(g.record) << "\n";
  return gc.str();
}

}  // namespace

void write_results(const TournamentResult& res, const std::string& dir) {
  write_file_atomic(dir + "/results.json", results_json(res));
  write_file_atomic(dir + "/ratings.csv", ratings_csv(res));
  write_file_atomic(dir + "/crosstable.csv", crosstable_csv(res));
  write_file_atomic(dir + "/games.csv", games_csv(res));
}

}  // namespace ps::tour
