// Typed, strict reading of YAML configs (yaml-cpp). Every key read is remembered, so finish()
// can reject unknown keys; wrong types fail with the full key path and the file line.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/field_check.h"

namespace ps {

/// A config error: what() is "<source>: <key.path> (line N): <why>".
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One row of a field table: a config key and the settings field it sets. See ConfigReader::read.
template <class T>
struct ConfigField {
  const char* key;
  T& value;
};
template <class T>
ConfigField<T> field(const char* key, T& value) {
  return {key, value};
}

template <class T>
struct is_std_vector : std::false_type {};
template <class T, class A>
struct is_std_vector<std::vector<T, A>> : std::true_type {};

class ConfigReader {
 public:
  /// node: a map (or null/absent: every get() returns its default). source names the file.
  ConfigReader(YAML::Node node, std::string source, std::string prefix = "");
  static ConfigReader from_file(const std::string& path);
  static ConfigReader from_string(const std::string& yaml, const std::string& source);

  bool has(const std::string& key) const;
  /// Value of key converted to T, or def when absent. Throws ConfigError on a wrong type.
  template <class T>
  T get(const std::string& key, const T& def);
  /// Value of key; throws ConfigError when absent or of the wrong type.
  template <class T>
  T require(const std::string& key);
  /// Reads a field table: for each field, value = get(key, value), in order (a key that is
  /// absent leaves its value as it is, so the field's value is the default):
  ///   r.read(field("games", c.games), field("visits", c.visits), field("seed", c.seed));
  /// Throws ConfigError naming the first key of the wrong type.
  template <class... T>
  void read(ConfigField<T>... fields) {
    ((fields.value = get<T>(fields.key, fields.value)), ...);
  }
  /// A value given as a string and converted by parse (e.g. parse_variant): parse(get(key,
  /// def)). The std::invalid_argument of parse becomes a ConfigError naming file, key and line.
  template <class Parse>
  auto get_parsed(const std::string& key, const std::string& def, Parse parse);
  /// A list of strings, each converted by parse (e.g. `pitches: [8x10, 8x12]`); def when the key
  /// is absent or null. The std::invalid_argument of parse becomes a ConfigError naming file,
  /// key and line.
  template <class T, class Parse>
  std::vector<T> get_parsed_list(const std::string& key, std::vector<T> def, Parse parse);
  /// The sub-map at key (absent gives an empty reader). Its keys are checked by its own finish().
  ConfigReader child(const std::string& key);
  /// Throws ConfigError naming the first key of this map that was never read.
  void finish() const;
  /// Throws ConfigError "<source>: <key.path> (line N): <why>" for a value that read fine but
  /// is out of range (the line is the key's, when the key is present). key may be dotted
  /// ("resign.threshold") for a key of a sub-map.
  [[noreturn]] void fail_key(const std::string& key, const std::string& why) const;
  /// "<source>: <key.path> (line N)", the start of fail_key's message, for a check made later
  /// (after parsing, e.g. against a file the value names); without the line when key is absent.
  std::string where(const std::string& key) const;
  /// The end of every config parser: finish(), then value.validate() (core/field_check.h). A
  /// FieldError from it becomes a ConfigError naming the file, the key path and the key's line;
  /// any other std::invalid_argument a ConfigError prefixed with the source. Returns value.
  template <class T>
  T finish_validated(T value) const;

  /// The keys get(), require(), read(), child() ... asked this map for so far, present or not,
  /// sorted (a parser run on an empty map lists every key it knows).
  std::vector<std::string> keys_read() const { return {used_.begin(), used_.end()}; }
  const std::string& source() const { return source_; }
  std::string path(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }
  YAML::Node node() const { return node_; }

