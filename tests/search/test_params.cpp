// SearchParams from YAML: defaults, overrides, strictness, and the shipped example config.
#include <catch2/catch.hpp>

#include "core/config.h"
#include "search/params.h"

using namespace ps;

TEST_CASE("params: YAML defaults, overrides and errors", "[search]") {
  {
    auto cfg = ConfigReader::from_string("", "empty");
    const SearchParams p = parse_search_params(cfg);
    const SearchParams d;
    REQUIRE(p.visits == d.visits);
    REQUIRE(p.c_puct_init == d.c_puct_init);
    REQUIRE(p.root_initial_turns == d.root_initial_turns);
  }
  {
    auto cfg = ConfigReader::from_string(
        "visits: 64\nnum_threads: 4\nc_puct_init: 2.0\nroot_noise: true\ntemperature_turns: 12\n"
        "widen_per_sqrt_visit: 1.5\nsolver: false\nsum_chains: false\n",
        "t.yaml");
    const SearchParams p = parse_search_params(cfg);
    REQUIRE(p.visits == 64);
    REQUIRE(p.num_threads == 4);
    REQUIRE(p.c_puct_init == 2.0);
    REQUIRE(p.root_noise);
    REQUIRE(p.temperature_turns == 12);
    REQUIRE(p.temperature_at(11) == p.temperature);
    REQUIRE(p.temperature_at(12) == p.temperature_final);
    REQUIRE(p.widen_per_sqrt_visit == 1.5);
    REQUIRE(!p.solver);
    REQUIRE(!p.sum_chains);
  }
  {
    auto cfg = ConfigReader::from_string("vists: 64\n", "t.yaml");
    REQUIRE_THROWS_WITH(parse_search_params(cfg), Catch::Contains("vists") && Catch::Contains("unknown key"));
  }
  {
    auto cfg = ConfigReader::from_string("visits: many\n", "t.yaml");
    REQUIRE_THROWS_AS(parse_search_params(cfg), ConfigError);
  }
  {
    auto root = ConfigReader::from_string("search:\n  dirichlet_fraction: 2\n", "t.yaml");
    auto cfg = root.child("search");
    REQUIRE_THROWS_WITH(parse_search_params(cfg),
                        "t.yaml: search.dirichlet_fraction (line 2): must be in [0, 1]");
  }
  {
    auto root = ConfigReader::from_string("search:\n  visits: 8\n  proof_fraction: 0.95\n", "t.yaml");
    auto cfg = root.child("search");
    REQUIRE_THROWS_WITH(parse_search_params(cfg),
                        "t.yaml: search.proof_fraction (line 3): must be in [0, 0.9]");
  }
  {
    auto cfg = ConfigReader::from_string("proof_fraction: .nan\n", "n.yaml");
    REQUIRE_THROWS_WITH(parse_search_params(cfg), Catch::Contains("n.yaml: proof_fraction (line 1)"));
  }
  {
    auto cfg = ConfigReader::from_string("initial_turns: 8\nleaf_reply_turns: 9\n", "r.yaml");
    REQUIRE_THROWS_WITH(parse_search_params(cfg), Catch::Contains("r.yaml: leaf_reply_turns (line 2)") &&
                                                      Catch::Contains("must be <= initial_turns"));
    auto ok = ConfigReader::from_string("initial_turns: 8\nleaf_reply_turns: 8\n", "r.yaml");
    REQUIRE(parse_search_params(ok).leaf_reply_turns == 8);
  }
  {
    auto cfg = ConfigReader::from_string("proof_fraction: 0.25\n", "ok.yaml");
    REQUIRE(parse_search_params(cfg).proof_fraction == 0.25);
  }
  {
    // Regression (fuzz_config): a complex key escaped as yaml-cpp's bare "bad conversion"
    // (YAML::TypedBadConversion, not a ConfigError) naming neither file nor key.
    auto cfg = ConfigReader::from_string("? [a, b]\n: 1\n", "t.yaml");
    REQUIRE_THROWS_WITH(parse_search_params(cfg),
                        "t.yaml: <non-scalar key> (line 1): keys must be plain names");
  }
}

TEST_CASE("params: configs/search.yaml is valid and documents every key", "[search]") {
  auto root = ConfigReader::from_file(std::string(PS_SOURCE_DIR) + "/configs/search.yaml");
  auto cfg = root.child("search");
  const SearchParams p = parse_search_params(cfg);
  root.finish();
  REQUIRE(p.visits >= 1);
  // Every key of the example is a field: count them against the parser's list.
  REQUIRE(cfg.node().size() == 26);
}

