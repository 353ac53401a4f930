// Reading the JSON bodies of API requests: every field is checked, and a wrong one is an
// ApiError (400) naming the field and what it should be.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/record.h"

namespace ps::serve {

using Json = nlohmann::json;

/// The body of a POST as a JSON object. Every POST takes one, {} for all the defaults: an empty
/// (or blank) body is refused rather than read as {}, as is a body that starts with a UTF-8
/// byte order mark (RFC 8259 forbids one; {} would be the lenient reading). Throws ApiError
/// 400: "the request body is empty ...", "... byte order mark ...", "malformed JSON: ...",
/// "field 'F': the number N is out of range ..." (beyond a double, e.g. 1e400), "field 'F' is
/// given twice" (JSON leaves a repeated name's meaning open; the parser would keep the last), or
/// "the request body must be a JSON object".
Json parse_body(const std::string& body);

/// Refuses a field the request does not read (a misspelt one would otherwise leave its default
/// without a word): ApiError 400 "field 'F' is not read by this request (its fields: ...)".
void check_fields(const Json& body, std::initializer_list<const char*> fields);

/// Optional fields: the default when absent; ApiError when of the wrong type or range, or null
/// (a null is refused, not read as "the default": leave the field out for that).
/// get_string also refuses a string holding a NUL byte (no field takes one), quoting it
/// escaped.
std::string get_string(const Json& j, const char* key, const std::string& def, size_t max_size = 4096);
int64_t get_int(const Json& j, const char* key, int64_t def, int64_t lo, int64_t hi);
bool get_bool(const Json& j, const char* key, bool def);

/// "pitch": "8x10" (default), "8x12", "10x14g4"; "variant": "standard" (default),
/// "single-bounce", "no-bounce".
const Pitch& get_pitch(const Json& j);
Variant get_variant(const Json& j);

/// A game given by value: "record" (turns separated by spaces, every turn complete) or "kicks"
/// (a flat list of kick digits, split into turns by the rules), on the body's pitch and variant;
/// neither: the start position. Throws ApiError naming the bad turn or kick.
Game get_game(const Json& j, size_t max_size);

/// The game cut after `kick` kicks (kick < 0: the whole game). ApiError when out of range.
Game cut_at_kick(const Game& full, int64_t kick);

}  // namespace ps::serve
