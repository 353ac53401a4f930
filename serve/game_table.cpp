#include "serve/game_table.h"

#include <random>

#include "core/text.h"
#include "serve/api_error.h"

namespace ps::serve {

namespace {

std::string fresh_id() {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard<std::mutex> lock(mu);
  static const char* hex = "0123456789abcdef";
  std::string id;
  for (int part = 0; part < 2; ++part) {
    uint64_t v = rng();
    for (int i = 0; i < 8; ++i, v >>= 4) id += hex[v & 15];
  }
  return id;
}

}  // namespace

std::string GameTable::add(const std::shared_ptr<GameSession>& s) {
  std::lock_guard<std::mutex> lock(mu_);
  while (games_.size() >= max_games_) {
    auto oldest = games_.begin();
    for (auto it = games_.begin(); it != games_.end(); ++it)
      if (it->second.used < oldest->second.used) oldest = it;
    games_.erase(oldest);
    ++evicted_;
  }
  std::string id;
  do id = fresh_id();
  while (games_.count(id));
  s->id = id;
  games_[id] = Entry{s, ++tick_};
  return id;
}

std::shared_ptr<GameSession> GameTable::get(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = games_.find(id);
  if (it == games_.end())
    throw bad_request("unknown game " + quoted_text(id, 64) +
                      ": no such game (it never existed, or it was evicted: the server keeps the " +
                      std::to_string(max_games_) + " most recently used games)");
  it->second.used = ++tick_;
  return it->second.session;
}

size_t GameTable::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return games_.size();
}

uint64_t GameTable::evicted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return evicted_;
}

}  // namespace ps::serve
