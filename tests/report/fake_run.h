// A fake training run directory in the layout the training loop writes (see report/run_data.h):
// config, state, JSONL logs, ratings with a cross-table, evaluation and self-play games (real
// random games, so the records replay), and checkpoint files.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>

#include "core/byte_io.h"
#include "core/fileutil.h"
#include "nn/checkpoint_envelope.h"
#include "tests/common/random_games.h"

namespace ps::testing {

namespace fs = std::filesystem;

/// A checkpoint file's envelope (nn/checkpoint_envelope.h: magic, size, checksum) around 2,048
/// bytes that are not a network: whole for the report, which reads envelopes only.
inline std::string fake_checkpoint() {
  const std::string payload(2048, 'x');
  ByteWriter w;
  w.raw(kCheckpointMagic, 8);
  w.put<uint64_t>(payload.size());
  w.put<uint64_t>(fnv1a64_bytes(payload.data(), payload.size()));
  w.raw(payload.data(), payload.size());
  return w.str();
}

/// A fresh empty directory under the system temp dir, removed with everything in it at the end.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag) {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("ps_report_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    ps::remove_tree(path.string());
    fs::create_directories(path);
  }
  ~TempDir() {
    try {
      ps::remove_tree(path.string());
    } catch (...) {  // never throw from a destructor; a leftover temp dir is harmless
    }
  }
  std::string str() const { return path.string(); }
  std::string operator/(const std::string& rel) const { return (path / rel).string(); }
};

inline std::string gen_name(int g) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "gen-%04d", g);
  return buf;
}

/// One finished random game on the standard pitch as a games.tsv line
/// (W L G variant record winner reason kicks); turns receives its number of turns.
inline std::string random_game_line(std::mt19937_64& rng, int* turns = nullptr) {
  Game g = random_game(Pitch::standard(), Variant::kStandard, 10000, rng);
  if (turns) *turns = int(g.turns().size());
  const Position& pos = g.position();
  return "8\t10\t2\tstandard\t" + g.record() + "\t" + std::to_string(pos.winner()) + "\t" +
         reason_name(pos.reason()) + "\t" + std::to_string(pos.num_kicks());
}

/// Writes a run of `generations` generations in dir (ratings.json always rates the same four
/// players, whatever the number of generations).
inline void write_fake_run(const std::string& dir, int generations) {
  std::mt19937_64 rng(1234);
  const std::string d = dir + "/";
  write_file_atomic(d + "config.yaml",
                    "run: {name: tiny-8x10, pitch: \"8x10\", variant: standard, generations: 5}\n"
                    "selfplay: {games: 40}\n");
  write_file_atomic(d + "state.json", "{\"generation\": " + std::to_string(generations) + ", \"best\": \"" +
                                          gen_name(generations) +
                                          "\", \"started\": \"2026-11-29T19:00:00Z\", \"seconds\": 812.5}\n");
  std::ostringstream train, selfplay, gens;
  int step = 0;
  for (int g = 1; g <= generations; ++g) {
    for (int k = 0; k < 4; ++k) {
      step += 25;
      const double t = step / 100.0;
      train << "{\"step\":" << step << ",\"policy_loss\":" << 2.9 * std::pow(0.9, g - 1) - 0.1 * k << ",\"value_loss\":"
            << 0.95 - 0.05 * t << ",\"moves_left_loss\":" << 0.4 - 0.03 * t << ",\"policy_accuracy\":" << 0.2 + 0.05 * t
            << ",\"value_accuracy\":" << 0.55 + 0.03 * t << ",\"lr\":0.02,\"samples_per_s\":900,\"window\":5000,"
            << "\"checkpoint\":\"" << gen_name(g) << ".ckpt\",\"unknown_field\":[1,2]}\n";
    }
    selfplay << "{\"generation\":" << g << ",\"network\":\"" << gen_name(g - 1)
             << "\",\"games\":40,\"samples\":1600,\"full_samples\":400,\"mean_game_turns\":" << 38.2 - g
             << ",\"mean_root_turns\":" << 21.5 + g << ",\"games_per_s\":2.1,\"samples_per_s\":" << 84 + 10 * g
             << ",\"seconds\":19.0,\"wins\":[" << 22 - g << "," << 18 + g << "]}\n";
    gens << "{\"generation\":" << g << ",\"network\":\"" << gen_name(g) << "\",\"elo\":" << 120.5 * g
         << ",\"ci95\":60.2,\"promoted\":" << (g != 2 ? "true" : "false") << ",\"best\":\""
         << gen_name(g == 2 ? 1 : g) << "\",\"scores\":{\"" << gen_name(g - 1)
         << "\":{\"wins\":14,\"games\":20},\"random\":{\"wins\":20,\"games\":20},\"greedy\":{\"wins\":" << std::min(8 + g, 20)
         << ",\"games\":20}}}\n";

    // Evaluation games with their CSV index.
    std::ostringstream tsv, csv;
    csv << "index,player0,player1,winner,termination,turns,seconds\n";
    const char* opponents[] = {"random", "greedy", "gen-0000"};
    for (int i = 0; i < 4; ++i) {
      int turns = 0;
      tsv << random_game_line(rng, &turns) << "\n";
      const std::string opp = i < 3 ? opponents[i] : gen_name(g - 1);
      const bool net_first = i % 2 == 0;
      csv << i << "," << (net_first ? gen_name(g) : opp) << "," << (net_first ? opp : gen_name(g)) << ",0,goal,"
          << turns << ",1.5\n";
    }
    write_file_atomic(d + "eval/" + gen_name(g) + "/games.tsv", tsv.str());
    write_file_atomic(d + "eval/" + gen_name(g) + "/games.csv", csv.str());

    char data_name[64];
    std::snprintf(data_name, sizeof data_name, "data/gen%04d-000000.tsv", g - 1);
    write_file_atomic(d + data_name, random_game_line(rng) + "\n" + random_game_line(rng) + "\n");
    write_file_atomic(d + "checkpoints/" + gen_name(g - 1) + ".ckpt", fake_checkpoint());
  }
  write_file_atomic(d + "checkpoints/" + gen_name(generations) + ".ckpt", fake_checkpoint());
  write_file_atomic(d + "logs/train.jsonl", train.str());
  write_file_atomic(d + "logs/selfplay.jsonl", selfplay.str());
  write_file_atomic(d + "logs/generations.jsonl", gens.str());
  write_file_atomic(d + "ratings.json",
                    R"({"anchor":"random","players":[
  {"name":"random","elo":0,"ci95":0,"games":40,"wins":3},
  {"name":"greedy","elo":210.4,"ci95":55.0,"games":60,"wins":38},
  {"name":"gen-0000","elo":95.0,"ci95":70.1,"games":40,"wins":20},
  {"name":"gen-0001","elo":120.5,"ci95":60.2,"games":60,"wins":43}],
 "crosstable":{"names":["random","greedy","gen-0000","gen-0001"],
               "wins":[[0,3,1,0],[17,0,5,11],[19,15,0,6],[20,9,14,0]]}}
)");
}

}  // namespace ps::testing
