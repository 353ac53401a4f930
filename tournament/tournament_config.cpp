#include "tournament/tournament_config.h"

#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

namespace ps::tour {

namespace {

// players[i] of a tournament config; the type's own keys are checked by create_player.
PlayerSpec parse_player_spec(const ConfigReader& r, const YAML::Node& node, size_t i) {
  const std::string where = r.path("players") + "[" + std::to_string(i) + "]";
  ConfigReader pr(node, r.source(), where);  // throws when not a map
  PlayerSpec p;
  p.source = r.source();
  p.where = where;
  p.type = pr.require<std::string>("type");
  p.name = pr.get<std::string>("name", p.type);
  if (pr.has("time_ms")) p.time_ms = pr.get<int64_t>("time_ms", -1);
  if (pr.has("visits")) p.visits = pr.get<int64_t>("visits", -1);
  for (const auto& [key, v] :
       {std::pair<const char*, std::optional<int64_t>>{"time_ms", p.time_ms}, {"visits", p.visits}})
    if (v && *v < 1 && *v != -1) pr.fail_key(key, "must be >= 1, or -1 for no limit");
  p.options = node;
  if (!has_player_type(p.type)) {
    std::string known;
    for (auto& [k, v] : player_types()) known += (known.empty() ? "" : ", ") + k;
    pr.fail_key("type", "unknown player type '" + p.type + "' (registered: " + known + ")");
  }
  return p;
}

}  // namespace

TournamentConfig parse_tournament_config(ConfigReader& r) {
  TournamentConfig c;
  TournamentSpec& s = c.spec;
  s.name = r.get<std::string>("name", s.name);
  const std::string pitch = r.get<std::string>("pitch", "8x10");
  s.goal = r.get<int>("goal", s.goal);
  try {
    const PitchChoice p = parse_pitch_spec(pitch, s.goal);
    s.width = p.width;
    s.length = p.length;
    s.goal = p.goal;
  } catch (const std::invalid_argument& e) {
    // A pitch that is fine on its own with the default goal: the goal key is the bad one.
    bool pitch_alone_ok = false;
    if (r.has("goal") && !pitch_spec_has_goal(pitch)) {
      try {
        parse_pitch_spec(pitch, TournamentSpec{}.goal);
        pitch_alone_ok = true;
      } catch (const std::invalid_argument&) {}
    }
    r.fail_key(pitch_alone_ok ? "goal" : "pitch", e.what());
  }
  if (r.has("goal") && pitch_spec_has_goal(pitch) && r.get<int>("goal", 2) != s.goal)
    r.fail_key("goal", "differs from the goal of pitch '" + pitch + "'");
  s.variant = r.get_parsed("variant", "standard", parse_variant);
  s.format = r.get_parsed("format", "round-robin", parse_format);
  r.read(field("gauntlet_size", s.gauntlet_size), field("games_per_pairing", s.games_per_pairing),
         field("openings", s.openings), field("opening_turns", s.opening_turns),
         field("opening_balance_rollouts", s.opening_balance_rollouts), field("seed", s.seed),
         field("concurrency", s.concurrency), field("time_ms", s.budget.time_ms),
         field("visits", s.budget.visits), field("anchor", s.anchor), field("prior_draws", s.prior_draws),
         field("out_dir", s.out_dir));

  YAML::Node list = r.get<YAML::Node>("players", YAML::Node());
  if (!list || !list.IsSequence() || list.size() < 2)
    r.fail_key("players", "expected a list of at least 2 players (maps with name, type, ...)");
  for (size_t i = 0; i < list.size(); ++i) c.players.push_back(parse_player_spec(r, list[i], i));
  // What run_tournament would refuse about the players, said here with the key's line.
  const int n = int(c.players.size());
  std::set<std::string> names;
  for (const PlayerSpec& p : c.players) {
    const std::string name = p.name.empty() ? p.type : p.name;
    if (!name.empty() && !names.insert(name).second)
      r.fail_key("players", "two players are named '" + name + "' (names must be unique)");
  }
  if (s.format == Format::kGauntlet && (s.gauntlet_size < 1 || s.gauntlet_size >= n))
    r.fail_key("gauntlet_size",
               "must be in [1, " + std::to_string(n - 1) + "] (the players minus at least one opponent)");
  if (!s.anchor.empty() && !names.count(s.anchor))
    r.fail_key("anchor", "'" + s.anchor + "' is not the name of a player");
  return r.finish_validated(c);
}

TournamentConfig load_tournament_config(const std::string& path) {
  ConfigReader r = ConfigReader::from_file(path);
  return parse_tournament_config(r);
}

}  // namespace ps::tour
