// The training report: reading run directories (complete, partial, damaged, missing) and the
// HTML page written from them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

#include "core/stats.h"
#include "report/report.h"
#include "report/value_net_report.h"
#include "selfplay/data.h"
#include "tests/report/fake_run.h"

using namespace ps;
using namespace ps::report;
using ps::testing::TempDir;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// Opening and closing tags of the page's block elements pair up.
void check_balanced(const std::string& html) {
  for (const char* tag : {"section", "svg", "table", "div", "figure", "tr", "ul", "header", "main"}) {
    INFO("tag <" << tag << ">");
    CHECK(occurrences(html, std::string("<") + tag + " ") + occurrences(html, std::string("<") + tag + ">") ==
          occurrences(html, std::string("</") + tag + ">"));
  }
}

}  // namespace

TEST_CASE("a complete run of 3 generations gives the whole page") {
  TempDir dir("full");
  ps::testing::write_fake_run(dir.str(), 3);
  const std::string path = write_report(dir.str());
  CHECK(path == dir / "report.html");
  const std::string html = read_file(path);

  CHECK(html.rfind("<!DOCTYPE html>\n<html", 0) == 0);
  REQUIRE(html.size() > 20);
  CHECK(html.substr(html.size() - 8) == "</html>\n");
  check_balanced(html);
  // Self-contained: no scripts, no external resources.
  CHECK(occurrences(html, "<script") == 0);
  CHECK(occurrences(html, "src=") == 0);
  CHECK(occurrences(html, "href=\"http") == 0);

  for (const char* id : {"strength", "crosstable", "evaluation", "training", "selfplay", "games", "files"})
    CHECK_THAT(html, Contains(std::string("<section id=\"") + id + "\">"));
  // Eight plots (Elo, score against generation 0, losses, accuracies, game length, root turns,
  // throughput, seats) and five boards (3 evaluation games of generation 3, self-play of gen-0000
  // and gen-0002).
  CHECK(occurrences(html, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\"") == 8);
  CHECK(occurrences(html, "<figure class=\"board\"") == 5);
  CHECK(occurrences(html, "<svg ") == 13);

  // Header.
  CHECK_THAT(html, Contains("<h1>tiny-8x10<span class=\"chip live\">3 of 5 generations</span></h1>"));
  CHECK_THAT(html, Contains("8\u00d710 pitch, goal 2 \u00b7 standard rules"));
  CHECK_THAT(html, Contains("<div class=\"l\">Best network</div><div class=\"v\">gen-0003</div>"));
  CHECK_THAT(html, Contains("<div class=\"l\">Self-play games</div><div class=\"v\">120</div>"));
  CHECK_THAT(html, Contains("<div class=\"l\">Positions</div><div class=\"v\">4,800</div>"));
  CHECK_THAT(html, Contains("<div class=\"l\">Wall time</div><div class=\"v\">13 min 32 s</div>"));

  // Cross-table: greedy beat random 17 times in 20 games; random's row total is 4/60.
  CHECK_THAT(html, Contains(">17/20</td>"));
  CHECK_THAT(html, Contains(">3/20</td>"));
  CHECK_THAT(html, Contains("<td class=\"total\">4/60 <span class=\"muted\">7%</span></td>"));
  CHECK_THAT(html, Contains("<td class=\"total\">43/60"));  // gen-0001: 20 + 9 + 14
  // Ratings table: greedy (210) ranks first, the anchor is tagged.
  CHECK(html.find("<tr><td>1</td><td class=\"name\">greedy</td>") != std::string::npos);
  CHECK_THAT(html, Contains("random<span class=\"tag anchor\">anchor</span>"));
  // Score lines: 14/20 is 70% with the Wilson interval 48-85%.
  CHECK_THAT(html, Contains("<b>14/20</b> 70%<span>vs gen-0002 \u00b7 95%: 48\u201385%</span>"));
  CHECK_THAT(html, Contains("<b>20/20</b> 100%<span>95%: 84\u2013100%</span>"));
  CHECK_THAT(html, Contains("<th style=\"text-align:center\">vs earlier networks</th><th style=\"text-align:center\">vs "
                            "random</th><th style=\"text-align:center\">vs greedy</th>"));
  CHECK_THAT(html, Contains(">kept gen-0001</span>"));
  // Whether the loop learns: each generation's score against generation 0, with its interval.
  CHECK_THAT(html, Contains("Score against generation 0 (95% Wilson interval)"));
  CHECK_THAT(html, Contains(">level</text>"));
  // Board captions name the players from games.csv.
  CHECK_THAT(html, Contains("Evaluation \u00b7 gen 3 \u00b7 game 1"));
  CHECK_THAT(html, Contains("<span class=\"dot p0\"></span>gen-0003 <span class=\"muted\""));
  CHECK_THAT(html, Contains("Self-play \u00b7 gen-0000"));
  CHECK_THAT(html, Contains("Self-play \u00b7 gen-0002"));
  CHECK_THAT(html, Contains("gen-0002 <span class=\"muted\" style=\"font-weight:400\">vs itself</span>"));
  CHECK_THAT(html, Contains("<code>gen-0003.ckpt</code>"));
  CHECK_THAT(html, Contains("Every file present was read completely."));
}

