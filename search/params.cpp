#include "search/params.h"

#include <cmath>
#include <stdexcept>

#include "core/config.h"
#include "core/field_check.h"
#include "search/leaf_evals.h"

namespace ps {

// single-file: omit begin (the exported bot's parameters are fixed in export/bot_template.cpp, and
// its file must stay under 100,000 characters)
void SearchParams::validate() const {
  const FieldCheck check("search params: ");
  const SearchParams& p = *this;
  check(p.visits >= 1, "visits", "must be >= 1");
  check(p.time_ms >= 1 || p.time_ms == -1, "time_ms", "must be -1 (unlimited) or >= 1");
  check(p.num_threads >= 1 && p.num_threads <= 256, "num_threads", "must be in 1..256");
  check(p.leaf_batch >= 1 && p.leaf_batch <= 4096, "leaf_batch", "must be in 1..4096");
  // Upper bounds on the exploration and noise constants: an infinite or huge one (.inf, 1e308)
  // made every game of a run the same degenerate one instead of an error.
  check(p.c_puct_init >= 0 && p.c_puct_init <= 100, "c_puct_init", "must be in [0, 100]");
  check(p.c_puct_base > 0 && p.c_puct_base <= 1e9, "c_puct_base", "must be > 0 and <= 1e9");
  check(p.fpu_reduction >= 0 && p.fpu_reduction <= 2, "fpu_reduction", "must be in [0, 2]");
  check(p.root_fpu_reduction >= 0 && p.root_fpu_reduction <= 2, "root_fpu_reduction", "must be in [0, 2]");
  check(p.virtual_loss >= 0 && p.virtual_loss <= 1000, "virtual_loss", "must be in 0..1000");
  check(p.dirichlet_alpha_total > 0 && p.dirichlet_alpha_total <= 1000, "dirichlet_alpha_total",
        "must be > 0 and <= 1000");
  check(p.dirichlet_fraction >= 0 && p.dirichlet_fraction <= 1, "dirichlet_fraction", "must be in [0, 1]");
  check(p.temperature >= 0 && std::isfinite(p.temperature), "temperature", "must be >= 0");
  check(p.temperature_turns >= 0, "temperature_turns", "must be >= 0");
  check(p.temperature_final >= 0 && std::isfinite(p.temperature_final), "temperature_final", "must be >= 0");
  check(p.initial_turns >= 1, "initial_turns", "must be >= 1");
  check(p.root_initial_turns >= 1, "root_initial_turns", "must be >= 1");
  check(p.widen_per_sqrt_visit >= 0 && p.widen_per_sqrt_visit <= 1e6, "widen_per_sqrt_visit",
        "must be in [0, 1e6]");
  check(p.widen_min_remaining_mass >= 0 && p.widen_min_remaining_mass < 1, "widen_min_remaining_mass",
        "must be in [0, 1)");
  check(p.turn_gen_max_expansions >= 1, "turn_gen_max_expansions", "must be >= 1");
  check(p.policy_temperature > 0 && std::isfinite(p.policy_temperature), "policy_temperature",
        "must be > 0 and finite");
  check(p.leaf_reply_turns >= 0 && p.leaf_reply_turns <= 256, "leaf_reply_turns", "must be in 0..256");
  check(p.leaf_reply_turns <= p.initial_turns, "leaf_reply_turns",
        "must be <= initial_turns (the leaf's replies are its first turns)");
  check(p.proof_fraction >= 0 && p.proof_fraction <= 0.9, "proof_fraction", "must be in [0, 0.9]");
  check(p.endgame_from_turn >= -1, "endgame_from_turn", "must be >= -1 (-1: never)");
  check(p.endgame_eval == "noise" || p.endgame_eval == "hand" || p.endgame_eval == "nnue", "endgame_eval",
        "unknown evaluation '" + p.endgame_eval + "' (known: " + kLeafEvalNames + ")");
  // An evaluation chosen for an endgame that is off was read and forgotten; it is refused.
  check(p.endgame_value_net.empty() || p.endgame_from_turn >= 0, "endgame_value_net",
        "is only used by an alpha-beta endgame (endgame_from_turn >= 0; it is -1: none)");
  check(p.endgame_eval == "noise" || p.endgame_from_turn >= 0, "endgame_eval",
        "is only used by an alpha-beta endgame (endgame_from_turn >= 0; it is -1: none)");
  check(p.endgame_eval != "nnue" || !p.endgame_value_net.empty(), "endgame_value_net",
        "must name a .vnet file with endgame_eval: nnue");
  check(p.endgame_eval == "nnue" || p.endgame_value_net.empty(), "endgame_value_net",
        "is only read with endgame_eval: nnue");
  check(p.endgame_eval_noise >= 0 && p.endgame_eval_noise <= 99999, "endgame_eval_noise",
        "must be in [0, 99999] (0: none)");
  check(p.endgame_eval_noise == 0 || p.endgame_eval != "noise", "endgame_eval_noise",
        "is only added to endgame_eval: hand or nnue");
  check(p.endgame_eval_noise == 0 || p.endgame_from_turn >= 0, "endgame_eval_noise",
        "is only used by an alpha-beta endgame (endgame_from_turn >= 0; it is -1: none)");
}

SearchParams parse_search_params(ConfigReader& cfg, const SearchParams& defaults) {
  SearchParams p = defaults;
  cfg.read(field("visits", p.visits), field("time_ms", p.time_ms), field("num_threads", p.num_threads),
           field("leaf_batch", p.leaf_batch), field("c_puct_init", p.c_puct_init),
           field("c_puct_base", p.c_puct_base), field("fpu_reduction", p.fpu_reduction),
           field("root_fpu_reduction", p.root_fpu_reduction), field("virtual_loss", p.virtual_loss),
           field("root_noise", p.root_noise), field("dirichlet_alpha_total", p.dirichlet_alpha_total),
           field("dirichlet_fraction", p.dirichlet_fraction), field("temperature", p.temperature),
           field("temperature_turns", p.temperature_turns), field("temperature_final", p.temperature_final),
           field("reuse_tree", p.reuse_tree), field("initial_turns", p.initial_turns),
           field("root_initial_turns", p.root_initial_turns),
           field("widen_per_sqrt_visit", p.widen_per_sqrt_visit),
           field("widen_min_remaining_mass", p.widen_min_remaining_mass),
           field("turn_gen_max_expansions", p.turn_gen_max_expansions), field("sum_chains", p.sum_chains),
           field("policy_temperature", p.policy_temperature), field("solver", p.solver),
           field("leaf_reply_turns", p.leaf_reply_turns), field("proof_fraction", p.proof_fraction),
           field("endgame_from_turn", p.endgame_from_turn), field("endgame_eval", p.endgame_eval),
           field("endgame_value_net", p.endgame_value_net),
           field("endgame_eval_noise", p.endgame_eval_noise));
  return cfg.finish_validated(p);
}

// single-file: omit end
}  // namespace ps
