#include "tournament/tournament.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <iomanip>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/fileutil.h"
#include "core/text.h"
#include "tournament/external_engine.h"
#include "tournament/openings.h"

namespace ps::tour {

namespace {

using Clock = std::chrono::steady_clock;

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

bool all_digits(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '7'; });
}

std::unique_ptr<Player> make_player(const PlayerSpec& ps, const PlayerContext& ctx) {
  if (ps.make) {
    auto p = ps.make(ctx);
    if (!p) throw std::runtime_error("player '" + ps.name + "': make() returned no player");
    return p;
  }
  return create_player(ps.type, ps.options, ctx, ps.source, ps.where.empty() ? "player '" + ps.name + "'" : ps.where);
}

bool accepts_openings(const Player& p) {
  auto* e = dynamic_cast<const ExternalEnginePlayer*>(&p);
  return !e || e->options().opening_history;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string tsv_field(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace

const char* format_name(Format f) { return f == Format::kGauntlet ? "gauntlet" : "round-robin"; }

Format parse_format(const std::string& text) {
  if (text == "round-robin" || text == "roundrobin" || text == "round_robin") return Format::kRoundRobin;
  if (text == "gauntlet") return Format::kGauntlet;
  throw std::invalid_argument("unknown tournament format '" + text +
                              "' (expected round-robin or gauntlet)");
}

int CrossTable::total_wins(int i) const {
  int s = 0;
  for (int w : wins[size_t(i)]) s += w;
  return s;
}

int CrossTable::total_games(int i) const {
  int s = 0;
  for (size_t j = 0; j < wins.size(); ++j) s += games(i, int(j));
  return s;
}

GameResult play_game(Player& player0, Player& player1, const Pitch& pitch, Variant variant,
                     const std::vector<std::string>& opening, const TurnBudget& budget0,
                     const TurnBudget& budget1, const std::map<std::string, std::string>& pgn_tags) {
  const auto t0 = Clock::now();
  Player* players[2] = {&player0, &player1};
  const TurnBudget budgets[2] = {budget0, budget1};
  GameResult r;
  Game game(pitch, variant);
  for (size_t i = 0; i < opening.size(); ++i) {
    try {
      game.play_turn(opening[i]);
    } catch (const RecordError& e) {
      throw std::invalid_argument("opening turn " + std::to_string(i + 1) + " " + quoted_text(opening[i], 60) +
                                  ": " + e.what());
    }
    if (game.position().game_over())
      throw std::invalid_argument("the opening ends the game");
  }
  int forfeit = -1;  // seat that lost by forfeit
  auto lose = [&](int seat, const std::string& termination, const std::string& detail) {
    forfeit = seat;
    r.termination = termination;
    r.detail = detail;
  };
  for (int s = 0; s < 2 && forfeit < 0; ++s) {
    try {
      players[s]->new_game(pitch, variant);
    } catch (const EngineFailure& e) {
      lose(s, e.kind_name(), e.what());
    } catch (const std::exception& e) {
      lose(s, "player error", std::string("new_game failed: ") + e.what());
    }
  }
  while (forfeit < 0 && !game.position().game_over()) {
    const int s = game.position().side_to_move();
    const auto start = Clock::now();
    std::string answer;
    bool ok = true;
    try {
      answer = players[s]->choose_turn(game, budgets[s]);
    } catch (const EngineFailure& e) {
      lose(s, e.kind_name(), e.what());
      ok = false;
    } catch (const std::exception& e) {
      lose(s, "player error", e.what());
      ok = false;
    }
    const int64_t ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    r.max_turn_ms[s] = std::max(r.max_turn_ms[s], ms);
    if (!ok) break;
    Game next = game;
    try {
      next.play_turn(answer);
    } catch (const RecordError& e) {
      const std::string detail = "answered " + quoted_text(answer, 60) + ": " + e.what();
      if (answer.empty() || !all_digits(answer))
        lose(s, "garbage output", detail);
      else if (std::string(e.what()).find("turn not finished") != std::string::npos)
        lose(s, "incomplete turn", detail);
      else
        lose(s, "illegal turn", detail);
      break;
    }
    game = std::move(next);
  }
  for (Player* p : players)
    if (auto* e = dynamic_cast<ExternalEnginePlayer*>(p)) e->finish();
  if (forfeit >= 0) {
    r.winner_seat = 1 - forfeit;
  } else {
    r.winner_seat = game.position().winner();
    r.termination = reason_name(game.position().reason());
  }
  r.winner = r.winner_seat;
  r.loser = 1 - r.winner_seat;
  r.record = game.record();
  r.turns = int(game.turns().size());
  std::map<std::string, std::string> tags = pgn_tags;
  tags["Result"] = r.winner_seat == 0 ? "1-0" : "0-1";
  tags["Termination"] = r.termination + (r.detail.empty() ? "" : ": " + r.detail);
  r.pgn = write_pgn(game, tags);
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

RatingResult rate_games(int num_players, const std::vector<GameResult>& games, int anchor,
                        double prior_draws) {
  std::vector<GameOutcome> outcomes;
  outcomes.reserve(games.size());
  for (const GameResult& g : games) outcomes.push_back({g.winner, g.loser});
  RatingOptions o;
  o.anchor = anchor;
  o.prior_draws = prior_draws;
  return compute_ratings(num_players, outcomes, o);
}

TournamentResult run_tournament(const TournamentSpec& spec, const std::vector<PlayerSpec>& players_in,
                                const ProgressFn& progress, const std::atomic<bool>* cancel) {
  const auto t0 = Clock::now();
  TournamentResult res;
  res.spec = spec;
  const int n = int(players_in.size());
  if (n < 2) throw std::invalid_argument("tournament: needs at least 2 players, got " + std::to_string(n));
  if (spec.games_per_pairing < 2 || spec.games_per_pairing % 2 != 0)
    throw std::invalid_argument("tournament: games_per_pairing must be even and >= 2 (each opening is "
                                "played with both colours), got " + std::to_string(spec.games_per_pairing));
  if (spec.openings < 1) throw std::invalid_argument("tournament: openings must be >= 1");
  if (spec.opening_turns < 0) throw std::invalid_argument("tournament: opening_turns must be >= 0");
  if (spec.concurrency < 1) throw std::invalid_argument("tournament: concurrency must be >= 1");
  if (spec.format == Format::kGauntlet && (spec.gauntlet_size < 1 || spec.gauntlet_size >= n))
    throw std::invalid_argument("tournament: gauntlet_size must be in [1, " + std::to_string(n - 1) +
                                "], got " + std::to_string(spec.gauntlet_size));
  const Pitch& pitch = Pitch::get(spec.width, spec.length, spec.goal);

  std::vector<PlayerSpec> players = players_in;
  std::set<std::string> names;
  for (int i = 0; i < n; ++i) {
    PlayerSpec& p = players[size_t(i)];
    if (p.name.empty()) p.name = p.type;
    if (p.name.empty()) throw std::invalid_argument("tournament: player " + std::to_string(i + 1) + " has no name and no type");
    if (!names.insert(p.name).second)
      throw std::invalid_argument("tournament: two players are named '" + p.name + "' (names must be unique)");
    if (!p.make && !has_player_type(p.type))
      create_player(p.type, p.options, PlayerContext{&pitch, spec.variant, 0, p.name}, p.source,
                    p.where.empty() ? "player '" + p.name + "'" : p.where);  // throws naming the types
    res.players.push_back(p.name);
    res.types.push_back(p.make ? std::string() : p.type);
  }
  // Anchor.
  int anchor = -1;
  if (!spec.anchor.empty()) {
    for (int i = 0; i < n; ++i)
      if (res.players[size_t(i)] == spec.anchor) anchor = i;
    if (anchor < 0) throw std::invalid_argument("tournament: anchor '" + spec.anchor + "' is not a player's name");
  } else {
    for (int i = 0; i < n && anchor < 0; ++i)
      if (res.types[size_t(i)] == "random") anchor = i;
    if (anchor < 0) anchor = 0;
  }

  // Create each player once now, so bad options fail before any game.
  bool any_fixed_start = false;
  for (int i = 0; i < n; ++i) {
    auto p = make_player(players[size_t(i)], PlayerContext{&pitch, spec.variant, spec.seed, res.players[size_t(i)]});
    if (!accepts_openings(*p)) any_fixed_start = true;
  }
  if (any_fixed_start && spec.opening_turns > 0)
    res.notes.push_back("games with an external engine that lacks opening_history start from the "
                        "start position (the protocol cannot set up an opening)");

  OpeningOptions oo;
  oo.count = spec.opening_turns == 0 ? 1 : spec.openings;
  oo.turns = spec.opening_turns;
  oo.seed = spec.seed;
  oo.balance_rollouts = spec.opening_balance_rollouts;
  res.openings = generate_openings(pitch, spec.variant, oo);

  // Schedule: game k of every pairing before game k + 1 of any, so partial results stay balanced.
  std::vector<std::pair<int, int>> pairings;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      if (spec.format == Format::kGauntlet && !(i < spec.gauntlet_size && j >= spec.gauntlet_size)) continue;
      pairings.emplace_back(i, j);
    }
  struct Job {
    int seat0, seat1, opening;
  };
  std::vector<Job> jobs;
  for (int k = 0; k < spec.games_per_pairing; ++k)
    for (auto [i, j] : pairings) {
      const int opening = (k / 2) % int(res.openings.size());
      jobs.push_back(k % 2 == 0 ? Job{i, j, opening} : Job{j, i, opening});
    }
  res.scheduled_games = int(jobs.size());

  auto budget_of = [&](const PlayerSpec& p) {
    TurnBudget b = spec.budget;
    if (p.time_ms) b.time_ms = *p.time_ms;
    if (p.visits) b.visits = *p.visits;
    return b;
  };

  std::string pgn_path, tsv_path;
  if (!spec.out_dir.empty()) {
    pgn_path = spec.out_dir + "/games.pgn";
    tsv_path = spec.out_dir + "/games.tsv";
    write_file_atomic(pgn_path, "");
    write_file_atomic(tsv_path, "game\tplayer0\tplayer1\twinner\ttermination\tdetail\topening\trecord\n");
  }

  std::vector<std::optional<GameResult>> done_games(jobs.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;  // guards done_count, files, progress, first_error
  int done_count = 0;
  std::exception_ptr first_error;

  auto worker = [&] {
    for (;;) {
      if (failed.load() || (cancel && cancel->load())) return;
      const size_t idx = next.fetch_add(1);
      if (idx >= jobs.size()) return;
      const Job& job = jobs[idx];
      try {
        const int seats[2] = {job.seat0, job.seat1};
        std::unique_ptr<Player> p[2];
        for (int s = 0; s < 2; ++s) {
          const uint64_t seed = splitmix64(spec.seed ^ splitmix64(idx * 2 + uint64_t(s) + 1));
          p[s] = make_player(players[size_t(seats[s])],
                             PlayerContext{&pitch, spec.variant, seed, res.players[size_t(seats[s])]});
        }
        const bool use_opening = accepts_openings(*p[0]) && accepts_openings(*p[1]);
        static const std::vector<std::string> kNoOpening;
        const auto& opening = use_opening ? res.openings[size_t(job.opening)] : kNoOpening;
        std::map<std::string, std::string> tags{
            {"Event", spec.name},
            {"Game", std::to_string(idx + 1)},
            {"Player0", res.players[size_t(job.seat0)]},
            {"Player1", res.players[size_t(job.seat1)]},
            {"Opening", use_opening ? opening_record(opening) : std::string("-")},
        };
        GameResult g = play_game(*p[0], *p[1], pitch, spec.variant, opening,
                                 budget_of(players[size_t(job.seat0)]),
                                 budget_of(players[size_t(job.seat1)]), tags);
        p[0].reset();
        p[1].reset();
        g.index = int(idx);
        g.seat[0] = job.seat0;
        g.seat[1] = job.seat1;
        g.opening = use_opening && !opening.empty() ? job.opening : -1;
        g.winner = seats[g.winner_seat];
        g.loser = seats[1 - g.winner_seat];
        std::lock_guard<std::mutex> lock(mutex);
        if (!pgn_path.empty()) {
          append_line(pgn_path, g.pgn);
          append_line(tsv_path, std::to_string(idx + 1) + "\t" + res.players[size_t(job.seat0)] + "\t" +
                                    res.players[size_t(job.seat1)] + "\t" + res.players[size_t(g.winner)] +
                                    "\t" + g.termination + "\t" + tsv_field(g.detail) + "\t" +
                                    std::to_string(g.opening) + "\t" + g.record);
        }
        ++done_count;
        done_games[idx] = std::move(g);
        if (progress) progress(*done_games[idx], done_count, int(jobs.size()));
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!first_error) first_error = std::current_exception();
        failed = true;
        return;
      }
    }
  };
  const int threads = std::min<int>(spec.concurrency, int(jobs.size()));
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  if (first_error) std::rethrow_exception(first_error);

  for (auto& g : done_games)
    if (g) res.games.push_back(std::move(*g));
  res.cancelled = res.games.size() < jobs.size();
  res.cross.wins.assign(size_t(n), std::vector<int>(size_t(n), 0));
  for (const GameResult& g : res.games) res.cross.wins[size_t(g.winner)][size_t(g.loser)]++;
  res.ratings = rate_games(n, res.games, anchor, spec.prior_draws);
  res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!spec.out_dir.empty()) write_results(res, spec.out_dir);
  return res;
}

// ---------------------------------------------------------------------------------------------
// Config files.

TournamentConfig parse_tournament_config(ConfigReader& r) {
  TournamentConfig c;
  TournamentSpec& s = c.spec;
  auto fail = [&](const std::string& key, const std::string& why) -> void {
    throw ConfigError(r.source() + ": " + r.path(key) + ": " + why);
  };
  s.name = r.get<std::string>("name", s.name);
  const std::string pitch = r.get<std::string>("pitch", "8x10");
  {
    int w = 0, l = 0;
    char x = 0;
    std::istringstream ss(pitch);
    if (!(ss >> w >> x >> l) || (x != 'x' && x != 'X') || !ss.eof()) fail("pitch", "expected WxL, e.g. 8x10, got '" + pitch + "'");
    s.width = w;
    s.length = l;
  }
  s.goal = r.get<int>("goal", s.goal);
  try {
    Pitch::get(s.width, s.length, s.goal);
  } catch (const std::exception& e) {
    fail("pitch", e.what());
  }
  try {
    s.variant = parse_variant(r.get<std::string>("variant", "standard"));
  } catch (const std::exception& e) {
    fail("variant", e.what());
  }
  try {
    s.format = parse_format(r.get<std::string>("format", "round-robin"));
  } catch (const std::exception& e) {
    fail("format", e.what());
  }
  s.gauntlet_size = r.get<int>("gauntlet_size", s.gauntlet_size);
  s.games_per_pairing = r.get<int>("games_per_pairing", s.games_per_pairing);
  if (s.games_per_pairing < 2 || s.games_per_pairing % 2) fail("games_per_pairing", "must be even and >= 2");
  s.openings = r.get<int>("openings", s.openings);
  if (s.openings < 1) fail("openings", "must be >= 1");
  s.opening_turns = r.get<int>("opening_turns", s.opening_turns);
  if (s.opening_turns < 0) fail("opening_turns", "must be >= 0");
  s.opening_balance_rollouts = r.get<int>("opening_balance_rollouts", s.opening_balance_rollouts);
  s.seed = r.get<uint64_t>("seed", s.seed);
  s.concurrency = r.get<int>("concurrency", s.concurrency);
  if (s.concurrency < 1) fail("concurrency", "must be >= 1");
  s.budget.time_ms = r.get<int64_t>("time_ms", s.budget.time_ms);
  if (s.budget.time_ms < 1 && s.budget.time_ms != -1) fail("time_ms", "must be >= 1 ms, or -1 for no limit");
  s.budget.visits = r.get<int64_t>("visits", s.budget.visits);
  if (s.budget.visits < 1 && s.budget.visits != -1) fail("visits", "must be >= 1, or -1 for no limit");
  s.anchor = r.get<std::string>("anchor", "");
  s.prior_draws = r.get<double>("prior_draws", s.prior_draws);
  s.out_dir = r.get<std::string>("out_dir", "");

  YAML::Node list = r.get<YAML::Node>("players", YAML::Node());
  if (!list || !list.IsSequence() || list.size() < 2)
    fail("players", "expected a list of at least 2 players (maps with name, type, ...)");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = r.path("players") + "[" + std::to_string(i) + "]";
    ConfigReader pr(list[i], r.source(), where);  // throws when not a map
    PlayerSpec p;
    p.source = r.source();
    p.where = where;
    p.type = pr.require<std::string>("type");
    p.name = pr.get<std::string>("name", p.type);
    if (pr.has("time_ms")) p.time_ms = pr.get<int64_t>("time_ms", -1);
    if (pr.has("visits")) p.visits = pr.get<int64_t>("visits", -1);
    for (const auto& [key, v] : {std::pair<const char*, std::optional<int64_t>>{"time_ms", p.time_ms},
                                 {"visits", p.visits}})
      if (v && *v < 1 && *v != -1)
        throw ConfigError(r.source() + ": " + where + "." + key + ": must be >= 1, or -1 for no limit");
    p.options = list[i];
    if (!has_player_type(p.type)) {
      std::string known;
      for (auto& [k, v] : player_types()) known += (known.empty() ? "" : ", ") + k;
      throw ConfigError(r.source() + ": " + where + ".type: unknown player type '" + p.type +
                        "' (registered: " + known + ")");
    }
    c.players.push_back(std::move(p));  // the type's own keys are checked by create_player
  }
  r.finish();
  return c;
}