TEST_CASE("load_run reads every file of the layout") {
  TempDir dir("load");
  ps::testing::write_fake_run(dir.str(), 2);
  RunData run = load_run(dir.str());
  CHECK(run.notes.empty());
  CHECK(run.missing.empty());
  CHECK(run.config.name == "tiny-8x10");
  CHECK(run.config.generations == 5);
  CHECK(run.state.generation == 2);
  CHECK(run.state.seconds == Approx(812.5));
  REQUIRE(run.train.size() == 8);
  CHECK(run.train.back().step == 200);
  CHECK(run.train.back().checkpoint == "gen-0002.ckpt");
  REQUIRE(run.selfplay.size() == 2);
  CHECK(run.selfplay[1].wins[0] == 20);
  CHECK(run.selfplay[1].wins[1] == 20);
  REQUIRE(run.generations.size() == 2);
  CHECK(run.generations[1].promoted == false);
  REQUIRE(run.generations[0].scores.size() == 3);
  CHECK(run.generations[0].scores[0].opponent == "gen-0000");  // the file's order is kept
  CHECK(run.ratings.cross_wins[3][2] == 14);
  REQUIRE(run.eval.size() == 2);
  CHECK(run.eval[0].games.empty());  // only the last generation's games are replayed
  CHECK(run.eval[1].total_games == 4);
  REQUIRE(run.eval[1].games.size() == 3);
  const RecordedGame& g = run.eval[1].games[0];
  CHECK(g.player0 == "gen-0002");
  CHECK(g.player1 == "random");
  CHECK(g.game->position().game_over());
  CHECK(g.winner == g.game->position().winner());
  REQUIRE(run.selfplay_games.size() == 2);
  CHECK(run.selfplay_games[0].network == "gen-0000");
  CHECK(run.selfplay_games[1].sample.has_value());
  CHECK(run.checkpoints.size() == 3);
}

TEST_CASE("a run killed during its first generation still gives a page") {
  TempDir dir("partial");
  write_file_atomic(dir / "config.yaml", "run: {name: cut-short, pitch: \"8x10\", goal: 2, generations: 10}\n");
  write_file_atomic(dir / "state.json", R"({"generation": 0, "started": "2026-11-29T19:00:00Z"})");
  // The last line was cut off while being written.
  write_file_atomic(dir / "logs/train.jsonl",
                    "{\"step\":25,\"policy_loss\":2.5,\"value_loss\":0.9}\n{\"step\":50,\"policy_loss\":2.3,\"va");
  write_file_atomic(dir / "logs/selfplay.jsonl",
                    R"({"generation":1,"network":"gen-0000","games":40,"samples":1600,"mean_game_turns":38.2})"
                    "\n");
  const std::string html = render_report_html(load_run(dir.str()));

  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  check_balanced(html);
  CHECK(occurrences(html, "class=\"plot\"") == 8);  // every plot is drawn, empty ones say so
  CHECK_THAT(html, Contains("no generation has played generation 0 yet"));
  CHECK_THAT(html, Contains("0 of 10 generations"));
  CHECK_THAT(html, Contains("no rated generation yet"));
  CHECK_THAT(html, Contains("ratings.json has not been written yet"));
  CHECK_THAT(html, Contains("logs/generations.jsonl has no evaluated generation yet"));
  CHECK_THAT(html, Contains("no finished games in eval/ or data/ yet"));
  CHECK_THAT(html, Contains("logs/train.jsonl line 2: not valid JSON (the last line; maybe cut off while written); skipped"));
  CHECK_THAT(html, Contains("<li><code>ratings.json</code></li>"));
  CHECK_THAT(html, Contains("<div class=\"l\">Self-play games</div><div class=\"v\">40</div>"));
  CHECK_THAT(html, Contains("<div class=\"l\">Wall time</div><div class=\"v\">–</div>"));
}

