// The one way a settings struct checks its values (header-only, standard library only, so the
// exported single-file bot can carry it).
//
// Each struct that configs fill has `void validate() const`, one line per rule:
//
//   void SelfplayConfig::validate() const {
//     const FieldCheck check("selfplay.");
//     check(games >= 0, "games", "must be >= 0");
//     check.part("search", search);            // a nested struct's own validate()
//   }
//
// and its parser reads the keys with ConfigReader::get and ends with
// `return reader.finish_validated(value);` (core/config.h), which turns the FieldError into a
// ConfigError naming the file, the key path and the key's line:
//   "run.yaml: selfplay.games (line 3): must be >= 0".
// Values set in code (command-line options, tests) get the same rule and the plain message
//   "selfplay.games: must be >= 0".
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace ps {

/// A value that breaks a rule of its struct. key: the field's config key relative to the struct
/// ("visits", "resign.threshold"); why: the rule ("must be >= 1"). what() is
/// "<context><key>: <why>", e.g. "search params: visits: must be >= 1".
class FieldError : public std::invalid_argument {
 public:
  FieldError(const std::string& context, std::string key, std::string why)
      : std::invalid_argument(context + key + ": " + why), key_(std::move(key)), why_(std::move(why)) {}
  const std::string& key() const { return key_; }
  const std::string& why() const { return why_; }

 private:
  std::string key_, why_;
};

/// The rule checker of one validate(); context prefixes what() ("selfplay.", "search params: ").
class FieldCheck {
 public:
  explicit FieldCheck(std::string context) : context_(std::move(context)) {}
  /// Throws FieldError(context, key, why) unless ok.
  void operator()(bool ok, const std::string& key, const std::string& why) const {
    if (!ok) throw FieldError(context_, key, why);
  }
  /// Runs part.validate() for the nested struct at key: its FieldError comes back as
  /// "<key>.<its key>" in this struct's context.
  template <class T>
  void part(const std::string& key, const T& part) const {
    try {
      part.validate();
    } catch (const FieldError& e) {
      throw FieldError(context_, key + "." + e.key(), e.why());
    }
  }

 private:
  std::string context_;
};

}  // namespace ps