TEST_CASE("params: endgame_from_turn and endgame_eval are read and checked", "[search]") {
  {
    auto cfg = ConfigReader::from_string("endgame_from_turn: 20\nendgame_eval: hand\n", "e.yaml");
    const SearchParams p = parse_search_params(cfg);
    CHECK(p.endgame_from_turn == 20);
    CHECK(p.endgame_eval == "hand");
  }
  {
    auto cfg = ConfigReader::from_string("visits: 8\n", "d.yaml");
    const SearchParams p = parse_search_params(cfg);
    CHECK(p.endgame_from_turn == -1);  // off by default
    CHECK(p.endgame_eval == "noise");
  }
  {
    auto cfg = ConfigReader::from_string("endgame_from_turn: -2\n", "m.yaml");
    REQUIRE_THROWS_WITH(parse_search_params(cfg),
                        "m.yaml: endgame_from_turn (line 1): must be >= -1 (-1: never)");
  }
  {
    auto cfg = ConfigReader::from_string("visits: 8\nendgame_eval: mobility\n", "n.yaml");
    REQUIRE_THROWS_WITH(
        parse_search_params(cfg),
        "n.yaml: endgame_eval (line 2): unknown evaluation 'mobility' (known: hand, noise, nnue)");
  }
  {  // nnue needs its file, and only nnue reads one
    auto cfg = ConfigReader::from_string("endgame_from_turn: 10\nendgame_eval: nnue\n", "v.yaml");
    REQUIRE_THROWS_WITH(parse_search_params(cfg),
                        "v.yaml: endgame_value_net: must name a .vnet file with endgame_eval: nnue");
    auto cfg2 = ConfigReader::from_string("endgame_from_turn: 10\nendgame_value_net: a.vnet\n", "w.yaml");
    REQUIRE_THROWS_WITH(parse_search_params(cfg2),
                        "w.yaml: endgame_value_net (line 2): is only read with endgame_eval: nnue");
    auto cfg3 = ConfigReader::from_string(
        "endgame_from_turn: 10\nendgame_eval: nnue\nendgame_value_net: a.vnet\n", "x.yaml");
    CHECK(parse_search_params(cfg3).endgame_value_net == "a.vnet");
    // Regression: an evaluation for an endgame that is off was read and forgotten (a
    // missing file too).
    auto off = ConfigReader::from_string("endgame_eval: nnue\nendgame_value_net: a.vnet\n", "o.yaml");
    REQUIRE_THROWS_WITH(parse_search_params(off),
                        "o.yaml: endgame_value_net (line 2): is only used by an alpha-beta endgame "
                        "(endgame_from_turn >= 0; it is -1: none)");
    auto off_hand = ConfigReader::from_string("endgame_from_turn: -1\nendgame_eval: hand\n", "h.yaml");
    REQUIRE_THROWS_WITH(parse_search_params(off_hand),
                        "h.yaml: endgame_eval (line 2): is only used by an alpha-beta endgame "
                        "(endgame_from_turn >= 0; it is -1: none)");
  }
  {  // noise beside the hand or learned evaluation, not beside the noise evaluation
    auto cfg = ConfigReader::from_string(
        "endgame_from_turn: 10\nendgame_eval: hand\nendgame_eval_noise: 150\n", "h.yaml");
    CHECK(parse_search_params(cfg).endgame_eval_noise == 150);
    // Regression: with no endgame (endgame_from_turn -1, the default here) the
    // noise was accepted and never used.
    // (The evaluation itself is now refused first.)
    auto no_endgame = ConfigReader::from_string("endgame_eval: hand\nendgame_eval_noise: 150\n", "e.yaml");
    REQUIRE_THROWS_WITH(parse_search_params(no_endgame),
                        "e.yaml: endgame_eval (line 1): is only used by an alpha-beta endgame "
                        "(endgame_from_turn >= 0; it is -1: none)");
    auto cfg2 = ConfigReader::from_string("endgame_eval_noise: 150\n", "n.yaml");  // eval noise
    REQUIRE_THROWS_WITH(parse_search_params(cfg2),
                        "n.yaml: endgame_eval_noise (line 1): is only added to endgame_eval: hand or nnue");
    auto cfg3 = ConfigReader::from_string(
        "endgame_from_turn: 10\nendgame_eval: hand\nendgame_eval_noise: -1\n", "m.yaml");
    REQUIRE_THROWS_WITH(parse_search_params(cfg3),
                        "m.yaml: endgame_eval_noise (line 3): must be in [0, 99999] (0: none)");
  }
}
