// The JSON API of `papersoccer serve`: games, kicks, the bot, analysis, bad input and load.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "engine/record.h"
#include "serve_fixture.h"

using ps::serve::test::contains;
using ps::serve::test::Json;
using ps::serve::test::Reply;
using ps::serve::test::TestServer;

namespace {

std::string new_game(const TestServer& s, Json body) {
  const Reply r = s.post("/api/games", body);
  REQUIRE(r.status == 200);
  return r.body["id"].get<std::string>();
}

}  // namespace

TEST_CASE("the page and its files are served by the binary", "[serve]") {
  TestServer s;
  httplib::Client cli("127.0.0.1", s.port());
  auto page = cli.Get("/");
  REQUIRE(page);
  CHECK(page->status == 200);
  CHECK(page->body.find("<script src=\"/app.js\">") != std::string::npos);
  CHECK(page->body.find("http") == page->body.find("http://www.w3.org"));  // nothing from elsewhere
  auto js = cli.Get("/app.js");
  REQUIRE(js);
  CHECK(js->get_header_value("Content-Type").find("javascript") != std::string::npos);
  const Reply missing = s.get("/nosuch");
  CHECK(missing.status == 404);
  CHECK(contains(missing.body, "no such path"));
}

TEST_CASE("info lists the opponents and the model", "[serve]") {
  TestServer s;
  const Reply r = s.get("/api/info");
  REQUIRE(r.status == 200);
  CHECK(r.body["model"]["pitches"] == Json::array({"8x10"}));
  std::vector<std::string> types;
  for (const Json& o : r.body["opponents"]) types.push_back(o["type"]);
  CHECK(std::find(types.begin(), types.end(), "mcts") != types.end());
  CHECK(std::find(types.begin(), types.end(), "greedy") != types.end());
  CHECK(std::find(types.begin(), types.end(), "external") == types.end());  // runs commands: not offered
}

TEST_CASE("a new game, a legal kick, and the game read back", "[serve]") {
  TestServer s;
  const Reply created = s.post("/api/games", {{"opponent", "greedy"}, {"pitch", "8x12"}, {"variant", "single-bounce"}});
  REQUIRE(created.status == 200);
  const std::string id = created.body["id"];
  CHECK(created.body["position"]["legal"].size() == 8);
  CHECK(created.body["position"]["ball"] == Json::array({4, 6}));
  CHECK(created.body["position"]["svg"].get<std::string>().rfind("<svg", 0) == 0);
  const Reply kicked = s.post("/api/games/" + id + "/kick", {{"dir", 0}});
  REQUIRE(kicked.status == 200);
  CHECK(kicked.body["record"]["record"] == "0");
  CHECK(kicked.body["bots_turn"] == true);  // an untouched point: the turn passes
  const Reply back = s.get("/api/games/" + id);
  REQUIRE(back.status == 200);
  CHECK(back.body["record"]["kicks"] == "0");
  CHECK(back.body["position"]["pitch"] == "8x12");
  CHECK(back.body["position"]["variant"] == "single-bounce");
}

TEST_CASE("an illegal kick is refused with 400 naming the kick", "[serve]") {
  TestServer s;
  const std::string id = new_game(s, {{"opponent", "human"}});
  REQUIRE(s.post("/api/games/" + id + "/kick", {{"dir", 0}}).status == 200);
  const Reply r = s.post("/api/games/" + id + "/kick", {{"dir", 4}});  // back along the same segment
  CHECK(r.status == 400);
  CHECK(contains(r.body, "illegal kick 4 (S) from (4,4)"));
  CHECK(contains(r.body, "segment already drawn"));
  const Reply bad_digit = s.post("/api/games/" + id + "/kick", {{"kicks", "19"}});
  CHECK(bad_digit.status == 400);
  CHECK(contains(bad_digit.body, "'9' is not a direction"));
  CHECK(s.get("/api/games/" + id).body["record"]["kicks"] == "0");  // nothing was played
}

TEST_CASE("malformed JSON, wrong fields and unknown games answer 400", "[serve]") {
  TestServer s;
  const Reply malformed = s.send("POST", "/api/games", "{\"pitch\": ");
  CHECK(malformed.status == 400);
  CHECK(contains(malformed.body, "malformed JSON"));
  const Reply not_object = s.send("POST", "/api/games", "[1, 2]");
  CHECK(not_object.status == 400);
  CHECK(contains(not_object.body, "must be a JSON object"));
  CHECK(contains(s.post("/api/games", {{"pitch", "9x10"}}).body, "field 'pitch'"));
  CHECK(contains(s.post("/api/games", {{"variant", "x"}}).body, "field 'variant'"));
  CHECK(contains(s.post("/api/games", {{"opponent", "external"}}).body, "unknown player type 'external'"));
  CHECK(contains(s.post("/api/games", {{"time_ms", "fast"}}).body, "field 'time_ms' must be an integer"));
  CHECK(contains(s.post("/api/games", {{"opponent", "mcts"}, {"pitch", "8x12"}}).body, "is for pitches 8x10"));
  const Reply unknown = s.post("/api/games/0123456789abcdef/kick", {{"dir", 0}});
  CHECK(unknown.status == 400);
  CHECK(contains(unknown.body, "unknown game '0123456789abcdef'"));
  CHECK(s.get("/api/games/nosuch").status == 400);
}

