#include <catch2/catch.hpp>

#include "core/config.h"
#include "core/field_check.h"

using namespace ps;

namespace {

struct Inner {
  double threshold = 0.5;
  void validate() const {
    const FieldCheck check("inner: ");
    check(threshold > 0 && threshold <= 1, "threshold", "must be in (0, 1]");
  }
};

struct Outer {
  int games = 1;
  Inner resign;
  void validate() const {
    const FieldCheck check("outer.");
    check(games >= 1, "games", "must be >= 1");
    check.part("resign", resign);
  }
};

Outer parse_outer(ConfigReader& r) {
  Outer o;
  o.games = r.get<int>("games", o.games);
  ConfigReader rr = r.child("resign");
  o.resign.threshold = rr.get<double>("threshold", o.resign.threshold);
  rr.finish();
  return r.finish_validated(o);
}

}  // namespace

TEST_CASE("field check: a struct's rule names the field, also through a nested part", "[core]") {
  Outer o;
  CHECK_NOTHROW(o.validate());
  o.games = 0;
  CHECK_THROWS_WITH(o.validate(), "outer.games: must be >= 1");
  o.games = 2;
  o.resign.threshold = 2;
  CHECK_THROWS_WITH(o.validate(), "outer.resign.threshold: must be in (0, 1]");
  CHECK_THROWS_WITH(o.resign.validate(), "inner: threshold: must be in (0, 1]");
  try {
    o.validate();
  } catch (const FieldError& e) {
    CHECK(e.key() == "resign.threshold");
    CHECK(e.why() == "must be in (0, 1]");
  }
}

TEST_CASE("finish_validated: a rule broken in a config names file, key path and line", "[core]") {
  auto top = ConfigReader::from_string("x: 1\nouter:\n  games: 0\n", "c.yaml");
  auto r = top.child("outer");
  CHECK_THROWS_WITH(parse_outer(r), "c.yaml: outer.games (line 3): must be >= 1");
  // A key of a sub-map: the line of the innermost key.
  auto nested = ConfigReader::from_string("games: 3\nresign:\n  threshold: 1.5\n", "n.yaml");
  CHECK_THROWS_WITH(parse_outer(nested), "n.yaml: resign.threshold (line 3): must be in (0, 1]");
  // A default that breaks the rule (no key in the file): no line to name.
  auto absent = ConfigReader::from_string("", "a.yaml");
  Outer d;
  d.games = 0;
  CHECK_THROWS_WITH(absent.finish_validated(d), "a.yaml: games: must be >= 1");
  // Unknown keys are reported before rules.
  auto unknown = ConfigReader::from_string("games: 0\ngamez: 1\n", "u.yaml");
  CHECK_THROWS_WITH(parse_outer(unknown), "u.yaml: gamez (line 2): unknown key");
  auto ok = ConfigReader::from_string("games: 4\n", "ok.yaml");
  CHECK(parse_outer(ok).games == 4);
}

TEST_CASE("fail_key: a dotted key finds its line without changing the config", "[core]") {
  auto r = ConfigReader::from_string("a:\n  b:\n    c: 1\n", "d.yaml");
  CHECK_THROWS_WITH(r.fail_key("a.b.c", "bad"), "d.yaml: a.b.c (line 3): bad");
  CHECK_THROWS_WITH(r.fail_key("a.x", "bad"), "d.yaml: a.x: bad");
  CHECK_THROWS_WITH(r.fail_key("z.y", "bad"), "d.yaml: z.y: bad");
  CHECK(r.node()["a"]["b"]["c"].as<int>() == 1);
  CHECK(r.node()["a"].size() == 1);
}