TEST_CASE("a checkpoint or best.model cut short is named, not counted as read") {
  // Regression: with the last checkpoint truncated (or best.model cut to 500 bytes) the page said
  // "Every file present was read completely": checkpoints were listed, never read.
  TempDir dir("cut_checkpoint");
  ps::testing::write_fake_run(dir.str(), 2);
  const std::string last = read_file(dir / "checkpoints/gen-0002.ckpt");
  write_file_atomic(dir / "checkpoints/gen-0002.ckpt", last.substr(0, last.size() / 2));
  write_file_atomic(dir / "best.model", last.substr(0, 500));
  RunData run = load_run(dir.str());
  CHECK_THAT(run.notes,
             Catch::VectorContains(std::string("checkpoints/gen-0002.ckpt: truncated or padded: payload is "
                                               "1012 bytes, header says 2048; it will not load")));
  CHECK_THAT(run.notes,
             Catch::VectorContains(std::string("best.model: truncated or padded: payload is 476 bytes, "
                                               "header says 2048; it will not load")));
  CHECK(run.notes.size() == 2);
  const std::string html = read_file(write_report(dir.str()));
  CHECK_THAT(html, !Contains("Every file present was read completely."));
}

TEST_CASE("damaged lines and files are skipped with notes, the rest is used") {
  TempDir dir("damaged");
  ps::testing::write_fake_run(dir.str(), 2);
  {
    std::string gens = read_file(dir / "logs/generations.jsonl");
    write_file_atomic(dir / "logs/generations.jsonl", "not json at all\n[1,2]\n{\"network\":\"x\"}\n" + gens);
  }
  write_file_atomic(dir / "state.json", "{\"generation\": ");
  write_file_atomic(dir / "config.yaml", "run: [unclosed\n");
  write_file_atomic(dir / "ratings.json", R"({"players":[{"name":"a","elo":1}],"crosstable":{"names":["a","b"],"wins":[[0,1]]}})");
  std::mt19937_64 rng(7);
  const std::string good = ps::testing::random_game_line(rng);
  write_file_atomic(dir / "eval/gen-0002/games.tsv",
                    "8\t10\t2\tstandard\t4 4 9\t0\tgoal\t3\n"       // bad character
                    "8\t10\t2\tstandard\t0 4\t0\tgoal\t2\n"         // illegal: back along the drawn line
                    "x\t10\t2\tstandard\t4\t0\tgoal\t1\n" +         // bad W column
                        good + "\n");

  RunData run = load_run(dir.str());
  auto has_note = [&](const std::string& part) {
    for (const auto& n : run.notes)
      if (n.find(part) != std::string::npos) return true;
    return false;
  };
  CHECK(run.generations.size() == 2);
  CHECK(has_note("logs/generations.jsonl line 1: not valid JSON; skipped"));
  CHECK(has_note("logs/generations.jsonl line 2: not a JSON object; skipped"));
  CHECK(has_note("logs/generations.jsonl line 3: no \"generation\" number; skipped"));
  CHECK(has_note("state.json: not a valid JSON object; ignored"));
  CHECK(has_note("config.yaml: not valid YAML"));
  CHECK(has_note("ratings.json: crosstable.wins is not a 2 x 2 table of counts"));
  CHECK(has_note("eval/gen-0002/games.tsv line 1: "));
  CHECK(has_note("eval/gen-0002/games.tsv line 2: "));
  CHECK(has_note("eval/gen-0002/games.tsv line 3: column W: 'x' is not an integer; skipped"));
  REQUIRE(run.eval.back().games.size() == 1);
  CHECK(run.eval.back().games[0].source == "eval/gen-0002/games.tsv line 4");
  CHECK(run.ratings.cross_names.empty());
  CHECK(run.ratings.players.size() == 1);

  const std::string html = render_report_html(run);
  check_balanced(html);
  CHECK_THAT(html, Contains("ratings.json has no cross-table"));
  CHECK_THAT(html, Contains("config.yaml: not valid YAML"));
  // Without a run name the page is titled by the directory.
  CHECK_THAT(html, Contains("<h1>" + dir.path.filename().string()));
}

