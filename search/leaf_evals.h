// The alpha-beta search's leaf evaluations by name: the one place where a config's `eval:`
// (the `alphabeta` player type, the `mcts` player's `search.endgame_eval`, teacher self-play's
// `selfplay.teacher.eval`) becomes a LeafEvaluator.
//   hand   HandEvaluator (search/leaf_eval.h)
//   noise  NoiseEvaluator, a random evaluation in [-noise_range, noise_range]
//   nnue   ValueNetEvaluator over the small value net in the .vnet file `value_net`
//          (valuenet/value_net_eval.h); files are read once per process and shared (read-only)
// Thread-safety: make_leaf_evaluator may be called from any thread; each evaluator it returns
// belongs to one search.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "search/leaf_eval.h"
#include "search/params.h"
#include "valuenet/value_net.h"

namespace ps {

/// The names make_leaf_evaluator knows, for messages.
inline constexpr const char* kLeafEvalNames = "hand, noise, nnue";

struct LeafEvalSpec {
  std::string eval = "hand";                        ///< hand | noise | nnue
  int noise_range = NoiseEvaluator::kDefaultRange;  ///< eval noise: score range, [1, 99,999]
  std::string value_net;                            ///< eval nnue: the .vnet file (required)
  /// eval hand or nnue: adds the noise evaluation of this range to every score (0: none;
  /// [0, 99,999]). A deep search's maximum over random leaf scores rewards positions with many
  /// continuations (Beal and Smith, "Random evaluations in chess", 1994): mobility beside the
  /// learned or hand-made score.
  int eval_noise = 0;
};

/// A bad LeafEvalSpec. field(): the spec's field that is wrong ("eval", "noise_range" or
/// "value_net"), so that a config reader can name its own key; what(): what is wrong.
class LeafEvalError : public std::invalid_argument {
 public:
  LeafEvalError(std::string field, const std::string& what)
      : std::invalid_argument(what), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

/// How a spec reads in a program's banner: "hand", "random" (eval noise, the random evaluation),
/// "value net FILE", "value net FILE + noise 150". The one wording of `bot`, `serve` and `ladder` for the endgame's evaluation.
/// Inline: the tournament library names it without linking the search.
inline std::string describe_leaf_eval(const LeafEvalSpec& spec) {
  std::string s = spec.eval == "nnue"    ? "value net " + spec.value_net
                  : spec.eval == "noise" ? "random"
                                         : spec.eval;
  if (spec.eval_noise > 0) s += " + noise " + std::to_string(spec.eval_noise);
  return s;
}

/// The alpha-beta endgame's evaluation in `sp` (endgame_eval, endgame_value_net,
/// endgame_eval_noise): what MctsPlayer plays and describe_play_search names. Inline, as
/// describe_leaf_eval.
inline LeafEvalSpec endgame_leaf_eval(const SearchParams& sp) {
  LeafEvalSpec spec;
  spec.eval = sp.endgame_eval;
  spec.value_net = sp.endgame_value_net;
  spec.eval_noise = sp.endgame_eval_noise;
  return spec;
}

/// Sets the alpha-beta endgame's evaluation of `sp` to `spec` (the inverse of
/// endgame_leaf_eval).
inline void set_endgame_leaf_eval(SearchParams& sp, const LeafEvalSpec& spec) {
  sp.endgame_eval = spec.eval;
  sp.endgame_value_net = spec.value_net;
  sp.endgame_eval_noise = spec.eval_noise;
}

/// How an MctsPlayer (search/mcts_player.h) with `sp` answers timed turns, in the words of
/// `bot`'s and `serve`'s start lines and the ladder's header (one wording for the three):
/// "alpha-beta from the first turn (evaluation: E)", "puct, then alpha-beta from turn N (...)", or
/// "puct all game" (endgame_from_turn -1, or
/// `visit_budget`: a turn given visits is the net's search). Inline, as describe_leaf_eval.
inline std::string describe_play_search(const SearchParams& sp, bool visit_budget = false) {
  if (sp.endgame_from_turn < 0 || visit_budget) return "puct all game";
  // From turn 0 every timed turn is alpha-beta's: naming the network's search would say it
  // plays a turn it never does.
  std::string text = sp.endgame_from_turn == 0
                         ? std::string("alpha-beta from the first turn")
                         : "puct, then alpha-beta from turn " + std::to_string(sp.endgame_from_turn);
  return text + " (evaluation: " + describe_leaf_eval(endgame_leaf_eval(sp)) + ")";
}

/// The evaluation a command's `--value-net NAME` names (`bot`, `ladder`, `serve`, `analyse`):
/// "hand" the hand evaluation, "none" the random one (eval noise), anything else a .vnet file
/// (eval nnue; the file is not read here). Throws LeafEvalError (field "value_net") for an empty
/// name.
LeafEvalSpec leaf_eval_from_name(const std::string& name);
/// The name leaf_eval_from_name reads as `spec`: "hand", "none" (eval noise) or the .vnet file
/// (eval nnue), so that a command's evaluation can be handed on as a player's `value_net` key.
/// Throws std::invalid_argument for a spec that no name gives (eval_noise, another noise range).
std::string leaf_eval_name(const LeafEvalSpec& spec);

/// The evaluator `spec` names; seed: the noise evaluation's seed. Throws LeafEvalError for an
/// unknown name, a range outside [1, 99,999] (eval_noise: [0, 99,999], and only with hand or
/// nnue), a value_net given to another evaluation than
/// nnue or missing for nnue, and an unreadable or invalid .vnet file (field "value_net", the
/// message of valuenet/value_net_file.h's ValueNetError).
std::unique_ptr<LeafEvaluator> make_leaf_evaluator(const LeafEvalSpec& spec, uint64_t seed);

/// The value net of a .vnet file, read once per path and process and shared. Throws
/// ValueNetError (valuenet/value_net_file.h).
std::shared_ptr<const ValueNet> shared_value_net(const std::string& path);
/// Throws std::invalid_argument "value net PATH: trained for 8x10 standard, the games are ..."
/// when the net of `path` is for other rules (and ValueNetError when it cannot be read).
void check_value_net_rules(const std::string& path, const Pitch& pitch, Variant variant);
/// Forgets the nets shared_value_net read (the next call reads the file again); evaluators made
/// before keep theirs.
void clear_shared_value_nets();

}  // namespace ps