TournamentConfig load_tournament_config(const std::string& path) {
  ConfigReader r = ConfigReader::from_file(path);
  return parse_tournament_config(r);
}

// ---------------------------------------------------------------------------------------------
// Output.

namespace {

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
  os << "Tournament '" << res.spec.name << "': " << format_name(res.spec.format) << ", "
     << res.games.size() << "/" << res.scheduled_games << " games"
     << (res.cancelled ? " (cancelled)" : "") << ", " << res.openings.size() << " opening(s), "
     << fixed(res.seconds, 1) << " s\n\n";
  os << std::left << std::setw(5) << "Rank" << std::setw(int(w) + 2) << "Player" << std::right
     << std::setw(9) << "Elo" << std::setw(9) << "+/-95%" << std::setw(8) << "Games" << std::setw(7)
     << "Wins" << std::setw(8) << "Score" << "\n";
  int rank = 0;
  for (int i : order) {
    const PlayerRating& r = res.ratings.players[size_t(i)];
    const int g = res.cross.total_games(i), wins = res.cross.total_wins(i);
    os << std::left << std::setw(5) << ++rank << std::setw(int(w) + 2) << res.players[size_t(i)]
       << std::right << std::setw(9) << fixed(r.elo, 1) << std::setw(9)
       << (i == res.ratings.anchor ? std::string("anchor") : fixed(r.ci95, 1)) << std::setw(8) << g
       << std::setw(7) << wins << std::setw(7) << (g ? fixed(100.0 * wins / g, 1) : "-") << "%\n";
  }
  os << "\nCross-table (wins/games of the row player against the column player):\n";
  os << std::left << std::setw(int(w) + 2) << "";
  for (int j : order) os << std::right << std::setw(std::max<int>(9, int(res.players[size_t(j)].size()) + 2)) << res.players[size_t(j)];
  os << "\n";
  for (int i : order) {
    os << std::left << std::setw(int(w) + 2) << res.players[size_t(i)];
    for (int j : order) {
      const int width = std::max<int>(9, int(res.players[size_t(j)].size()) + 2);
      std::string cell = i == j ? "-" : res.cross.games(i, j) == 0 ? "." :
          std::to_string(res.cross.wins[size_t(i)][size_t(j)]) + "/" + std::to_string(res.cross.games(i, j));
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

void write_results(const TournamentResult& res, const std::string& dir) {
  using nlohmann::json;
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
  write_file_atomic(dir + "/results.json", j.dump(2) + "\n");

  std::ostringstream rc;
  rc << "rank,player,type,elo,ci95,stderr,games,wins,score\n";
  int rank = 0;
  for (int i : ranking(res)) {
    const PlayerRating& r = res.ratings.players[size_t(i)];
    const int g = res.cross.total_games(i), w = res.cross.total_wins(i);
    rc << ++rank << "," << csv_field(res.players[size_t(i)]) << "," << csv_field(res.types[size_t(i)]) << ","
       << (r.rated ? fixed(r.elo, 2) : "") << "," << (r.rated ? fixed(r.ci95, 2) : "") << ","
       << (r.rated ? fixed(r.stderr_elo, 2) : "") << "," << g << "," << w << ","
       << (g ? fixed(double(w) / g, 4) : "") << "\n";
  }
  write_file_atomic(dir + "/ratings.csv", rc.str());

  std::ostringstream ct;
  ct << "player";
  for (int i = 0; i < n; ++i) ct << "," << csv_field(res.players[size_t(i)]);
  ct << "\n";
  for (int i = 0; i < n; ++i) {
    ct << csv_field(res.players[size_t(i)]);
    for (int k = 0; k < n; ++k)
      ct << "," << (i == k ? std::string() : std::to_string(res.cross.wins[size_t(i)][size_t(k)]) + "/" +
                                                   std::to_string(res.cross.games(i, k)));
    ct << "\n";
  }
  write_file_atomic(dir + "/crosstable.csv", ct.str());

  std::ostringstream gc;
  gc << "game,player0,player1,winner,termination,detail,opening,turns,record\n";
  for (const GameResult& g : res.games)
    gc << g.index + 1 << "," << csv_field(res.players[size_t(g.seat[0])]) << ","
       << csv_field(res.players[size_t(g.seat[1])]) << "," << csv_field(res.players[size_t(g.winner)]) << ","
       << csv_field(g.termination) << "," << csv_field(g.detail) << "," << g.opening << "," << g.turns << ","
       << csv_field(g.record) << "\n";
  write_file_atomic(dir + "/games.csv", gc.str());
}

}  // namespace ps::tour