TEST_CASE("a winner column that contradicts the record is reported") {
  TempDir dir("winner");
  ps::testing::write_fake_run(dir.str(), 1);
  // "4 4 3 4 45" ends with player 1 scoring in the south goal (shared test vectors).
  write_file_atomic(dir / "eval/gen-0001/games.tsv", "8\t10\t2\tstandard\t4 4 3 4 45\t0\tgoal\t6\n");
  RunData run = load_run(dir.str());
  bool found = false;
  for (const auto& n : run.notes)
    found |= n.find("eval/gen-0001/games.tsv line 1: the winner column says player 0 but the record ends with "
                    "player 1 winning") != std::string::npos;
  CHECK(found);
  CHECK(run.eval.back().games.empty());
}

TEST_CASE("games of a resigned game keep the TSV's winner and reason") {
  TempDir dir("resign");
  ps::testing::write_fake_run(dir.str(), 1);
  write_file_atomic(dir / "eval/gen-0001/games.tsv", "8\t10\t2\tstandard\t4 4\t1\tresign\t2\n");
  write_file_atomic(dir / "eval/gen-0001/games.csv", "index,player0,player1,winner,termination,turns\n0,a,b,1,resign,2\n");
  RunData run = load_run(dir.str());
  REQUIRE(run.eval.back().games.size() == 1);
  const RecordedGame& g = run.eval.back().games[0];
  CHECK(g.winner == 1);
  CHECK(g.reason == "resign");
  CHECK(g.turns == 2);
  CHECK(g.player1 == "b");
  CHECK_THAT(render_report_html(run), Contains("<b>b</b> won<br>resign \u00b7 2 turns"));
}

TEST_CASE("the tournament runner's own games.tsv form is read too") {
  TempDir dir("tourtsv");
  ps::testing::write_fake_run(dir.str(), 1);
  fs::remove(dir.path / "eval/gen-0001/games.csv");
  write_file_atomic(dir / "eval/gen-0001/games.tsv",
                    "game\tplayer0\tplayer1\twinner\ttermination\tdetail\topening\trecord\n"
                    "1\tgreedy\tgen-0001\tgen-0001\tgoal\t\t0\t4 4 3 4 45\n");
  RunData run = load_run(dir.str());
  REQUIRE(run.eval.back().games.size() == 1);
  const RecordedGame& g = run.eval.back().games[0];
  CHECK(g.player0 == "greedy");
  CHECK(g.player1 == "gen-0001");
  CHECK(g.winner == 1);
  CHECK(g.turns == 5);
}