 private:
  [[noreturn]] void fail(const std::string& key, const YAML::Node& n, const std::string& why) const;
  /// n (the key's value, or an item of its list) as T; item prefixes the error's reason.
  template <class T>
  T convert(const std::string& key, const YAML::Node& n, const std::string& item);
  std::string where(const std::string& key, const YAML::Node& n) const;
  YAML::Node node_;
  std::string source_, prefix_;
  std::set<std::string> used_;
};

/// What a config value of type T must be, for "wrong type" errors: "a boolean (true/false, also yes/no or on/off)",
/// "an integer", "a number", "a string", "a list (each item a string)", ...
template <class T>
std::string expected_type_name() {
  if constexpr (std::is_same_v<T, bool>) {
    return "a boolean (true/false, also yes/no or on/off)";
  } else if constexpr (std::is_integral_v<T>) {
    return std::is_unsigned_v<T> ? "an integer >= 0" : "an integer";
  } else if constexpr (std::is_floating_point_v<T>) {
    return "a number";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "a string";
  } else if constexpr (is_std_vector<T>::value) {
    return "a list (each item " + expected_type_name<typename T::value_type>() + ")";
  } else {
    return "a value of another type";
  }
}

/// An optional sign and decimal digits only: an integer as YAML writes one, whatever its size.
inline bool is_integer_text(const std::string& s) {
  const size_t start = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (start == s.size()) return false;
  for (size_t i = start; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

/// A number written in decimal, read whole by strtold (no hexadecimal): its value, and whether
/// strtold found it beyond long double's range (ERANGE). nullopt for other text.
struct DecimalText {
  long double value = 0;
  bool range_error = false;
};
inline std::optional<DecimalText> read_decimal_text(const std::string& s) {
  if (s.empty() || s.find_first_of("xX") != std::string::npos) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long double v = std::strtold(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return DecimalText{v, errno == ERANGE};
}

/// A decimal number in full (strtold reads every character; no hexadecimal) whose magnitude is
/// above T's largest finite value ("1.5e999" for a double): no type error but a range error.
template <class T>
bool is_number_beyond(const std::string& s) {
  const std::optional<DecimalText> d = read_decimal_text(s);
  if (!d) return false;
  const long double v = d->value;
  return (std::isinf(v) && d->range_error) ||
         (std::isfinite(v) && std::fabs(v) > static_cast<long double>(std::numeric_limits<T>::max()));
}

/// A decimal number in full, not zero, whose magnitude is at most half T's smallest (denormal)
/// value ("1e-999" for a double): it would read as 0.
template <class T>
bool is_number_below(const std::string& s) {
  const std::optional<DecimalText> d = read_decimal_text(s);
  if (!d || std::isnan(d->value)) return false;
  const long double v = d->value;
  if (v == 0) return d->range_error;  // below even long double's range; "0" and "0.0" are no error
  return std::fabs(v) <= static_cast<long double>(std::numeric_limits<T>::denorm_min()) / 2;
}

/// Digits after an optional sign, the first of them a 0 followed by more ("010", "-07"): an
/// integer YAML 1.1 reads as octal (8, -7) and YAML 1.2 as decimal.
inline bool has_leading_zero(const std::string& s) {
  const size_t start = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  return is_integer_text(s) && s.size() > start + 1 && s[start] == '0';
}

/// How a node that is not a scalar reads in an error: "a list", "a map", "an empty value".
inline std::string non_scalar_name(const YAML::Node& n) {
  return n.IsSequence() ? "a list"
         : n.IsMap()    ? "a map"
         : n.IsNull()   ? "an empty value"
                        : "a non-scalar value";
}

template <class T>
T ConfigReader::get(const std::string& key, const T& def) {
  used_.insert(key);
  if (!node_ || !node_.IsMap()) return def;
  YAML::Node n = node_[key];
  if (!n || n.IsNull()) return def;
  return convert<T>(key, n, "");
}

template <class T>
T ConfigReader::convert(const std::string& key, const YAML::Node& n, const std::string& item) {
  // A list reads item by item (a list of lists too), so an error names the item ("item 2: ",
  // "item 1.3: ") and its line.
  if constexpr (is_std_vector<T>::value) {
    if (n.IsSequence()) {
      T out;
      size_t index = 0;
      const std::string outer = item.empty() ? "item " : item.substr(0, item.size() - 2) + ".";
      for (const YAML::Node& element : n)
        out.push_back(convert<typename T::value_type>(key, element, outer + std::to_string(++index) + ": "));
      return out;
    }
  }
  const std::string text = n.IsScalar() ? "'" + n.Scalar() + "'" : non_scalar_name(n);
  if constexpr (std::is_arithmetic_v<T>) {
    // A quoted scalar ('0.5', "true") or one tagged !!str is a string in YAML, which yaml-cpp
    // would convert to a number or boolean silently.
    if (n.IsScalar() && (n.Tag() == "!" || n.Tag() == "tag:yaml.org,2002:str"))
      fail(key, n,
           item + "wrong type: " + text + " is quoted, so a string: expected " + expected_type_name<T>() +
               " (write it without quotes)");
  }
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // yaml-cpp reads "010" as octal 8 (YAML 1.1), most YAML 1.2 readers as 10: refused, not guessed.
    if (n.IsScalar() && has_leading_zero(n.Scalar()))
      fail(key, n,
           item + "ambiguous integer: " + text +
               " starts with 0, which YAML reads as octal or decimal by version (write it without "
               "the leading zero)");
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (n.IsScalar() && is_number_below<T>(n.Scalar())) {
      std::ostringstream smallest;
      smallest << std::numeric_limits<T>::denorm_min();
      fail(key, n,
           item + "out of range: the magnitude of " + text + " is below the smallest number, " +
               smallest.str() + ", and would read as 0 (write 0 for zero)");
    }
  }
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      // An integer that does not fit T (4294967296 for an int) is no type error.
      if (n.IsScalar() && is_integer_text(n.Scalar()))
        fail(key, n,
             item + "out of range: " + text + " is not in [" + std::to_string(std::numeric_limits<T>::min()) +
                 ", " + std::to_string(std::numeric_limits<T>::max()) + "]");
    }
    if constexpr (std::is_floating_point_v<T>) {
      if (n.IsScalar() && is_number_beyond<T>(n.Scalar())) {
        std::ostringstream largest;
        largest << std::numeric_limits<T>::max();
        fail(key, n,
             item + "out of range: the magnitude of " + text + " is beyond the largest number, " +
                 largest.str());
      }
    }
    fail(key, n, item + "wrong type: cannot read " + text + ": expected " + expected_type_name<T>());
  }
}

template <class Parse>
auto ConfigReader::get_parsed(const std::string& key, const std::string& def, Parse parse) {
  const std::string text = get<std::string>(key, def);
  try {
    return parse(text);
  } catch (const std::invalid_argument& e) {
    fail_key(key, e.what());
  }
}

template <class T, class Parse>
std::vector<T> ConfigReader::get_parsed_list(const std::string& key, std::vector<T> def, Parse parse) {
  const std::vector<std::string> texts = get<std::vector<std::string>>(key, {});
  if (!has(key)) return def;
  std::vector<T> out;
  for (const std::string& text : texts) {
    try {
      out.push_back(parse(text));
    } catch (const std::invalid_argument& e) {
      fail_key(key, e.what());
    }
  }
  return out;
}

template <class T>
T ConfigReader::finish_validated(T value) const {
  finish();
  try {
    value.validate();
  } catch (const FieldError& e) {
    fail_key(e.key(), e.why());
  } catch (const std::invalid_argument& e) {
    throw ConfigError(source_ + ": " + e.what());
  }
  return value;
}

template <class T>
T ConfigReader::require(const std::string& key) {
  if (!has(key)) fail(key, YAML::Node(), "required key is missing");
  return get<T>(key, T{});
}

}  // namespace ps
