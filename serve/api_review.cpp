// Reviewing games: pasted PGN, records or test-vector lines, and the games of run directories.
#include <filesystem>
#include <sstream>

#include "core/text.h"
#include "engine/tsv.h"
#include "report/run_data.h"
#include "serve/api.h"
#include "serve/api_error.h"
#include "serve/position_json.h"
#include "serve/request.h"

namespace ps::serve {

namespace {

constexpr size_t kMaxGames = 200;

Json game_json(const Game& g, const std::string& source, const std::map<std::string, std::string>& tags) {
  Json j = record_json(g, tags);
  j["source"] = source;
  j["tags"] = tags;
  j["pitch"] = g.start().pitch().name();
  j["variant"] = variant_name(g.start().variant());
  j["result"] = result_json(g);
  return j;
}

bool looks_like_pgn(const std::string& text) {
  if (text.find('[') != std::string::npos) return true;
  for (size_t i = 0; i + 1 < text.size(); ++i)
    if (std::isdigit(static_cast<unsigned char>(text[i])) && text[i + 1] == '.') return true;
  return false;
}

// One pasted line: a test-vector row (tabs), a record (turns separated by spaces) or a flat
// kick list.
Game line_game(const std::string& line, const Pitch& pitch, Variant variant) {
  if (line.find('\t') != std::string::npos) return tsv_row_game(parse_tsv_row(line));
  try {
    return parse_record(pitch, variant, line);
  } catch (const RecordError&) {
    if (line.find(' ') != std::string::npos) throw;
    return parse_kicks(pitch, variant, line);
  }
}

// The games of a paste, at most kMaxGames; *more is set when the paste holds more.
Json pasted_games(const std::string& text, const Pitch& pitch, Variant variant, bool* more) {
  Json games = Json::array();
  *more = false;
  if (looks_like_pgn(text)) {
    std::istringstream in(text);
    try {
      for (const PgnGame& g : read_pgn(in, "pasted PGN", pitch, variant)) {
        if (games.size() >= kMaxGames) {
          *more = true;
          break;
        }
        games.push_back(game_json(g.game, "pasted PGN line " + std::to_string(g.line), g.tags));
      }
    } catch (const std::exception& e) {
      throw bad_request(e.what());
    }
    return games;
  }
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos || is_tsv_header(line)) continue;
    if (games.size() >= kMaxGames) {
      *more = true;
      break;
    }
    try {
      games.push_back(game_json(line_game(line, pitch, variant), "pasted line " + std::to_string(n), {}));
    } catch (const std::exception& e) {
      throw bad_request("pasted line " + std::to_string(n) + ": " + e.what());
    }
  }
  if (games.empty()) throw bad_request("no game in the pasted text");
  return games;
}

// RUNS/name, refusing names that could leave the runs folder.
std::string run_path(ApiContext& ctx, const std::string& name) {
  if (name.empty() || name[0] == '.' || name.find('/') != std::string::npos || name.find('\\') != std::string::npos)
    throw bad_request("field 'run': " + quoted_text(name, 64) + " is not the name of a run directory");
  return (std::filesystem::path(ctx.options.runs_dir) / name).string();
}

Json run_games(ApiContext& ctx, const Json& body) {
  const std::string run = get_string(body, "run", "", 256);
  const std::string file = get_string(body, "file", "", 512);
  const int offset = int(get_int(body, "offset", 0, 0, 1 << 24));
  const int limit = int(get_int(body, "limit", 50, 1, int64_t(kMaxGames)));
  int total = 0;
  std::vector<std::string> notes;
  std::vector<report::RecordedGame> read;
  try {
    read = report::read_run_games(run_path(ctx, run), file, offset, limit, &total, &notes);
  } catch (const report::ReportError& e) {
    throw bad_request(e.what());
  }
  Json games = Json::array();
  for (const report::RecordedGame& g : read) {
    Json j = game_json(*g.game, g.source, {{"Player0", g.player0}, {"Player1", g.player1}});
    if (j["result"].is_null() && g.winner >= 0)
      j["result"] = {{"winner", g.winner}, {"reason", g.reason}, {"text", "player " + std::to_string(g.winner) + " won (" + g.reason + ")"}};
    games.push_back(std::move(j));
  }
  return {{"games", games}, {"total", total}, {"offset", offset}, {"notes", notes}};
}

}  // namespace

Json api_review(ApiContext& ctx, const Json& body) {
  check_fields(body, {"text", "pitch", "variant", "run", "file", "offset", "limit"});
  if (body.contains("run")) return run_games(ctx, body);
  const std::string text = get_string(body, "text", "", ctx.options.max_request_bytes);
  if (text.empty()) throw bad_request("give 'text' (PGN, records or test-vector lines) or 'run' and 'file'");
  bool more = false;
  Json games = pasted_games(text, get_pitch(body), get_variant(body), &more);
  Json reply = {{"games", std::move(games)}, {"truncated", more}};
  if (more) reply["note"] = "only the first " + std::to_string(kMaxGames) + " games of the paste are shown";
  return reply;
}

Json api_runs(ApiContext& ctx, const Json& body) {
  check_fields(body, {"run"});
  const std::string run = get_string(body, "run", "", 256);
  if (!run.empty()) {
    try {
      return {{"run", run}, {"files", report::run_game_files(run_path(ctx, run))}};
    } catch (const report::ReportError& e) {
      throw bad_request(e.what());
    }
  }
  Json runs = Json::array();
  std::error_code ec;
  namespace fs = std::filesystem;
  for (auto it = fs::directory_iterator(ctx.options.runs_dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.' || !it->is_directory(ec)) continue;
    try {
      const auto files = report::run_game_files(it->path().string());
      if (!files.empty()) runs.push_back({{"run", name}, {"files", files.size()}});
    } catch (const std::exception&) {
    }
    if (runs.size() >= 500) break;
  }
  return {{"runs_dir", ctx.options.runs_dir}, {"runs", runs}};
}

}  // namespace ps::serve