TEST_CASE("evaluation games replay on the run's pitch, a gG goal width included") {
  // Regression: the report read a run.goal key (which the loop rejects) and parsed run.pitch
  // with "%dx%d", so a run on 8x10g4 was replayed with goal width 2.
  TempDir dir("goal4");
  ps::testing::write_fake_run(dir.str(), 1);
  fs::remove(dir.path / "eval/gen-0001/games.csv");
  write_file_atomic(dir / "config.yaml", "run: {name: wide, pitch: 8x10g4, generations: 1}\n");
  write_file_atomic(dir / "eval/gen-0001/games.tsv",
                    "game\tplayer0\tplayer1\twinner\ttermination\tdetail\topening\trecord\n"
                    "1\tgreedy\tgen-0001\tgen-0001\tresign\t\t0\t4 4 4\n");
  RunData run = load_run(dir.str());
  CHECK(run.config.width == 8);
  CHECK(run.config.length == 10);
  CHECK(run.config.goal == 4);
  REQUIRE(run.eval.back().games.size() == 1);
  CHECK(run.eval.back().games[0].game->start().pitch().goal() == 4);
  CHECK_THAT(render_report_html(run), Contains("goal 4"));
  write_file_atomic(dir / "config.yaml", "run: {pitch: 8x10q4}\n");
  RunData bad = load_run(dir.str());
  CHECK(bad.eval.back().games.empty());
  bool noted = false;
  for (const auto& n : bad.notes) noted |= n.find("run.pitch") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("self-play counts come from the data chunks and every session's time is summed") {
  // Regression: a run killed with kill -9 in its self-play logged only its sessions that ended
  // normally (17 games and 945 positions shown for 48 games and 2,754 positions stored), and a
  // resumed generation kept only its last log line.
  TempDir dir("killed");
  ps::testing::write_fake_run(dir.str(), 1);
  std::vector<GameData> games;
  for (int i = 0; i < 5; ++i) {
    GameData gd;
    gd.record = "0 3 66 5 3";
    gd.winner = int8_t(i % 2);
    gd.network = "gen-0000";
    gd.game_id = uint64_t(i);
    for (int k = 0; k < 4; ++k) {
      TrainingSample ts;
      ts.turn_index = uint16_t(k);
      ts.full_search = k == 0;
      gd.samples.push_back(ts);
    }
    games.push_back(gd);
  }
  write_chunk((dir.path / "data/gen0000-000000.psd").string(), {games[0], games[1], games[2]});
  write_chunk((dir.path / "data/gen0000-000001.psd").string(), {games[3], games[4]});
  // Session a: a chunk line, then its end; session b: killed after its first chunk line; and
  // a line of an older run without a session id.
  write_file_atomic(dir / "logs/selfplay.jsonl",
                    "{\"generation\":1,\"network\":\"gen-0000\",\"session\":\"a\",\"games\":1,\"samples\":4,\"seconds\":3}\n"
                    "{\"generation\":1,\"network\":\"gen-0000\",\"session\":\"a\",\"games\":2,\"samples\":8,\"seconds\":6}\n"
                    "{\"generation\":1,\"network\":\"gen-0000\",\"session\":\"b\",\"games\":1,\"samples\":4,\"seconds\":4}\n"
                    "{\"generation\":1,\"network\":\"gen-0000\",\"games\":1,\"samples\":4,\"seconds\":10}\n");
  RunData run = load_run(dir.str());
  REQUIRE(run.selfplay.size() == 1);
  const SelfplayGeneration& g = run.selfplay[0];
  CHECK(g.generation == 1);
  CHECK(g.games == 5);
  CHECK(g.samples == 20);
  CHECK(g.full_samples == 5);
  CHECK(g.wins[0] == 3);
  CHECK(g.wins[1] == 2);
  CHECK(g.seconds == 20);  // 6 + 4 + 10
  CHECK(g.games_per_s == Approx(0.25));
}

TEST_CASE("damaged data chunks and games that are not legal are counted as skipped, each with a note") {
  // Regression: `report` counted the readable games and said nothing of a damaged chunk beside them.
  TempDir dir("damaged");
  ps::testing::write_fake_run(dir.str(), 1);
  std::vector<GameData> games(3);
  for (size_t i = 0; i < games.size(); ++i) {
    games[i].record = "0 3 66 5 3";
    games[i].network = "gen-0000";
    games[i].game_id = i;
  }
  games[1].record = "0 9";  // not a legal game: left out, named
  write_chunk((dir.path / "data/gen0000-000000.psd").string(), games);
  write_file_atomic(dir / "data/gen0000-000001.psd", "PSDZ cut");  // cut short
  RunData run;
  write_report(dir.str(), "", &run);
  CHECK(run.chunks_skipped == 1);
  CHECK(run.games_skipped == 1);
  REQUIRE(run.selfplay.size() == 1);
  CHECK(run.selfplay[0].games == 2);
  CHECK(std::count_if(run.notes.begin(), run.notes.end(), [](const std::string& n) {
          return n.rfind("data/gen0000-000001.psd: not counted (", 0) == 0 &&
                 n.find("truncated") != std::string::npos;
        }) == 1);
  CHECK(std::count_if(run.notes.begin(), run.notes.end(), [](const std::string& n) {
          return n.find("gen0000-000000.psd: game 1 (id 1): ") != std::string::npos &&
                 n.find("bad character '9'") != std::string::npos &&
                 n.find(": not counted") != std::string::npos;
        }) == 1);
}

TEST_CASE("a training step logged again after a resume keeps its last value") {
  TempDir dir("resume");
  write_file_atomic(dir / "logs/train.jsonl",
                    "{\"step\":50,\"policy_loss\":2.0}\n{\"step\":25,\"policy_loss\":2.5}\n"
                    "{\"step\":50,\"policy_loss\":1.9}\n{\"step\":75}\n");
  RunData run = load_run(dir.str());
  REQUIRE(run.train.size() == 3);
  CHECK(run.train[0].step == 25);
  CHECK(run.train[1].policy_loss == Approx(1.9));
  CHECK(std::isnan(run.train[2].policy_loss));
  CHECK(run.missing.size() >= 5);
}

TEST_CASE("a long training log is averaged down to about 1000 points per curve") {
  TempDir dir("long");
  std::string log;
  for (int step = 1; step <= 5000; ++step)
    log += "{\"step\":" + std::to_string(step) + ",\"policy_loss\":" + std::to_string(step % 2 ? 1.0 : 3.0) + "}\n";
  write_file_atomic(dir / "logs/train.jsonl", log);
  RunData run = load_run(dir.str() + "/");
  REQUIRE(run.train.size() == 5000);
  const std::string html = render_report_html(run);
  // The loss curve: one path whose points are pair averages (2.0), 1000 of them.
  const size_t at = html.find("Training losses");
  REQUIRE(at != std::string::npos);
  const size_t path = html.find("<path d=\"M", at);
  const size_t end = html.find('"', path + 9);
  REQUIRE(path != std::string::npos);
  const std::string d = html.substr(path + 9, end - path - 9);
  CHECK(std::count(d.begin(), d.end(), 'L') == 999);
  // A directory given with a trailing slash is still titled by its name.
  CHECK_THAT(html, Contains("<h1>" + dir.path.filename().string() + "</h1>"));
}

TEST_CASE("a missing or unusable run directory is a clear error") {
  TempDir dir("errors");
  const std::string missing = dir / "no-such-run";
  CHECK_THROWS_MATCHES(write_report(missing), ReportError,
                       Catch::Matchers::Message("run directory '" + missing + "' does not exist"));
  write_file_atomic(dir / "plain-file", "x");
  CHECK_THROWS_MATCHES(load_run(dir / "plain-file"), ReportError,
                       Catch::Matchers::Message("run directory '" + (dir / "plain-file") + "' is not a directory"));
  fs::create_directories(dir.path / "empty");
  CHECK_THROWS_WITH(load_run(dir / "empty"), Contains("'" + (dir / "empty") +
                                                      "' does not look like a training run directory"));
  CHECK_THROWS_AS(load_run(""), ReportError);
  CHECK_FALSE(fs::exists(dir.path / "empty/report.html"));

  // An output path that cannot be written names the path.
  ps::testing::write_fake_run(dir / "run", 1);
  fs::create_directories(dir.path / "run/taken/report.html/inside");
  CHECK_THROWS_WITH(write_report(dir / "run", dir / "run/taken/report.html"), Contains("report.html"));
}

TEST_CASE("Wilson intervals and CSV fields") {
  auto [lo, hi] = wilson_interval(14, 20);
  CHECK(lo == Approx(0.4810).epsilon(1e-3));
  CHECK(hi == Approx(0.8545).epsilon(1e-3));
  auto [lo0, hi0] = wilson_interval(0, 10);
  CHECK(lo0 == 0.0);
  CHECK(hi0 == Approx(0.2775).epsilon(1e-3));
  auto [lo20, hi20] = wilson_interval(20, 20);
  CHECK(hi20 == 1.0);
  CHECK(lo20 == Approx(0.8389).epsilon(1e-3));
  CHECK(wilson_interval(0, 0) == std::make_pair(0.0, 1.0));

  CHECK(split_csv_line("a,\"b,c\",\"say \"\"hi\"\"\",") == std::vector<std::string>{"a", "b,c", "say \"hi\"", ""});
  CHECK(generation_of("gen-0012") == 12);
  CHECK(generation_of("gen0003") == 3);
  CHECK(generation_of("greedy") == -1);
  CHECK(generation_of("gen-0003.ckpt") == -1);
}

TEST_CASE("an Elo that rounds to zero prints as 0, never with a minus sign") {
  // The exact input that printed "-0": a rating of -0.3 shown with no decimals.
  TempDir dir("minus_zero");
  ps::testing::write_fake_run(dir.str(), 1);
  write_file_atomic(dir / "ratings.json", R"({"anchor":"random","players":[
  {"name":"random","elo":0,"ci95":0,"games":20,"wins":3},
  {"name":"gen-0001","elo":-0.3,"ci95":60.2,"games":20,"wins":17}],
 "crosstable":{"names":["random","gen-0001"],"wins":[[0,3],[17,0]]}}
)");
  const std::string html = read_file(write_report(dir.str()));
  CHECK_THAT(html, Contains("</td><td>0</td><td class=\"muted\">\u00b160</td>"));  // gen-0001's row
  CHECK(html.find("\u22120<") == std::string::npos);
  CHECK(html.find(">-0<") == std::string::npos);
}

