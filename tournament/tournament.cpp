#include "tournament/tournament.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "core/field_check.h"
#include "core/fileutil.h"
#include "core/plural.h"
#include "core/random.h"
#include "core/text.h"
#include "tournament/external_engine.h"
#include "tournament/openings.h"
#include "tournament/results.h"

namespace ps::tour {

namespace {

using Clock = std::chrono::steady_clock;

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

// The messages below spell the bounds out with digit groups.
static_assert(TournamentSpec::kMaxGamesPerPairing == 1000000 && TournamentSpec::kMaxGames == 1000000 &&
                  TournamentSpec::kMaxConcurrency == 1024,
              "update the messages of validate() and run_tournament()");

void TournamentSpec::validate() const {
  const FieldCheck check("tournament: ");
  check(games_per_pairing >= 2 && games_per_pairing % 2 == 0, "games_per_pairing", "must be even and >= 2");
  check(games_per_pairing <= kMaxGamesPerPairing, "games_per_pairing", "must be at most 1,000,000");
  check(openings >= 0, "openings", "must be >= 0 (0: one per pair of games)");
  check(opening_turns >= 0, "opening_turns", "must be >= 0");
  check(opening_balance_rollouts >= 0, "opening_balance_rollouts",
        "must be >= 0 (0: openings are not balanced)");
  check((prior_draws >= 0 && std::isfinite(prior_draws)) || prior_draws == -1, "prior_draws",
        "must be >= 0 and finite, or -1 for the automatic prior");
  check(concurrency >= 1, "concurrency", "must be >= 1");
  check(concurrency <= kMaxConcurrency, "concurrency", "must be at most 1,024 (one thread per game)");
  check(budget.time_ms >= 1 || budget.time_ms == -1, "time_ms", "must be >= 1 ms, or -1 for no limit");
  check(budget.visits >= 1 || budget.visits == -1, "visits", "must be >= 1, or -1 for no limit");
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

namespace {

struct Job {
  int seat0, seat1, opening;
};

// Checks the players (names, types) and fills res.players and res.types; returns the players
// with their names set.
std::vector<PlayerSpec> check_players(const TournamentSpec& spec, const Pitch& pitch,
                                      const std::vector<PlayerSpec>& players_in, TournamentResult& res) {
  const int n = int(players_in.size());
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
  return players;
}

// The player rated 0 Elo: spec.anchor by name, else the first "random" player, else the first.
int anchor_index(const TournamentSpec& spec, const TournamentResult& res) {
  const int n = int(res.players.size());
  if (!spec.anchor.empty()) {
    for (int i = 0; i < n; ++i)
      if (res.players[size_t(i)] == spec.anchor) return i;
    throw std::invalid_argument("tournament: anchor '" + spec.anchor + "' is not a player's name");
  }
  for (int i = 0; i < n; ++i)
    if (res.types[size_t(i)] == "random") return i;
  return 0;
}

// Games of the pairing of players a and b (PlayerSpec::games).
int pairing_games(const TournamentSpec& spec, const PlayerSpec& a, const PlayerSpec& b) {
  if (a.games && b.games) return std::min(*a.games, *b.games);
  return a.games ? *a.games : b.games ? *b.games : spec.games_per_pairing;
}

// The most games any pairing plays: spec.games_per_pairing, or a player's own count.
int most_pairing_games(const TournamentSpec& spec, const std::vector<PlayerSpec>& players) {
  int most = spec.games_per_pairing;
  for (const PlayerSpec& p : players)
    if (p.games) most = std::max(most, *p.games);
  return most;
}

// Game k of every pairing before game k + 1 of any, so partial results stay balanced; game k
// of a pairing uses opening (k / 2) mod openings, colours swapped between k and k + 1.
std::vector<Job> schedule(const TournamentSpec& spec, const std::vector<PlayerSpec>& players,
                          int num_openings) {
  const int n = int(players.size());
  std::vector<std::tuple<int, int, int>> pairings;  // i, j, games
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      if (spec.format == Format::kGauntlet && !(i < spec.gauntlet_size && j >= spec.gauntlet_size)) continue;
      pairings.emplace_back(i, j, pairing_games(spec, players[size_t(i)], players[size_t(j)]));
    }
  std::vector<Job> jobs;
  const int most = most_pairing_games(spec, players);
  for (int k = 0; k < most; ++k)
    for (auto [i, j, games] : pairings) {
      if (k >= games) continue;
      const int opening = (k / 2) % num_openings;
      jobs.push_back(k % 2 == 0 ? Job{i, j, opening} : Job{j, i, opening});
    }
  return jobs;
}

TurnBudget budget_of(const TournamentSpec& spec, const PlayerSpec& p) {
  TurnBudget b = spec.budget;
  if (p.time_ms) b.time_ms = *p.time_ms;
  if (p.visits) b.visits = *p.visits;
  return b;
}

// Plays scheduled game idx with fresh players seeded from the spec's seed and the game index.
GameResult play_scheduled(const TournamentSpec& spec, const Pitch& pitch,
                          const std::vector<PlayerSpec>& players, const TournamentResult& res, const Job& job,
                          size_t idx) {
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
  GameResult g =
      play_game(*p[0], *p[1], pitch, spec.variant, opening, budget_of(spec, players[size_t(job.seat0)]),
                budget_of(spec, players[size_t(job.seat1)]), tags);
  g.index = int(idx);
  g.seat[0] = job.seat0;
  g.seat[1] = job.seat1;
  g.opening = use_opening && !opening.empty() ? job.opening : -1;
  g.winner = seats[g.winner_seat];
  g.loser = seats[1 - g.winner_seat];
  return g;
}

// games.pgn and games.tsv of spec.out_dir, appended as games end (nothing when out_dir is "").
// The parts of s between the separators (a last empty part after a final separator included).
std::vector<std::string> split_on(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == sep) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

constexpr const char* kGamesTsvHeader =
    "game\tplayer0\tplayer1\twinner\ttermination\tdetail\topening\trecord";

class GameLog {
 public:
  /// keep: the files of an earlier call stay, and new games are appended (spec.resume).
  GameLog(const std::string& out_dir, bool keep) {
    if (out_dir.empty()) return;
    pgn_path_ = out_dir + "/games.pgn";
    tsv_path_ = out_dir + "/games.tsv";
    if (keep && std::filesystem::exists(tsv_path_)) {
      // A torn last line would join the next game's: the file ends with a newline first.
      const std::string tsv = read_file(tsv_path_);
      if (!tsv.empty() && tsv.back() != '\n')
        write_file_atomic(tsv_path_, tsv.substr(0, tsv.rfind('\n') + 1));
      return;
    }
    write_file_atomic(pgn_path_, "");
    write_file_atomic(tsv_path_, std::string(kGamesTsvHeader) + "\n");
  }
  void append(const GameResult& g, const std::vector<std::string>& names) const {
    if (pgn_path_.empty()) return;
    append_line(pgn_path_, g.pgn);
    append_line(tsv_path_, std::to_string(g.index + 1) + "\t" + names[size_t(g.seat[0])] + "\t" +
                               names[size_t(g.seat[1])] + "\t" + names[size_t(g.winner)] + "\t" +
                               g.termination + "\t" + tsv_field(g.detail) + "\t" + std::to_string(g.opening) +
                               "\t" + g.record);
  }

 private:
  std::string pgn_path_, tsv_path_;
};

// The games an earlier call left in out_dir/games.tsv (spec.resume), by schedule index.
std::vector<std::optional<GameResult>> stored_games(const TournamentSpec& spec, const TournamentResult& res,
                                                    const std::vector<Job>& jobs) {
  std::vector<std::optional<GameResult>> out(jobs.size());
  const std::string path = spec.out_dir + "/games.tsv";
  if (!spec.resume || spec.out_dir.empty() || !std::filesystem::exists(path)) return out;
  const std::string text = read_file(path);
  const std::vector<std::string> lines = split_on(text, '\n');
  auto index_of = [&](const std::string& name) {
    for (size_t i = 0; i < res.players.size(); ++i)
      if (res.players[i] == name) return int(i);
    return -1;
  };
  for (size_t n = 0; n < lines.size(); ++n) {
    if (lines[n].empty()) continue;
    if (n == 0) {
      if (lines[n] != kGamesTsvHeader)
        throw std::runtime_error(path + ": line 1 is not the games.tsv header of a tournament");
      continue;
    }
    if (n + 1 == lines.size() && text.back() != '\n') break;  // a torn last line: played again
    const std::vector<std::string> f = split_on(lines[n], '\t');
    auto bad = [&](const std::string& why) {
      return std::runtime_error(path + ": line " + std::to_string(n + 1) + ": " + why +
                                " (written by another tournament? remove the folder to start over)");
    };
    if (f.size() != 8) throw bad("8 tab-separated fields expected");
    int game = 0, opening = 0;
    try {
      game = std::stoi(f[0]);
      opening = std::stoi(f[6]);
    } catch (const std::exception&) {
      throw bad("the game or opening number is not a number");
    }
    if (game < 1 || size_t(game) > jobs.size()) throw bad("game " + f[0] + " is not in this schedule");
    const Job& job = jobs[size_t(game - 1)];
    if (index_of(f[1]) != job.seat0 || index_of(f[2]) != job.seat1)
      throw bad("game " + f[0] + " is scheduled between other players");
    GameResult g;
    g.index = game - 1;
    g.seat[0] = job.seat0;
    g.seat[1] = job.seat1;
    g.opening = opening;
    if (f[3] == f[1]) g.winner_seat = 0;
    else if (f[3] == f[2]) g.winner_seat = 1;
    else throw bad("the winner '" + f[3] + "' did not play game " + f[0]);
    g.winner = g.seat[g.winner_seat];
    g.loser = g.seat[1 - g.winner_seat];
    g.termination = f[4];
    g.detail = f[5];
    g.record = f[7];
    g.turns = g.record.empty() ? 0 : int(std::count(g.record.begin(), g.record.end(), ' ')) + 1;
    out[size_t(g.index)] = std::move(g);
  }
  return out;
}

// Plays the jobs on spec.concurrency threads; finished games by schedule index (empty where
// cancelled), the stored ones of spec.resume first. The first exception stops the workers and
// is rethrown once they have ended.
std::vector<std::optional<GameResult>> play_jobs(const TournamentSpec& spec, const Pitch& pitch,
                                                 const std::vector<PlayerSpec>& players,
                                                 const TournamentResult& res, const std::vector<Job>& jobs,
                                                 const ProgressFn& progress,
                                                 const std::atomic<bool>* cancel) {
  std::vector<std::optional<GameResult>> done_games = stored_games(spec, res, jobs);
  const GameLog log(spec.out_dir, spec.resume);
  std::vector<size_t> todo;
  int done_count = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!done_games[i]) {
      todo.push_back(i);
      continue;
    }
    ++done_count;
    if (progress) progress(*done_games[i], done_count, int(jobs.size()));
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;  // guards done_count, the log, progress, first_error
  std::exception_ptr first_error;
  auto worker = [&] {
    for (;;) {
      if (failed.load() || (cancel && cancel->load())) return;
      const size_t at = next.fetch_add(1);
      if (at >= todo.size()) return;
      const size_t idx = todo[at];
      try {
        GameResult g = play_scheduled(spec, pitch, players, res, jobs[idx], idx);
        std::lock_guard<std::mutex> lock(mutex);
        log.append(g, res.players);
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
  const int threads = std::min<int>(spec.concurrency, int(todo.size()));
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  if (first_error) std::rethrow_exception(first_error);
  return done_games;
}

}  // namespace

TournamentResult run_tournament(const TournamentSpec& spec, const std::vector<PlayerSpec>& players_in,
                                const ProgressFn& progress, const std::atomic<bool>* cancel) {
  const auto t0 = Clock::now();
  TournamentResult res;
  res.spec = spec;
  const int n = int(players_in.size());
  if (n < 2) throw std::invalid_argument("tournament: needs at least 2 players, got " + std::to_string(n));
  spec.validate();
  if (spec.format == Format::kGauntlet && (spec.gauntlet_size < 1 || spec.gauntlet_size >= n))
    throw std::invalid_argument("tournament: gauntlet_size must be in [1, " + std::to_string(n - 1) +
                                "], got " + std::to_string(spec.gauntlet_size));
  for (const PlayerSpec& p : players_in)
    if (p.games && (*p.games < 2 || *p.games % 2 || *p.games > TournamentSpec::kMaxGamesPerPairing))
      throw std::invalid_argument("tournament: player " + p.name + ": games " + std::to_string(*p.games) +
                                  " must be even and in [2, 1,000,000]");
  const int most_games = most_pairing_games(spec, players_in);
  {
    // Counted, not listed: the list of pairings of 100,000 players would itself be the blow-up.
    // A bound: every pairing at the most games any plays.
    const long long pairings = spec.format == Format::kGauntlet
                                   ? (long long)spec.gauntlet_size * (n - spec.gauntlet_size)
                                   : (long long)n * (n - 1) / 2;
    const long long total = pairings * most_games;
    if (total > TournamentSpec::kMaxGames)
      throw std::invalid_argument("tournament: " + std::to_string(pairings) +
                                  " pairings x games_per_pairing " + std::to_string(most_games) + " = " +
                                  std::to_string(total) +
                                  " games; at most 1,000,000 in one tournament (fewer games or players)");
  }
  const Pitch& pitch = Pitch::get(spec.width, spec.length, spec.goal);
  const std::vector<PlayerSpec> players = check_players(spec, pitch, players_in, res);
  const int anchor = anchor_index(spec, res);

  // Create each player once now, so bad options fail before any game.
  bool any_fixed_start = false;
  for (int i = 0; i < n; ++i) {
    auto p = make_player(players[size_t(i)],
                         PlayerContext{&pitch, spec.variant, spec.seed, res.players[size_t(i)]});
    if (!accepts_openings(*p)) any_fixed_start = true;
  }
  if (any_fixed_start && spec.opening_turns > 0)
    res.notes.push_back(
        "games with an external engine that lacks opening_history start from the "
        "start position (the protocol cannot set up an opening)");

  OpeningOptions oo;
  // A pairing plays opening (k / 2) mod openings in its game k, so only the first
  // (most games of a pairing) / 2 openings are ever played; the generator is sequential, so
  // these are the same openings a larger count would list first.
  const int one_per_pair = std::max(1, most_games / 2);
  oo.count = spec.opening_turns == 0 ? 1
             : spec.openings == 0    ? one_per_pair
                                     : std::min(spec.openings, one_per_pair);
  oo.turns = spec.opening_turns;
  oo.seed = spec.seed;
  oo.balance_rollouts = spec.opening_balance_rollouts;
  try {
    res.openings = generate_openings(pitch, spec.variant, oo);
  } catch (const std::runtime_error& e) {
    if (spec.openings != 0) throw;
    throw std::runtime_error("tournament: " + counted(most_games, "game") +
                             " of a pairing play one opening per pair of games when openings "
                             "is not set, and " +
                             e.what() +
                             ": raise opening_turns, or set openings to a smaller count "
                             "(games of deterministic players then repeat)");
  }

  const std::vector<Job> jobs = schedule(spec, players, int(res.openings.size()));
  res.scheduled_games = int(jobs.size());
  for (auto& g : play_jobs(spec, pitch, players, res, jobs, progress, cancel))
    if (g) res.games.push_back(std::move(*g));
  res.cancelled = res.games.size() < jobs.size();
  res.cross.wins.assign(size_t(n), std::vector<int>(size_t(n), 0));
  for (const GameResult& g : res.games) res.cross.wins[size_t(g.winner)][size_t(g.loser)]++;
  res.ratings = rate_games(n, res.games, anchor, spec.prior_draws);
  res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!spec.out_dir.empty()) write_results(res, spec.out_dir);
  return res;
}

}  // namespace ps::tour
