#include <catch2/catch.hpp>

#include <vector>

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

TEST_CASE("read: a field table sets the keys given and leaves the others at their value", "[core]") {
  auto r = ConfigReader::from_string("games: 7\nrate: 0.5\nname: x\nflag: true\nseed: 18446744073709551615\n",
                                     "t.yaml");
  int games = 1, absent = 3;
  double rate = 0.25;
  std::string name = "n";
  bool flag = false;
  uint64_t seed = 1;
  int64_t big = -1;
  r.read(field("games", games), field("rate", rate), field("name", name), field("flag", flag),
         field("seed", seed), field("absent", absent), field("big", big));
  r.finish();  // every key of the table counts as read
  CHECK(games == 7);
  CHECK(rate == 0.5);
  CHECK(name == "x");
  CHECK(flag);
  CHECK(seed == 18446744073709551615ULL);
  CHECK(absent == 3);
  CHECK(big == -1);
  // A wrong type names the key and its line, as get() does.
  auto bad = ConfigReader::from_string("games: 2\nrate: fast\n", "b.yaml");
  CHECK_THROWS_WITH(bad.read(field("games", games), field("rate", rate)),
                    "b.yaml: rate (line 2): wrong type: cannot read 'fast': expected a number");
  // A boolean key of the wrong type says "boolean" (it said "the expected type").
  auto flag_bad = ConfigReader::from_string("games: 2\nflag: maybe\n", "f.yaml");
  CHECK_THROWS_WITH(
      flag_bad.read(field("flag", flag)),
      "f.yaml: flag (line 2): wrong type: cannot read 'maybe': expected a boolean (true/false, also yes/no or on/off)");
  auto int_bad = ConfigReader::from_string("games: 2.5\n", "i.yaml");
  CHECK_THROWS_WITH(int_bad.read(field("games", games)),
                    "i.yaml: games (line 1): wrong type: cannot read '2.5': expected an integer");
  // Regression: an integer too large for its key said "expected an integer" (e.g.
  // `games_per_chunk: 4294967296`); it is out of range, and the range is named.
  auto wide = ConfigReader::from_string("games_per_chunk: 4294967296\n", "w.yaml");
  CHECK_THROWS_WITH(
      wide.read(field("games_per_chunk", games)),
      "w.yaml: games_per_chunk (line 1): out of range: '4294967296' is not in [-2147483648, 2147483647]");
  uint64_t u = 0;
  auto negative = ConfigReader::from_string("seed: -1\nhuge: 99999999999999999999\n", "n.yaml");
  CHECK_THROWS_WITH(negative.read(field("seed", u)),
                    "n.yaml: seed (line 1): out of range: '-1' is not in [0, 18446744073709551615]");
  int64_t h = 0;
  CHECK_THROWS_WITH(negative.read(field("huge", h)),
                    "n.yaml: huge (line 2): out of range: '99999999999999999999' is not in "
                    "[-9223372036854775808, 9223372036854775807]");
  CHECK(ConfigReader::from_string("games: -2147483648\n", "m.yaml").get("games", 0) == -2147483648);
  // Regression: `rate: 1.5e999` said "wrong type: ... expected a number"; it is a number, out of
  // range. Underflow is no error (1e-999 reads as 0), and a word is still a type error.
  double beyond = 0;
  CHECK_THROWS_WITH(
      ConfigReader::from_string("rate: 1.5e999\n", "r.yaml").read(field("rate", beyond)),
      "r.yaml: rate (line 1): out of range: the magnitude of '1.5e999' is beyond the largest number, 1.79769e+308");
  CHECK_THROWS_WITH(
      ConfigReader::from_string("rate: -1e99999\n", "r.yaml").read(field("rate", beyond)),
      "r.yaml: rate (line 1): out of range: the magnitude of '-1e99999' is beyond the largest number, 1.79769e+308");
  float small = 0;
  CHECK_THROWS_WITH(
      ConfigReader::from_string("rate: 1e39\n", "r.yaml").read(field("rate", small)),
      "r.yaml: rate (line 1): out of range: the magnitude of '1e39' is beyond the largest number, 3.40282e+38");
  CHECK_FALSE(is_number_beyond<double>("1e308"));
  CHECK_FALSE(is_number_beyond<double>("1e400x"));
  CHECK_FALSE(is_number_beyond<double>("0x1p2000"));  // hexadecimal stays a type error
  // Regression: `lr: 1e-999` read as 0 (then "must be > 0"); it is named below the range.
  double tiny = 1;
  CHECK_THROWS_WITH(
      ConfigReader::from_string("lr: 1e-999\n", "r.yaml").read(field("lr", tiny)),
      "r.yaml: lr (line 1): out of range: the magnitude of '1e-999' is below the smallest number, "
      "4.94066e-324, and would read as 0 (write 0 for zero)");
  float tiny_float = 1;
  CHECK_THROWS_WITH(ConfigReader::from_string("lr: 1e-50\n", "r.yaml").read(field("lr", tiny_float)),
                    Catch::Contains("is below the smallest number, 1.4013e-45"));
  CHECK(is_number_below<double>("-1e-400"));
  CHECK_FALSE(is_number_below<double>("0"));
  CHECK_FALSE(is_number_below<double>("0.0e-999"));
  CHECK_FALSE(is_number_below<double>("1e-300"));
  CHECK_FALSE(is_number_below<double>("3e-324"));  // rounds up to the smallest double, not to 0
  CHECK(is_number_below<double>("2e-324"));
  double zero = 1;
  ConfigReader::from_string("lr: 0.0\n", "r.yaml").read(field("lr", zero));
  CHECK(zero == 0);
  // Regression: a quoted number ('0.5') was read as the number; YAML makes it a string.
  double quoted = 1;
  CHECK_THROWS_WITH(
      ConfigReader::from_string("lr: '0.5'\n", "r.yaml").read(field("lr", quoted)),
      "r.yaml: lr (line 1): wrong type: '0.5' is quoted, so a string: expected a number (write it "
      "without quotes)");
  int quoted_int = 1;
  CHECK_THROWS_WITH(ConfigReader::from_string("games: \"8\"\n", "r.yaml").read(field("games", quoted_int)),
                    Catch::Contains("'8' is quoted, so a string"));
  CHECK_THROWS_WITH(ConfigReader::from_string("lr: !!str 0.5\n", "r.yaml").read(field("lr", quoted)),
                    Catch::Contains("'0.5' is quoted, so a string"));
  std::vector<int> hidden;
  CHECK_THROWS_WITH(
      ConfigReader::from_string("hidden: [32,\n  '16']\n", "r.yaml").read(field("hidden", hidden)),
      "r.yaml: hidden (line 2): item 2: wrong type: '16' is quoted, so a string: expected an integer "
      "(write it without quotes)");
  std::string text;
  ConfigReader::from_string("name: '8'\n", "r.yaml").read(field("name", text));
  CHECK(text == "8");
  // Regression: `games: 010` read as octal 8, and `games: 08` said "out of range".
  CHECK_THROWS_WITH(ConfigReader::from_string("games: 010\n", "r.yaml").read(field("games", games)),
                    "r.yaml: games (line 1): ambiguous integer: '010' starts with 0, which YAML reads as "
                    "octal or decimal by version (write it without the leading zero)");
  CHECK_THROWS_WITH(ConfigReader::from_string("games: 08\n", "r.yaml").read(field("games", games)),
                    Catch::Contains("ambiguous integer: '08'"));
  CHECK_THROWS_WITH(ConfigReader::from_string("games: -07\n", "r.yaml").read(field("games", games)),
                    Catch::Contains("ambiguous integer: '-07'"));
  CHECK_THROWS_WITH(ConfigReader::from_string("hidden: [32, 016]\n", "r.yaml").read(field("hidden", hidden)),
                    Catch::StartsWith("r.yaml: hidden (line 1): item 2: ambiguous integer: '016'"));
  ConfigReader::from_string("games: 0\n", "r.yaml").read(field("games", games));
  CHECK(games == 0);
  double leading = 0;  // a number with a fraction is decimal in every YAML version
  ConfigReader::from_string("lr: 00.5\n", "r.yaml").read(field("lr", leading));
  CHECK(leading == 0.5);
  std::string zip;
  ConfigReader::from_string("name: 010\n", "r.yaml").read(field("name", zip));
  CHECK(zip == "010");
  CHECK(has_leading_zero("+00"));
  CHECK_FALSE(has_leading_zero("0"));
  CHECK_FALSE(has_leading_zero("-0"));
  CHECK_FALSE(has_leading_zero("0.5"));
  // Regression: a bad list item said "cannot read a non-scalar value" of the whole list.
  std::vector<std::string> names;
  CHECK_THROWS_WITH(
      ConfigReader::from_string("names:\n  - a\n  - {b: 1}\n", "r.yaml").read(field("names", names)),
      "r.yaml: names (line 3): item 2: wrong type: cannot read a map: expected a string");
  CHECK_THROWS_WITH(ConfigReader::from_string("hidden: [32, x]\n", "r.yaml").read(field("hidden", hidden)),
                    "r.yaml: hidden (line 1): item 2: wrong type: cannot read 'x': expected an integer");
  CHECK_THROWS_WITH(ConfigReader::from_string("games: {a: 1}\n", "r.yaml").read(field("games", games)),
                    "r.yaml: games (line 1): wrong type: cannot read a map: expected an integer");
  std::vector<std::vector<int>> grid;
  ConfigReader::from_string("grid: [[1, 2], [3]]\n", "r.yaml").read(field("grid", grid));
  CHECK(grid == std::vector<std::vector<int>>{{1, 2}, {3}});
  CHECK_THROWS_WITH(
      ConfigReader::from_string("grid: [[1, 2], [3, 010]]\n", "r.yaml").read(field("grid", grid)),
      Catch::StartsWith("r.yaml: grid (line 1): item 2.2: ambiguous integer: '010'"));
  CHECK_THROWS_WITH(ConfigReader::from_string("grid: [[1, '2']]\n", "r.yaml").read(field("grid", grid)),
                    Catch::StartsWith("r.yaml: grid (line 1): item 1.2: wrong type: '2' is quoted"));
  CHECK_THROWS_WITH(
      ConfigReader::from_string("hidden: [1, ~]\n", "r.yaml").read(field("hidden", hidden)),
      "r.yaml: hidden (line 1): item 2: wrong type: cannot read an empty value: expected an integer");
  // UTF-16 YAML (with its byte order mark) holds NUL bytes and is no binary file.
  const std::string utf16{
      "\xFF\xFE"
      "a\0:\0 \0"
      "5\0\n\0",
      12};
  int a = 0;
  ConfigReader::from_string(utf16, "w.yaml").read(field("a", a));
  CHECK(a == 5);
  CHECK_THROWS_WITH(ConfigReader::from_string(std::string("PSVN\x02\0\0\0", 8), "m.vnet"),
                    "m.vnet: a binary file, not a YAML config (a model, checkpoint or value net?)");
  CHECK_FALSE(is_integer_text("+"));
  CHECK_FALSE(is_integer_text("1e3"));
  CHECK(is_integer_text("+12"));
}