TEST_CASE("a kept value-net run record without state.json gives the value-net page") {
  // Regression: models/runs/ship-8x10-value-net-c70cf9e (config.yaml, logs, report.html, no
  // state.json) was taken for a resnet run, and `report` wrote over its page one that said
  // "ratings.json has not been written yet".
  TempDir dir("kept-value-net");
  const fs::path kept = fs::path(PS_SOURCE_DIR) / "models/runs/ship-8x10-value-net-c70cf9e";
  fs::create_directories(dir / "logs");
  fs::copy_file(kept / "config.yaml", dir / "config.yaml");
  fs::copy_file(kept / "logs/generations.jsonl", dir / "logs/generations.jsonl");
  REQUIRE(is_value_net_run(dir.str()));
  const std::string html = read_file(write_value_net_report(dir.str()));
  CHECK_THAT(html, Contains("value-net learner"));
  CHECK_THAT(html, Contains("3 generations finished; best net <b>gen-0003</b>"));
  CHECK_THAT(html, Contains("phase not recorded (no state.json)"));
  CHECK_THAT(html, Contains("163.1 min of wall time"));
  CHECK_THAT(html, !Contains("ratings.json"));

  // A config whose run has another learner, or none, is not a value-net run.
  TempDir other("kept-resnet");
  { std::ofstream(other / "config.yaml") << "run: {name: q, learner: resnet}\n"; }
  CHECK_FALSE(is_value_net_run(other.str()));
  { std::ofstream(other / "config.yaml") << "run: [\n"; }
  CHECK_FALSE(is_value_net_run(other.str()));
}

TEST_CASE("checkpoint envelope: a value net file and an empty file are named as such") {
  // Regression: `bot models/8x10-standard.vnet` said only "bad magic or too short".
  CHECK(ps::nn::checkpoint_envelope_problem(std::string("PSVN\x01\0\0\0", 8) + std::string(40, 'x')) ==
        "not a papersoccer net checkpoint: a value net file (.vnet), alpha-beta's evaluation, given where a "
        "network checkpoint or model belongs (bot takes it as --value-net FILE)");
  CHECK(ps::nn::checkpoint_envelope_problem("PSV") ==
        "not a papersoccer net checkpoint (bad magic or too short)");
  CHECK(ps::nn::checkpoint_envelope_problem("") == "empty file (0 bytes)");  // as chunks and value nets
  CHECK(ps::nn::checkpoint_envelope_problem(std::string(64, 'x')) ==
        "not a papersoccer net checkpoint (bad magic or too short)");
}