TEST_CASE("an oversized request is refused", "[serve]") {
  TestServer s;
  const std::string huge = "{\"text\": \"" + std::string(100 * 1024, '0') + "\"}";
  const Reply r = s.send("POST", "/api/review", huge);
  CHECK(r.status == 413);
  CHECK(contains(r.body, "too large"));
  CHECK(s.get("/api/info").status == 200);  // still serving
  // Under the limit a large JSON body is read (here a 20 KB paste that is no game).
  const Reply big = s.send("POST", "/api/review", "{\"text\": \"" + std::string(20 * 1024, '9') + "\"}");
  CHECK(big.status == 400);
  CHECK(contains(big.body, "pasted line 1"));
}

TEST_CASE("the bot answers a legal chain within its time limit", "[serve]") {
  TestServer s;
  const std::string id = new_game(s, {{"opponent", "mcts"}, {"time_ms", 300}, {"human_side", 1}});
  const auto t0 = std::chrono::steady_clock::now();
  const Reply r = s.post("/api/games/" + id + "/bot", Json::object());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(r.status == 200);
  CHECK(ms < 300 + 1500);  // the search stops at 90% of its budget; the rest is HTTP and a loaded CI machine
  const std::string turn = r.body["last_bot_turn"];
  CHECK(!turn.empty());
  CHECK(r.body["record"]["record"] == turn);
  CHECK_NOTHROW(ps::parse_record(ps::Pitch::standard(), ps::Variant::kStandard, turn));
  CHECK(r.body["bots_turn"] == false);
  // Asking again when it is the person's turn is an error naming the problem.
  const Reply again = s.post("/api/games/" + id + "/bot", Json::object());
  CHECK(again.status == 400);
  CHECK(contains(again.body, "not the bot's turn"));
  WARN("mcts bot turn (300 ms budget) answered in " << ms << " ms");
}

TEST_CASE("undo takes back the bot's reply and the person's turn", "[serve]") {
  TestServer s;
  const std::string id = new_game(s, {{"opponent", "random"}});
  const Reply played = s.post("/api/games/" + id + "/kick", {{"dir", 2}, {"reply", true}});
  REQUIRE(played.status == 200);
  CHECK(played.body["record"]["turn_ends"].size() >= 2);
  const Reply undone = s.post("/api/games/" + id + "/undo", Json::object());
  REQUIRE(undone.status == 200);
  CHECK(undone.body["record"]["kicks"] == "");
  CHECK(s.post("/api/games/" + id + "/undo", Json::object()).status == 400);  // nothing left
}

TEST_CASE("analyse by PUCT returns the value and turns with visits and prior and Q and PV", "[serve]") {
  TestServer s;
  const Json ask = {{"engine", "puct"}, {"record", "2 4"}, {"visits", 60}, {"top", 5}};
  const Reply r = s.post("/api/analyse", ask);
  REQUIRE(r.status == 200);
  CHECK(r.body["value"].is_number());
  CHECK(r.body["side_to_move"] == 0);
  REQUIRE(!r.body["turns"].empty());
  CHECK(r.body["turns"].size() <= 5);
  for (const Json& t : r.body["turns"]) {
    CHECK(t["visits"].is_number_integer());
    CHECK(t["prior"].is_number());
    CHECK(t["pv"][0] == t["kicks"]);
    if (t["visits"] > 0) CHECK(t["q"].is_number());
  }
  CHECK(r.body["search"]["new_visits"] == 60);
  CHECK(r.body["search"]["pv"][0] == r.body["search"]["best_turn"]);
  // Asking again searches more on the kept tree.
  const Reply more = s.post("/api/analyse", ask);
  REQUIRE(more.status == 200);
  CHECK(more.body["search"]["visits"] >= 120);
  const Reply fresh =
      s.post("/api/analyse", {{"engine", "puct"}, {"record", "2 4"}, {"visits", 10}, {"fresh", true}});
  CHECK(fresh.body["search"]["visits"] <= 12);
  // A finished game or a bounce cannot be analysed; the message says why.
  const Reply mid = s.post("/api/analyse", {{"kicks", "2222"}});  // the 4th kick bounces off the wall
  CHECK(mid.status == 400);
  CHECK(contains(mid.body, "middle of player 1's turn"));
  const Reply bad = s.post("/api/analyse", {{"record", "2 9"}});
  CHECK(bad.status == 400);
  CHECK(contains(bad.body, "field 'record': turn 2"));
}