TEST_CASE("get_parsed, get_parsed_list: the converter's error names file, key and line", "[core]") {
  auto parse_even = [](const std::string& s) {
    const int v = std::stoi(s);
    if (v % 2) throw std::invalid_argument("'" + s + "' is odd");
    return v;
  };
  auto r = ConfigReader::from_string("one: 4\nlist: [2, 6]\nodd: 3\nodds: [2, 5]\nnull_list:\n", "p.yaml");
  CHECK(r.get_parsed("one", "0", parse_even) == 4);
  CHECK(r.get_parsed("absent", "8", parse_even) == 8);  // the default is converted too
  CHECK(r.get_parsed_list("list", std::vector<int>{0}, parse_even) == std::vector<int>{2, 6});
  CHECK(r.get_parsed_list("absent_list", std::vector<int>{0}, parse_even) == std::vector<int>{0});
  // A null list keeps the default and counts as read (as a null scalar does with get()).
  CHECK(r.get_parsed_list("null_list", std::vector<int>{0}, parse_even) == std::vector<int>{0});
  CHECK_THROWS_WITH(r.get_parsed("odd", "0", parse_even), "p.yaml: odd (line 3): '3' is odd");
  CHECK_THROWS_WITH(r.get_parsed_list("odds", std::vector<int>{}, parse_even),
                    "p.yaml: odds (line 4): '5' is odd");
  // A value of the wrong type is the reader's error, not the converter's, and is said once.
  auto typed = ConfigReader::from_string("one: [1, 2]\nlist: 4\n", "w.yaml");
  CHECK_THROWS_WITH(typed.get_parsed("one", "0", parse_even),
                    "w.yaml: one (line 1): wrong type: cannot read a list: expected a string");
  CHECK_THROWS_WITH(
      typed.get_parsed_list("list", std::vector<int>{}, parse_even),
      "w.yaml: list (line 2): wrong type: cannot read '4': expected a list (each item a string)");
}
