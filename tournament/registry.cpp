#include "tournament/registry.h"

#include <map>
#include <mutex>
#include <stdexcept>

#include "tournament/external_engine.h"

namespace ps::tour {

namespace {

struct Entry {
  PlayerFactory factory;
  std::string description;
};

struct Registry {
  std::mutex mutex;
  std::recursive_mutex factory_mutex;  // serialises factory calls (YAML reads); a factory may nest
  std::map<std::string, Entry> types;
};

Registry& registry() {
  // The built-in types are added on first use, so no static-initialisation order or linker
  // dead-stripping of registration objects can lose them.
  static Registry* r = [] {
    auto* reg = new Registry;
    reg->types["external"] = Entry{make_external_engine_factory(),
                                   "engine subprocess speaking the CodinGame protocol "
                                   "(keys: command, working_dir, first_turn_ms, turn_ms, "
                                   "margin_ms, exit_grace_ms, stderr, opening_history)"};
    return reg;
  }();
  return *r;
}

}  // namespace

void register_player_type(const std::string& type, PlayerFactory factory,
                          const std::string& description) {
  if (type.empty()) throw std::invalid_argument("register_player_type: empty type name");
  if (!factory) throw std::invalid_argument("register_player_type: empty factory for '" + type + "'");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.types.count(type))
    throw std::invalid_argument("register_player_type: type '" + type + "' is already registered");
  r.types[type] = Entry{std::move(factory), description};
}

bool has_player_type(const std::string& type) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.types.count(type) > 0;
}

std::vector<std::pair<std::string, std::string>> player_types() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& [k, v] : r.types) out.emplace_back(k, v.description);
  return out;
}

std::unique_ptr<Player> create_player(const std::string& type, const YAML::Node& options,
                                      const PlayerContext& context, const std::string& source,
                                      const std::string& where) {
  Registry& r = registry();
  PlayerFactory factory;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.types.find(type);
    if (it == r.types.end()) {
      std::string known;
      for (auto& [k, v] : r.types) known += (known.empty() ? "" : ", ") + k;
      throw ConfigError(source + ": " + where + ".type: unknown player type '" + type +
                        "' (registered: " + known + ")");
    }
    factory = it->second.factory;
  }
  std::lock_guard<std::recursive_mutex> lock(r.factory_mutex);
  // The original node (a clone would lose the line marks of error messages); every read of it
  // happens under factory_mutex.
  ConfigReader reader(options, source, where);
  for (const char* k : {"name", "type", "time_ms", "visits"}) reader.get<std::string>(k, "");
  std::unique_ptr<Player> p = factory(reader, context);
  if (!p) throw ConfigError(source + ": " + where + ": factory of type '" + type + "' returned no player");
  reader.finish();
  return p;
}

}  // namespace ps::tour