TEST_CASE("any position of a game by id or record, cut at a kick", "[serve]") {
  TestServer s;
  const Reply r = s.post("/api/position", {{"record", "0 3"}, {"at_kick", 1}});
  REQUIRE(r.status == 200);
  CHECK(r.body["position"]["num_kicks"] == 1);
  CHECK(r.body["position"]["ball"] == Json::array({4, 4}));
  CHECK(contains(s.post("/api/position", {{"record", "0 3"}, {"at_kick", 3}}).body, "has 2 kicks"));
  const std::string id = new_game(s, {{"opponent", "human"}});
  s.post("/api/games/" + id + "/kick", {{"kicks", "04"}});
  // "04": 0 to (4,4), then 4 back is illegal: nothing played.
  const Reply g = s.post("/api/position", {{"game", id}});
  CHECK(g.body["position"]["num_kicks"] == 0);
}

TEST_CASE("many games from several threads at once", "[serve]") {
  TestServer s;
  std::atomic<int> finished{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int game = 0; game < 2; ++game) {
        Reply r = s.post("/api/games", {{"opponent", t % 2 ? "random" : "greedy"}, {"seed", t * 10 + game}});
        if (r.status != 200) { ++failures; return; }
        const std::string id = r.body["id"];
        while (r.status == 200 && r.body["position"]["result"].is_null()) {
          const int dir = r.body["position"]["legal"][0]["dir"];
          r = s.post("/api/games/" + id + "/kick", {{"dir", dir}, {"reply", true}});
        }
        if (r.status != 200) { ++failures; return; }
        ++finished;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(failures == 0);
  CHECK(finished == 8);
}

TEST_CASE("the game table keeps at most max_games, evicting the oldest", "[serve]") {
  auto o = TestServer::options();
  o.max_games = 3;
  TestServer s(o);
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(new_game(s, {{"opponent", "random"}}));
  CHECK(s.get("/api/games/" + ids[0]).status == 400);
  CHECK(contains(s.get("/api/games/" + ids[0]).body, "evicted"));
  for (int i = 1; i < 4; ++i) CHECK(s.get("/api/games/" + ids[size_t(i)]).status == 200);
}

TEST_CASE("a second server on a port in use fails to start, naming the address", "[serve]") {
  TestServer first;
  auto o = TestServer::options();
  o.port = first.port();
  ps::serve::Server second(o);
  CHECK_THROWS_WITH(second.start(), Catch::Contains("cannot listen on 127.0.0.1:" + std::to_string(first.port())));
  CHECK(first.get("/api/info").status == 200);
}

TEST_CASE("requests a page of another origin could send are refused", "[serve]") {
  TestServer s;
  httplib::Client cli("127.0.0.1", s.port());
  const std::string here = "127.0.0.1:" + std::to_string(s.port());
  // A cross-site form or fetch(no-cors) posts text/plain or a form without a CORS preflight.
  auto plain = cli.Post("/api/games", "{\"opponent\":\"greedy\"}", "text/plain");
  REQUIRE(plain);
  CHECK(plain->status == 415);
  CHECK(plain->body.find("Content-Type: application/json") != std::string::npos);
  auto form = cli.Post("/api/games", "opponent=greedy", "application/x-www-form-urlencoded");
  REQUIRE(form);
  CHECK(form->status == 415);
  // The Origin of another site, or another port of this host, or an opaque one.
  for (const std::string& origin :
       std::vector<std::string>{"http://evil.example", "http://127.0.0.1:1", "null"}) {
    auto r = cli.Post("/api/games", httplib::Headers{{"Origin", origin}}, "{}", "application/json");
    REQUIRE(r);
    CHECK(r->status == 403);
    CHECK(r->body.find("another origin") != std::string::npos);
  }
  // The page itself (same origin) and JSON with a charset pass.
  auto same = cli.Post("/api/games", httplib::Headers{{"Origin", "http://" + here}}, "{}",
                       "application/json; charset=utf-8");
  REQUIRE(same);
  CHECK(same->status == 200);
  // An empty body without a type is not taken for a form (415): it is refused as empty (400).
  const std::string id = Json::parse(same->body)["id"];
  auto empty = cli.Post(("/api/games/" + id + "/undo").c_str());
  REQUIRE(empty);
  CHECK(empty->status == 400);
  CHECK(empty->body.find("the request body is empty") != std::string::npos);
}

TEST_CASE("a kick given both as 'dir' and as 'kicks' is refused", "[serve]") {
  TestServer s;
  const std::string id = new_game(s, {{"opponent", "greedy"}});
  const Reply both = s.post("/api/games/" + id + "/kick", {{"dir", 2}, {"kicks", "4"}});
  CHECK(both.status == 400);
  CHECK(contains(both.body, "either 'dir' or 'kicks'"));
  CHECK(s.get("/api/games/" + id).body["record"]["kicks"] == "");  // nothing played
}
