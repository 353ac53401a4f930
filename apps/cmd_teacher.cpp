// `teacher CONFIG --out DIR`: teacher self-play (selfplay/teacher.h): games of the alphabeta
// player against itself as training data chunks that `train` reads, then the calibration of
// the value target's scale S from the results of the games just played.
#include <cstdio>
#include <memory>

#include "apps/commands.h"
#include "core/config.h"
#include "core/plural.h"
#include "core/progress.h"
#include "loop/role_claim.h"
#include "search/leaf_evals.h"
#include "selfplay/teacher.h"

namespace ps::cmd {

namespace {

struct TeacherCommand {
  std::string config, out = "teacher-data", prefix = "teacher";
  int64_t games = -1;

  void run() const {
    ConfigReader top = ConfigReader::from_file(config);
    ConfigReader r = top.child("selfplay");
    // A run config without it (configs/quickstart.yaml) used to play the default teacher's games
    // without a word: the map is the sign that the config was written for this command.
    if (!r.has("teacher"))
      r.fail_key("teacher",
                 "required map is missing: the teacher's search (selfplay/teacher.h; "
                 "`teacher: {}` takes the defaults), e.g. configs/teacher-8x10.yaml");
    ConfigReader tr = r.child("teacher");
    const TeacherOptions options = parse_teacher_options(tr);
    SelfplayConfig cfg = parse_selfplay_config(r);
    // A value net for other rules than a game's was refused when that game began, games into
    // the run and without its key: every pitch and variant of the mix now,
    // before --out is made.
    if (!options.value_net.empty())
      for (const PitchChoice& pc : cfg.pitches)
        for (Variant v : cfg.variants) {
          try {
            check_value_net_rules(options.value_net, Pitch::get(pc.width, pc.length, pc.goal), v);
          } catch (const std::exception& e) {
            tr.fail_key("value_net", e.what());
          }
        }
    // The other sections of a run config are allowed (one config serves `train` too).
    for (const char* section : {"run", "service", "train", "evaluate"}) (void)top.child(section);
    top.finish();
    if (games >= 0) cfg.games = games;
    const auto claim = claim_chunk_folder(out, prefix);  // one writer per --out and --prefix
    ProgressLine line;
    const TeacherRunStats st =
        run_teacher_selfplay(cfg, options, out, prefix, [&](const SelfplayStats& s, int64_t target) {
          line.update(std::to_string(s.games) + "/" + std::to_string(target) +
                      " teacher games: " + s.summary());
        });
    line.finish();
    if (st.games.games == 0) {  // a finished run, started again: say so rather than print zeros
      std::printf("teacher: %s already holds %s under prefix %s (%lld asked): nothing to play\n", out.c_str(),
                  counted(count_stored_games(out, prefix), "game").c_str(), prefix.c_str(),
                  (long long)cfg.games);
      return;
    }
    std::printf("%s\n", st.games.summary().c_str());
    if (st.games.searches > 0)
      std::printf("teacher: %.0f nodes per turn on average\n",
                  double(st.games.visits) / double(st.games.searches));
    const TeacherCalibration cal = teacher_calibration(st.scores);
    if (cal.positions > 0)
      std::printf(
          "value_scale calibration over %lld unproven positions of these games: best S %.0f (MSE of "
          "tanh(score/S) against the result %.4f); configured S %.0f (MSE %.4f); predicting 0: MSE 1\n",
          (long long)cal.positions, cal.best_scale, cal.best_mse, options.value_scale,
          cal.mse_at(options.value_scale));
  }
};

}  // namespace

void register_teacher_command(CLI::App& app) {
  auto opts = std::make_shared<TeacherCommand>();
  auto* cmd = app.add_subcommand(
      "teacher",
      "Teacher self-play: alphabeta against itself, written as training data chunks for `train` "
      "(keys: selfplay.teacher, selfplay/teacher.h); resumable");
  cmd->add_option("config", opts->config, "YAML with a selfplay: map and its teacher: map")->required();
  cmd->add_option("--out", opts->out, "output directory")->capture_default_str();
  cmd->add_option("--prefix", opts->prefix, "chunk file prefix")->capture_default_str();
  cmd->add_option("--games", opts->games, "games in all in --out (overrides selfplay.games)")
      ->check(integer_at_least(0));
  cmd->callback([opts] { opts->run(); });
}

}  // namespace ps::cmd
