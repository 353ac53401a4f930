#include "search/bot_player.h"

#include <filesystem>
#include <vector>

#include "core/config.h"
#include "core/fileutil.h"
#include "search/alphabeta.h"

namespace ps {

std::string default_model_path(const Pitch& pitch, Variant variant, const std::string& extension) {
  namespace fs = std::filesystem;
  const std::string name = "models/" + pitch.name() + "-" + variant_name(variant) + extension;
  // The executable is build/papersoccer (or a copy elsewhere): its folder's parent is tried too,
  // so the shipped model is found from any working directory.
  std::error_code ec;
  for (const fs::path p : repository_file_candidates(name)) {
    if (fs::is_regular_file(p, ec)) return p.string();
    // Something else in a shipped file's place (a folder, a dangling link) would otherwise fall
    // through to the next candidate or to no model at all without a word.
    if (fs::exists(fs::symlink_status(p, ec)))
      throw std::runtime_error("the shipped " + extension.substr(1) + " " + p.string() +
                               " is not a regular file (a folder or a broken link in its place)");
  }
  return "";
}

BotEval bot_eval(const std::string& value_net, const Pitch& pitch, Variant variant,
                 const std::optional<std::string>& shipped) {
  BotEval e;
  if (!value_net.empty()) {
    e.spec = leaf_eval_from_name(value_net);
    e.source = BotEval::Source::kGiven;
    return e;
  }
  const std::string file = shipped ? *shipped : default_model_path(pitch, variant, ".vnet");
  e.spec = leaf_eval_from_name(file.empty() ? std::string(kBotFallbackValueNet) : file);
  e.source = file.empty() ? BotEval::Source::kFallback : BotEval::Source::kShipped;
  return e;
}

void check_bot_eval(const BotEval& eval, const Pitch& pitch, Variant variant) {
  if (eval.spec.eval != "nnue") return;
  try {
    check_value_net_rules(eval.spec.value_net, pitch, variant);
  } catch (const std::exception& e) {  // ValueNetError (unreadable) or std::invalid_argument (rules)
    if (eval.source == BotEval::Source::kShipped)
      throw BotValueNetError(e.what(), BotValueNetError::NamedBy::kShipped, "the shipped value net");
    throw BotValueNetError(e.what(), BotValueNetError::NamedBy::kCaller, "");
  }
}

bool endgame_turned_off(const YAML::Node& search) {
  if (!search || !search.IsMap() || !search["endgame_from_turn"] || !search["endgame_from_turn"].IsScalar())
    return false;
  // As the config reader reads it: "-01" (octal or decimal by YAML version) is refused there.
  if (has_leading_zero(search["endgame_from_turn"].Scalar())) return false;
  try {
    return search["endgame_from_turn"].as<int>() < 0;
  } catch (const YAML::Exception&) {
    return false;
  }
}

SearchParams bot_search_params(const LeafEvalSpec& eval, ConfigReader* search) {
  SearchParams sp;
  sp.temperature = 0;
  sp.root_noise = false;
  sp.endgame_from_turn = MctsPlayer::kPlayEndgameFromTurn;  // alpha-beta on every timed turn
  const bool chooses_eval = search && (search->has("endgame_eval") || search->has("endgame_value_net"));
  // An endgame turned off gets no evaluation (the search's check refuses an endgame key then).
  const bool off = search && endgame_turned_off(search->node());
  if (!chooses_eval && !off) set_endgame_leaf_eval(sp, eval);
  // A map that names only the endgame's value net means that net (the bot's endgame is nnue).
  if (search && search->has("endgame_value_net") && !search->has("endgame_eval") && !off) sp.endgame_eval = "nnue";
  return search ? parse_search_params(*search, sp) : sp;
}

namespace {

// The AlphaBetaPlayer under another name (BotSpec::name).
class NamedAlphaBetaPlayer final : public Player {
 public:
  NamedAlphaBetaPlayer(std::unique_ptr<LeafEvaluator> eval, uint64_t seed, std::string name)
      : player_(AlphaBetaPlayer::Options{}, std::move(eval), seed), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void new_game(const Pitch& pitch, Variant variant) override { player_.new_game(pitch, variant); }
  std::string choose_turn(const Game& game, const TurnBudget& budget) override {
    return player_.choose_turn(game, budget);
  }

 private:
  AlphaBetaPlayer player_;
  std::string name_;
};

}  // namespace

BotPlayer make_bot_player(const BotSpec& spec) {
  if (!spec.pitch) throw std::invalid_argument("the bot: no pitch given");
  if (spec.search && !spec.network)
    throw std::invalid_argument("the bot: a search map is the network's, and there is no network");
  BotPlayer out;
  out.eval = bot_eval(spec.value_net, *spec.pitch, spec.variant, spec.shipped_value_net);
  if (!spec.network) {
    check_bot_eval(out.eval, *spec.pitch, spec.variant);
    std::unique_ptr<LeafEvaluator> ev = make_leaf_evaluator(out.eval.spec, spec.seed);
    if (spec.name.empty())
      out.player = std::make_unique<AlphaBetaPlayer>(AlphaBetaPlayer::Options{}, std::move(ev), spec.seed);
    else
      out.player = std::make_unique<NamedAlphaBetaPlayer>(std::move(ev), spec.seed, spec.name);
    return out;
  }
  out.search = bot_search_params(out.eval.spec, spec.search);
  // The value net the endgame plays, read now: named as the spec's, the shipped one, or the
  // search map's key and line.
  const SearchParams& sp = out.search;
  if (sp.endgame_from_turn >= 0 && sp.endgame_eval == "nnue") {
    // Without the map's endgame_value_net the net is the evaluation's (nnue needs a net).
    if (!spec.search || !spec.search->has("endgame_value_net")) {
      check_bot_eval(out.eval, *spec.pitch, spec.variant);
    } else {
      try {
        check_value_net_rules(sp.endgame_value_net, *spec.pitch, spec.variant);
      } catch (const std::exception& e) {
        throw BotValueNetError(e.what(), BotValueNetError::NamedBy::kSearchMap, spec.search->where("endgame_value_net"));
      }
    }
  }
  out.player = std::make_unique<NetMctsPlayer>(spec.network, sp, spec.seed, spec.name, spec.ablation,
                                               spec.search_stats);
  return out;
}

}  // namespace ps
