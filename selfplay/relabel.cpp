#include "selfplay/relabel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "core/checksum.h"
#include "core/field_check.h"
#include "core/fileutil.h"
#include "search/alphabeta.h"
#include "selfplay/data.h"
#include "valuenet/value_net_eval.h"
#include "valuenet/value_net_file.h"

namespace ps {

void RelabelOptions::validate() const {
  const FieldCheck check("relabel: ");
  check(!value_net.empty(), "value_net", "a .vnet file is required");
  check(nodes >= 1, "nodes", "must be >= 1");
  check(from_turn >= 0, "from_turn", "must be >= 0");
  check(every >= 1, "every", "must be >= 1");
  check(threads >= 1 && threads <= 256, "threads", "must be in [1, 256]");
  check(games_per_chunk >= 1 && games_per_chunk <= 100000, "games_per_chunk", "must be in [1, 100000]");
  check(tt_mb >= 1 && tt_mb <= 4096, "tt_mb", "must be in [1, 4096]");
}

namespace {

struct GameTally {
  int64_t positions = 0, dropped = 0, proven = 0, nodes = 0, depth_sum = 0;
};

// The relabelled samples of one finished game of the net's rules.
GameData relabel_one(const Game& game, uint64_t id, AlphaBetaPlayer& ab, const RelabelOptions& o,
                     float value_scale, const std::string& network, GameTally& tally) {
  const Position& end = game.position();
  GameData d;
  d.width = end.pitch().width();
  d.length = end.pitch().length();
  d.goal = end.pitch().goal();
  d.variant = end.variant();
  d.record = game.record();
  d.winner = int8_t(end.winner());
  d.reason = end.reason();
  d.game_id = id;
  d.network = network;
  const std::vector<std::string>& turns = game.turns();
  const int n = int(turns.size());
  ab.new_game(end.pitch(), end.variant());  // a fresh table per game
  Game g(end.pitch(), end.variant());
  for (int t = 0; t < n; ++t) {
    if (t >= o.from_turn && (t - o.from_turn) % o.every == 0) {
      const Position& pos = g.position();
      ab.choose_turn(g, TurnBudget{-1, o.nodes});
      const AlphaBetaPlayer::Info& info = ab.last_info();
      const bool proven = AlphaBetaPlayer::is_proven(info.score);
      if (info.depth > 0 || proven) {
        TrainingSample s;
        s.turn_index = uint16_t(t);
        s.full_search = false;
        s.root_value = proven ? (info.score > 0 ? 1.0f : -1.0f)
                              : std::clamp(float(info.score) / value_scale, -1.0f, 1.0f);
        s.result = int8_t(pos.side_to_move() == end.winner() ? 1 : -1);
        s.turns_left = uint16_t(n - t);
        d.samples.push_back(s);
        ++tally.positions;
        tally.proven += proven;
        tally.nodes += info.nodes;
        tally.depth_sum += info.depth;
      } else {
        ++tally.dropped;
      }
    }
    g.play_turn(turns[size_t(t)]);
  }
  return d;
}

}  // namespace

RelabelStats relabel_games(const std::vector<Game>& games, const RelabelOptions& o,
                           const std::string& out_dir, const std::string& prefix,
                           const std::function<void(int64_t, int64_t)>& progress) {
  o.validate();
  const auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<const ValueNet> net;
  try {
    net = std::make_shared<const ValueNet>(load_value_net(o.value_net));
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("relabel: ") + e.what());  // "value net FILE: why"
  }
  // Nothing to label: said before the folder and its manifest are made (such a run used to write
  // a chunk holding no game, which marked the games done).
  if (std::none_of(games.begin(), games.end(), [&](const Game& g) {
        const Position& end = g.position();
        return end.game_over() && end.winner() >= 0 && net->plays(end.pitch(), end.variant());
      }))
    throw std::invalid_argument("relabel: none of the " + std::to_string(games.size()) +
                                " games is a finished game of the value net's rules (" + net->pitch().name() +
                                " " + variant_name(net->variant) + "): nothing to label");
  ensure_directory(out_dir, "relabel output folder");
  {
    // The settings of the chunks in out_dir: a resumed run must make the same samples, so one
    // with other settings is refused rather than mixed in (the kept chunks would not be redone).
    const std::string manifest = (std::filesystem::path(out_dir) / (prefix + ".relabel")).string();
    // The net by its bytes and the games by their records, not by names: a net fine-tuned into
    // a file of the same name, or other games, kept the old chunks silently.
    char net_sum[17], games_sum[17];
    const std::string net_bytes = value_net_bytes(*net);  // the file's bytes (the format is canonical)
    std::snprintf(net_sum, sizeof net_sum, "%016llx",
                  (unsigned long long)fnv1a64_bytes(net_bytes.data(), net_bytes.size()));
    uint64_t h = kFnv1a64OffsetBasis;
    for (const Game& g : games) {
      const std::string r = g.record() + "\n";
      h = fnv1a64_bytes(r.data(), r.size(), h);
    }
    std::snprintf(games_sum, sizeof games_sum, "%016llx", (unsigned long long)h);
    const std::vector<std::pair<std::string, std::string>> settings = {
        {"value_net", std::filesystem::path(o.value_net).filename().string() + " fnv1a64 " + net_sum},
        {"games", std::to_string(games.size()) + " fnv1a64 " + games_sum},
        {"nodes", std::to_string(o.nodes)},
        {"from_turn", std::to_string(o.from_turn)},
        {"every", std::to_string(o.every)},
        {"games_per_chunk", std::to_string(o.games_per_chunk)}};
    std::string text;
    for (const auto& [k, v] : settings) text += k + " " + v + "\n";
    std::error_code ec;
    if (std::filesystem::is_regular_file(manifest, ec)) {
      const std::string old = read_file(manifest);
      if (old != text) {
        // Name the first setting that differs.
        std::string which = "the manifest's format";
        for (const auto& [k, v] : settings)
          if (old.find(k + " " + v + "\n") == std::string::npos) {
            which = k + " (now " + v + ")";
            break;
          }
        throw std::invalid_argument("relabel: " + out_dir + " holds chunks made with other settings (" +
                                    manifest + ": " + which + " differs); give another --out or --prefix");
      }
    } else {
      write_file_atomic(manifest, text);
    }
  }
  const std::string network = "relabel:" + std::filesystem::path(o.value_net).filename().string() + "@" +
                              std::to_string(o.nodes) + "nodes";
  RelabelStats st;
  const int64_t total = int64_t(games.size());
  int64_t done = 0;
  std::mutex mu;
  for (int64_t first = 0; first < total; first += o.games_per_chunk) {
    const int64_t last = std::min<int64_t>(total, first + o.games_per_chunk);
    char name[32];
    std::snprintf(name, sizeof name, "-%06lld.psd", (long long)(first / o.games_per_chunk));
    const std::string path = (std::filesystem::path(out_dir) / (prefix + name)).string();
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) {
      ++st.kept_chunks;
      done = last;
      if (progress) progress(done, total);
      continue;
    }
    std::vector<std::optional<GameData>> out(size_t(last - first));
    std::atomic<int64_t> next{first};
    std::exception_ptr error;
    auto worker = [&] {
      try {
        AlphaBetaPlayer::Options ao;
        ao.tt_mb = o.tt_mb;
        AlphaBetaPlayer ab(ao, std::make_unique<ValueNetEvaluator>(net, o.value_net));
        for (int64_t i; (i = next++) < last;) {
          const Game& game = games[size_t(i)];
          const Position& end = game.position();
          GameTally tally;
          if (!end.game_over() || end.winner() < 0 || !net->plays(end.pitch(), end.variant())) {
            std::lock_guard<std::mutex> lock(mu);
            ++st.skipped_games;
          } else {
            out[size_t(i - first)] = relabel_one(game, uint64_t(i), ab, o, net->value_scale, network, tally);
            std::lock_guard<std::mutex> lock(mu);
            ++st.games;
            st.positions += tally.positions;
            st.dropped += tally.dropped;
            st.proven += tally.proven;
            st.nodes += tally.nodes;
            st.depth_sum += tally.depth_sum;
          }
          std::lock_guard<std::mutex> lock(mu);
          ++done;
          if (progress) progress(done, total);
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        next = last;
      }
    };
    std::vector<std::thread> pool;
    for (int k = 0; k < o.threads; ++k) pool.emplace_back(worker);
    for (std::thread& t : pool) t.join();
    if (error) std::rethrow_exception(error);
    std::vector<GameData> chunk;
    for (auto& g : out)
      if (g) chunk.push_back(std::move(*g));
    write_chunk(path, chunk);  // an empty chunk too: it marks these games as done
    ++st.written_chunks;
  }
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

}  // namespace ps
