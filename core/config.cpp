#include "core/config.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace ps {

ConfigReader::ConfigReader(YAML::Node node, std::string source, std::string prefix)
    : node_(std::move(node)), source_(std::move(source)), prefix_(std::move(prefix)) {
  if (node_ && !node_.IsNull() && !node_.IsMap())
    throw ConfigError(source_ + ": " + (prefix_.empty() ? std::string("top level") : prefix_) +
                      ": expected a map of keys");
}

ConfigReader ConfigReader::from_file(const std::string& path) {
  // An ifstream opens a directory and reads nothing: a directory read as an empty config, and
  // `teacher DIR` played 64 games of the defaults.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError(path + ": is a directory, not a config file");
  std::ifstream f(path);
  if (!f) throw ConfigError(path + ": cannot open config file");
  std::stringstream ss;
  ss << f.rdbuf();
  return from_string(ss.str(), path);
}

ConfigReader ConfigReader::from_string(const std::string& yaml, const std::string& source) {
  // A model, checkpoint or value net given where a config belongs read as a YAML syntax error
  // somewhere in its bytes. UTF-8 YAML holds no NUL byte; UTF-16 and UTF-32 YAML (which
  // yaml-cpp reads) has one in its first two bytes or starts with a byte order mark.
  const auto byte = [&](size_t i) { return i < yaml.size() ? (unsigned char)yaml[i] : 0x100u; };
  const bool wide = byte(0) == 0 || byte(1) == 0 || (byte(0) == 0xFF && byte(1) == 0xFE) ||
                    (byte(0) == 0xFE && byte(1) == 0xFF);
  if (!wide && yaml.find('\0') != std::string::npos)
    throw ConfigError(source + ": a binary file, not a YAML config (a model, checkpoint or value net?)");
  try {
    return ConfigReader(YAML::Load(yaml), source);
  } catch (const YAML::Exception& e) {
    throw ConfigError(source + ": YAML syntax error at line " + std::to_string(e.mark.line + 1) +
                      ": " + e.msg);
  }
}

bool ConfigReader::has(const std::string& key) const {
  return node_ && node_.IsMap() && node_[key] && !node_[key].IsNull();
}

ConfigReader ConfigReader::child(const std::string& key) {
  used_.insert(key);
  YAML::Node n = (node_ && node_.IsMap()) ? node_[key] : YAML::Node();
  if (n && !n.IsNull() && !n.IsMap()) fail(key, n, "expected a map of keys");
  return ConfigReader(n, source_, path(key));
}

void ConfigReader::finish() const {
  if (!node_ || !node_.IsMap()) return;
  std::set<std::string> seen;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    // A complex key ("? [a, b]") has no string form: as<std::string>() would throw yaml-cpp's
    // bare "bad conversion" with neither file nor key.
    if (!it->first.IsScalar()) fail("<non-scalar key>", it->first, "keys must be plain names");
    std::string key = it->first.as<std::string>();
    // YAML forbids duplicate keys, but yaml-cpp keeps both and lookups see the first: the
    // second would be ignored without a word.
    if (!seen.insert(key).second) fail(key, it->first, "duplicate key (an earlier line sets it too)");
    if (!used_.count(key)) fail(key, it->first, "unknown key");
  }
}

namespace {

// The node of a dotted key ("resign.threshold") below node; an undefined node when absent.
YAML::Node find_dotted(const YAML::Node& node, const std::string& key) {
  if (!node || !node.IsMap()) return YAML::Node();
  const size_t dot = key.find('.');
  const YAML::Node child = node[key.substr(0, dot)];
  return dot == std::string::npos ? child : find_dotted(child, key.substr(dot + 1));
}

}  // namespace

void ConfigReader::fail_key(const std::string& key, const std::string& why) const {
  fail(key, find_dotted(node_, key), why);
}

std::string ConfigReader::where(const std::string& key) const { return where(key, find_dotted(node_, key)); }

std::string ConfigReader::where(const std::string& key, const YAML::Node& n) const {
  std::string out = source_ + ": " + path(key);
  if (n && n.Mark().line >= 0) out += " (line " + std::to_string(n.Mark().line + 1) + ")";
  return out;
}

void ConfigReader::fail(const std::string& key, const YAML::Node& n, const std::string& why) const {
  throw ConfigError(where(key, n) + ": " + why);
}

}  // namespace ps
