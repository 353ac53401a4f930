#include "serve/request.h"

#include <algorithm>
#include <set>

#include "core/plural.h"
#include "core/text.h"
#include "serve/api_error.h"

namespace ps::serve {

namespace {

// The field `key` of j: nullptr when absent; ApiError when null, naming what it must be.
const Json* field(const Json& j, const char* key, const std::string& what) {
  auto it = j.find(key);
  if (it == j.end()) return nullptr;
  if (it->is_null())
    throw bad_request(std::string("field '") + key + "' must be " + what +
                      ", not null (leave the field out for its default)");
  return &*it;
}

}  // namespace

Json parse_body(const std::string& body) {
  if (body.find_first_not_of(" \t\r\n") == std::string::npos)
    throw bad_request("the request body is empty: send a JSON object ({} for the defaults)");
  if (body.rfind("\xEF\xBB\xBF", 0) == 0)
    throw bad_request(
        "the request body starts with a UTF-8 byte order mark (EF BB BF): send the JSON without it");
  // The parser's callback notes the last top-level field, to name it when a number in it is
  // out of range.
  std::string last_field, twice;
  std::set<std::string> seen;
  const Json::parser_callback_t note_field = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::key && depth == 1) {
      last_field = parsed.get<std::string>();
      if (!seen.insert(last_field).second && twice.empty()) twice = last_field;
    }
    return true;
  };
  Json j;
  try {
    j = Json::parse(body, note_field);
  } catch (const Json::out_of_range& e) {
    // 406: a number beyond a double (1e400); the message ends "parsing 'TOKEN'".
    const std::string what = e.what();
    const size_t quote = what.find('\'');
    const std::string number = quote == std::string::npos ? what : what.substr(quote);
    throw bad_request((last_field.empty() ? std::string("a number")
                                          : "field " + quoted_text(last_field, 64) + ": the number") +
                      " " + number + " is out of range (beyond a double)");
  } catch (const Json::exception& e) {
    throw bad_request(std::string("malformed JSON: ") + e.what());
  }
  if (!j.is_object()) throw bad_request("the request body must be a JSON object");
  if (!twice.empty()) throw bad_request("field " + quoted_text(twice, 64) + " is given twice");
  return j;
}

void check_fields(const Json& body, std::initializer_list<const char*> fields) {
  if (!body.is_object()) return;
  for (auto it = body.begin(); it != body.end(); ++it) {
    if (std::any_of(fields.begin(), fields.end(), [&](const char* f) { return it.key() == f; })) continue;
    std::string list;
    for (const char* f : fields) list += std::string(list.empty() ? "" : ", ") + f;
    throw bad_request("field " + quoted_text(it.key(), 64) + " is not read by this request (" +
                      (list.empty() ? std::string("it reads none: send {}") : "its fields: " + list) + ")");
  }
}

std::string get_string(const Json& j, const char* key, const std::string& def, size_t max_size) {
  const Json* f = field(j, key, "a string");
  if (!f) return def;
  if (!f->is_string()) throw bad_request(std::string("field '") + key + "' must be a string");
  const std::string& s = f->get_ref<const std::string&>();
  if (s.size() > max_size)
    throw bad_request(std::string("field '") + key + "' is too long (" + std::to_string(s.size()) +
                      " bytes; at most " + std::to_string(max_size) + ")");
  if (s.find('\0') != std::string::npos)
    throw bad_request(std::string("field '") + key + "' holds a NUL byte: " + quoted_text(s, 64));
  return s;
}

int64_t get_int(const Json& j, const char* key, int64_t def, int64_t lo, int64_t hi) {
  const std::string range = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  const Json* f = field(j, key, range);
  if (!f) return def;
  if (!f->is_number_integer()) throw bad_request(std::string("field '") + key + "' must be " + range);
  const int64_t v = f->is_number_unsigned() && f->get<uint64_t>() > uint64_t(INT64_MAX)
                        ? INT64_MAX : f->get<int64_t>();
  if (v < lo || v > hi)
    throw bad_request(std::string("field '") + key + "' is " + std::to_string(v) + "; it must be " + range);
  return v;
}

bool get_bool(const Json& j, const char* key, bool def) {
  const Json* f = field(j, key, "true or false");
  if (!f) return def;
  if (!f->is_boolean()) throw bad_request(std::string("field '") + key + "' must be true or false");
  return f->get<bool>();
}

const Pitch& get_pitch(const Json& j) {
  const std::string text = get_string(j, "pitch", "8x10", 32);
  try {
    const PitchChoice c = parse_pitch_spec(text);
    return Pitch::get(c.width, c.length, c.goal);
  } catch (const std::exception& e) {
    throw bad_request(std::string("field 'pitch': ") + e.what());
  }
}

Variant get_variant(const Json& j) {
  try {
    return parse_variant(get_string(j, "variant", "standard", 32));
  } catch (const std::invalid_argument& e) {
    throw bad_request(std::string("field 'variant': ") + e.what());
  }
}

Game get_game(const Json& j, size_t max_size) {
  const Pitch& pitch = get_pitch(j);
  const Variant variant = get_variant(j);
  const std::string record = get_string(j, "record", "", max_size);
  const std::string kicks = get_string(j, "kicks", "", max_size);
  if (!record.empty() && !kicks.empty()) throw bad_request("give either 'record' or 'kicks', not both");
  try {
    if (!kicks.empty()) return parse_kicks(pitch, variant, kicks);
    return parse_record(pitch, variant, record);
  } catch (const RecordError& e) {
    throw bad_request(std::string(kicks.empty() ? "field 'record': " : "field 'kicks': ") + e.what());
  }
}

Game cut_at_kick(const Game& full, int64_t kick) {
  if (kick < 0) return full;
  const int64_t n = int64_t(full.kicks().size());
  if (kick > n)
    throw bad_request("field 'at_kick' is " + std::to_string(kick) + " but the game has " +
                      counted(n, "kick"));
  Game g(full.start().pitch(), full.start().variant());
  for (int64_t i = 0; i < kick; ++i) g.kick(full.kicks()[size_t(i)].dir);
  return g;
}

}  // namespace ps::serve
