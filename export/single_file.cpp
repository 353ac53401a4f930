#include "export/single_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace ps::single_file {

namespace {

constexpr const char* kOmitBegin = "// single-file: omit begin";
constexpr const char* kOmitEnd = "// single-file: omit end";
constexpr const char* kOnly = "// single-file: only ";  // + kind + " begin" / " end"

const char* kind_name(BotKind kind) { return kind == BotKind::kAlphaBeta ? "alphabeta" : "puct"; }

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Removes comments (keeping literals), omitted blocks (and the blocks of other bot kinds) and
// nothing else.
std::string remove_comments(const std::string& s, const std::string& name, BotKind kind) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  const size_t n = s.size();
  auto fail = [&](const char* what) {
    throw std::invalid_argument("single file: " + name + ": " + what);
  };
  while (i < n) {
    if (s.compare(i, std::strlen(kOmitBegin), kOmitBegin) == 0) {
      const size_t e = s.find(kOmitEnd, i);
      if (e == std::string::npos) fail("'single-file: omit begin' without an end marker");
      i = e + std::strlen(kOmitEnd);
      continue;
    }
    if (s.compare(i, std::strlen(kOnly), kOnly) == 0) {
      // "// single-file: only KIND begin": kept (the marker is a comment) for that kind, skipped
      // to "// single-file: only KIND end" for the others.
      const size_t word = i + std::strlen(kOnly);
      const size_t space = s.find_first_of(" \n", word);
      const std::string block = s.substr(word, space == std::string::npos ? std::string::npos : space - word);
      if (block != "puct" && block != "alphabeta")
        fail("'single-file: only' names no bot kind (puct, alphabeta)");
      const std::string begin = std::string(kOnly) + block + " begin",
                        end = std::string(kOnly) + block + " end";
      if (s.compare(i, begin.size(), begin) == 0 && block != kind_name(kind)) {
        const size_t e = s.find(end, i);
        if (e == std::string::npos) fail("'single-file: only ... begin' without its end marker");
        i = e + end.size();
        continue;
      }
    }
    const char c = s[i];
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      const size_t e = s.find("*/", i + 2);
      if (e == std::string::npos) fail("unterminated /* comment");
      out += ' ';
      i = e + 2;
      continue;
    }
    // Lines are trimmed and joined later, which would change a raw string's text.
    if (c == 'R' && i + 1 < n && s[i + 1] == '"' && (i == 0 || !ident_char(s[i - 1])))
      fail("raw string literals are not supported in embedded sources");
    // A quote after a digit or letter is a digit separator (0x5EED'0F'BA11), not a literal.
    if (c == '"' || (c == '\'' && !(i > 0 && ident_char(s[i - 1])))) {
      size_t j = i + 1;
      while (j < n && s[j] != c && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
      if (j >= n || s[j] != c) fail("unterminated literal");
      out.append(s, i, j + 1 - i);
      i = j + 1;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

// Characters that may form a longer token with the next one (a + + b is not a ++ b).
bool joins(char c) { return c && std::strchr("+-&|<>=/*%^!.:#", c) != nullptr; }

// Does text need a space between a (last char) and b (first char) to keep its tokens?
bool needs_space(char a, char b) {
  return (ident_char(a) && ident_char(b)) || (joins(a) && joins(b));
}

// One trimmed code line without the spaces that separate no tokens (literals kept).
std::string squeeze(const std::string& l) {
  std::string out;
  for (size_t i = 0; i < l.size();) {
    const char c = l[i];
    if (c == '"' || (c == '\'' && !(i > 0 && ident_char(l[i - 1])))) {
      size_t j = i + 1;
      while (j < l.size() && l[j] != c) j += l[j] == '\\' ? 2 : 1;
      out.append(l, i, j + 1 - i);
      i = j + 1;
      continue;
    }
    if (c == ' ' || c == '\t') {
      size_t j = i;
      while (j < l.size() && (l[j] == ' ' || l[j] == '\t')) ++j;
      if (!out.empty() && j < l.size() && needs_space(out.back(), l[j])) out += ' ';
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = 0;
    for (size_t k = 0; k < 3; ++k)
      v = v << 8 | (i + k < bytes.size() ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (int k = 3; k >= 0; --k) out += kBase64[(v >> (6 * k)) & 63];
  }
  return out;
}

void put_float(std::string& bytes, float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  for (int k = 0; k < 4; ++k) bytes += char((u >> (8 * k)) & 255);
}

// Symmetric per-row quantisation: q = round(w / scale), |q| <= qmax, scale = max|w| / qmax.
int qmax_of(int bits) { return bits == 8 ? 127 : 7; }

float row_scale(const Layer& l, int row, int bits) {
  float m = 0;
  for (int k = 0; k < l.fan_in; ++k) m = std::max(m, std::fabs(l.weights[size_t(row) * l.fan_in + k]));
  return m > 0 ? m / float(qmax_of(bits)) : 1.0f;
}

int quantize(float w, float scale, int bits) {
  const int q = int(std::lround(w / scale));
  return std::clamp(q, -qmax_of(bits), qmax_of(bits));
}

std::string with_commas(size_t v) {
  std::string s = std::to_string(v);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return s;
}

// The weight text as C++: adjacent string literals of at most 4,000 characters, one per line.
std::string weight_literal(const std::string& text) {
  std::string out = "static const char kWeights[] =\n";
  for (size_t i = 0; i < text.size(); i += 4000) out += "\"" + text.substr(i, 4000) + "\"\n";
  if (text.empty()) out += "\"\"\n";
  out += ";\n";
  return out;
}

}  // namespace

std::string strip_source(const std::string& text, const std::string& name,
                         std::vector<std::string>* system_includes, BotKind kind) {
  const std::string code = remove_comments(text, name, kind);
  std::string out;
  size_t start = 0;
  while (start <= code.size()) {
    size_t end = code.find('\n', start);
    if (end == std::string::npos) end = code.size();
    const std::string line = trim(code.substr(start, end - start));
    start = end + 1;
    if (line.empty() || line == "#pragma once") continue;
    if (line.rfind("#include", 0) == 0) {
      const std::string what = trim(line.substr(8));
      if (!what.empty() && what[0] == '"') continue;  // the project's own: concatenated instead
      if (system_includes) {
        const std::string inc = "#include " + what;
        if (std::find(system_includes->begin(), system_includes->end(), inc) == system_includes->end())
          system_includes->push_back(inc);
        continue;
      }
    }
    // Preprocessor lines stay lines of their own; code lines are squeezed and joined.
    if (line[0] == '#') {
      if (!out.empty() && out.back() != '\n') out += '\n';
      out += line + '\n';
      continue;
    }
    const std::string code_line = squeeze(line);
    if (!out.empty() && out.back() != '\n' && needs_space(out.back(), code_line[0])) out += ' ';
    out += code_line;
  }
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

void check_layer_shapes(const NetWeights& net) {
  const nn::NetConfig& c = net.config;
  std::vector<std::pair<int, int>> want;  // (out, fan_in)
  want.push_back({c.channels, nn::kNumPlanes * 9});
  for (int b = 0; b < c.blocks; ++b) {
    const int g = c.is_global_pool_block(b) ? c.global_pool_channels : 0;
    want.push_back({c.channels + g, c.channels * 9});
    if (g > 0) want.push_back({c.channels, 3 * g});
    want.push_back({c.channels, c.channels * 9});
  }
  want.push_back({c.policy_channels, c.channels});
  want.push_back({kNumDirs, c.policy_channels});
  want.push_back({c.value_channels, c.channels});
  want.push_back({c.value_hidden, 3 * c.value_channels});
  want.push_back({1, c.value_hidden});
  if (net.layers.size() != want.size())
    throw std::invalid_argument("single file: net " + c.summary() + " needs " +
                                std::to_string(want.size()) + " layers, got " +
                                std::to_string(net.layers.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    const Layer& l = net.layers[i];
    if (l.out != want[i].first || l.fan_in != want[i].second ||
        l.weights.size() != size_t(l.out) * size_t(l.fan_in) || l.bias.size() != size_t(l.out))
      throw std::invalid_argument("single file: layer " + std::to_string(i) + " (" + l.name +
                                  ") has shape " + std::to_string(l.out) + "x" +
                                  std::to_string(l.fan_in) + ", expected " +
                                  std::to_string(want[i].first) + "x" +
                                  std::to_string(want[i].second));
  }
}

std::string encode_weights(const NetWeights& net, int bits) {
  check_layer_shapes(net);
  return encode_layers(net.layers, bits);
}

std::string encode_layers(const std::vector<Layer>& layers, int bits) {
  if (bits != 8 && bits != 4 && bits != 32)
    throw std::invalid_argument("single file: bits must be 8, 4 or 32");
  std::string bytes;
  for (const Layer& l : layers) {
    for (int r = 0; r < l.out; ++r) put_float(bytes, bits == 32 ? 1.0f : row_scale(l, r, bits));
    for (int r = 0; r < l.out; ++r) put_float(bytes, l.bias[size_t(r)]);
    if (bits == 32) {
      for (float w : l.weights) put_float(bytes, w);
    } else if (bits == 8) {
      for (int r = 0; r < l.out; ++r) {
        const float s = row_scale(l, r, bits);
        for (int k = 0; k < l.fan_in; ++k)
          bytes += char(uint8_t(int8_t(quantize(l.weights[size_t(r) * l.fan_in + k], s, bits))));
      }
    } else {
      // Two weights per byte, low nibble first, each stored as q + 8 (1..15); a layer ends on
      // a whole byte.
      int pending = -1;
      for (int r = 0; r < l.out; ++r) {
        const float s = row_scale(l, r, bits);
        for (int k = 0; k < l.fan_in; ++k) {
          const int nib = quantize(l.weights[size_t(r) * l.fan_in + k], s, bits) + 8;
          if (pending < 0) {
            pending = nib;
          } else {
            bytes += char(pending | nib << 4);
            pending = -1;
          }
        }
      }
      if (pending >= 0) bytes += char(pending);
    }
  }
  return base64(bytes);
}

std::vector<Layer> dequantized_layers(std::vector<Layer> layers, int bits) {
  if (bits == 32) return layers;
  for (Layer& l : layers)
    for (int r = 0; r < l.out; ++r) {
      const float s = row_scale(l, r, bits);
      for (int k = 0; k < l.fan_in; ++k) {
        float& w = l.weights[size_t(r) * l.fan_in + k];
        w = float(quantize(w, s, bits)) * s;
      }
    }
  return layers;
}

NetWeights dequantized(const NetWeights& net, int bits) {
  NetWeights q = net;
  q.layers = dequantized_layers(std::move(q.layers), bits);
  return q;
}

std::vector<Layer> value_net_layers(const ValueNet& net) {
  std::vector<Layer> layers;
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const DenseLayer& d = net.layers[i];
    layers.push_back(Layer{"dense" + std::to_string(i), d.out, d.in, d.weight, d.bias});
  }
  return layers;
}

ValueNet dequantized(const ValueNet& net, int bits) {
  ValueNet q = net;
  const std::vector<Layer> layers = dequantized_layers(value_net_layers(net), bits);
  for (size_t i = 0; i < layers.size(); ++i) q.layers[i].weight = layers[i].weights;
  q.finalize();
  return q;
}

namespace {

// The file of one bot kind: its embedded sources stripped for the kind, the constants (consts:
// the block that opens namespace psx), the weights at the first width of the options' that
// fits, then the template. what: the weights' owner in size errors ("net 3x24 ...").
ExportResult assemble_file(BotKind kind, const std::vector<EmbeddedSource>& sources, const std::string& head,
                           const std::string& consts, const std::vector<Layer>& layers,
                           const ExportOptions& options, const std::string& what) {
  std::vector<std::string> includes;
  std::string body;
  std::string tmpl;
  for (const EmbeddedSource& s : sources) {
    const std::string stripped = strip_source(s.text, s.path, &includes, kind);
    if (std::string(s.path) == "export/bot_template.cpp")
      tmpl = stripped;
    else
      body += stripped;
  }
  if (tmpl.empty()) throw std::logic_error("single file: the template was not embedded");
  std::string incs;
  for (const std::string& i : includes) incs += i + "\n";
  const std::string code_tail = "}\n";

  std::vector<int> tries = options.bits ? std::vector<int>{options.bits} : std::vector<int>{8, 4};
  size_t code_chars = 0, weight_chars = 0;
  for (int bits : tries) {
    const std::string wl = weight_literal(encode_layers(layers, bits));
    const std::string bits_line = "constexpr int kBits=" + std::to_string(bits) + ";\n";
    ExportResult r;
    r.bits = bits;
    r.source = head + incs + body + consts + bits_line + wl + code_tail + tmpl;
    r.weight_chars = wl.size();
    r.code_chars = r.source.size() - wl.size();
    code_chars = r.code_chars;
    weight_chars = r.weight_chars;
    if (int64_t(r.source.size()) <= options.max_chars) return r;
  }
  const int bits = tries.back();
  if (int64_t(code_chars) >= options.max_chars)
    throw SizeError("single file: the code alone (engine, search, inference, protocol) needs " +
                    with_commas(code_chars) + " chars; limit " +
                    with_commas(size_t(options.max_chars)) + " (too large by " +
                    with_commas(code_chars + weight_chars - size_t(options.max_chars)) +
                    " with the weights); nothing written");
  throw SizeError("single file: weights of " + what + " need " + with_commas(weight_chars) + " chars at " +
                  std::to_string(bits) + " bits; limit " + with_commas(size_t(options.max_chars)) +
                  " leaves " + with_commas(size_t(options.max_chars) - code_chars) + " after " +
                  with_commas(code_chars) + " chars of code (too large by " +
                  with_commas(code_chars + weight_chars - size_t(options.max_chars)) + "); nothing written");
}

std::string file_head(const std::string& what, const ExportOptions& options) {
  const Pitch& pitch = options.pitch ? *options.pitch : Pitch::standard();
  std::string head =
      "// Paper Soccer bot for " + pitch.name() + " " + variant_name(options.variant) + ", " + what;
  if (!options.model_name.empty()) head += ", from " + options.model_name;
  head +=
      ".\n// Generated by `papersoccer export --single-file` (one C++17 file, standard library only;\n"
      "// build: g++ -O2 -std=c++17). Do not edit: export again.\n";
  // The inner loops at -O3 whatever the arena compiles with: with plain -O2 the alpha-beta file
  // searched 1.6x fewer nodes per second, the PUCT file made 1.11x fewer evaluations per second
  // (docs/experiments/single-file-bots.md and "The PUCT single file at -O3").
  head += "#pragma GCC optimize(\"O3\")\n";
  return head;
}

std::string rules_constants(const ExportOptions& options) {
  const Pitch& pitch = options.pitch ? *options.pitch : Pitch::standard();
  auto num = [](int v) { return std::to_string(v); };
  return "namespace psx {\nconstexpr int kPitchW=" + num(pitch.width()) + ",kPitchL=" + num(pitch.length()) +
         ",kPitchG=" + num(pitch.goal()) + ",kVariant=" + num(int(options.variant)) + ";\n";
}

void check_bits(const ExportOptions& options) {
  if (options.bits != 0 && options.bits != 8 && options.bits != 4 && options.bits != 32)
    throw std::invalid_argument("single file: --bits must be 8, 4, 32 or auto");
}

}  // namespace

ExportResult assemble(const NetWeights& net, const ExportOptions& options) {
  check_bits(options);
  check_layer_shapes(net);
  const nn::NetConfig& c = net.config;
  auto num = [](int v) { return std::to_string(v); };
  const std::string consts = rules_constants(options) + "constexpr int kC=" + num(c.channels) +
                             ",kBlocks=" + num(c.blocks) + ",kGpEvery=" + num(c.global_pool_every) +
                             ",kGpC=" + num(c.global_pool_every > 0 ? c.global_pool_channels : 0) +
                             ",kP=" + num(c.policy_channels) + ",kV=" + num(c.value_channels) +
                             ",kVH=" + num(c.value_hidden) + ";\n";
  return assemble_file(BotKind::kPuct, embedded_sources(), file_head("net " + c.summary(), options), consts,
                       net.layers, options, "net " + c.summary());
}

ExportResult assemble_alphabeta(const ValueNet& net, const ExportOptions& options) {
  check_bits(options);
  net.validate();
  const Pitch& pitch = options.pitch ? *options.pitch : Pitch::standard();
  if (net.pitch().name() != pitch.name() || net.variant != options.variant)
    throw std::invalid_argument("single file: the value net is for " + net.pitch().name() + " " +
                                variant_name(net.variant) + ", not " + pitch.name() + " " +
                                variant_name(options.variant));
  std::string shape;  // the layers' input counts, then the output: "585,16,16,1"
  for (const DenseLayer& d : net.layers) shape += std::to_string(d.in) + ",";
  shape += "1";
  std::string what = "value net " + shape;  // for messages: "value net 585-16-16-1"
  std::replace(what.begin(), what.end(), ',', '-');
  char scale[48];
  std::snprintf(scale, sizeof scale, "float(%.9g)", double(net.value_scale));
  const std::string consts =
      rules_constants(options) + "constexpr int kLayers=" + std::to_string(net.layers.size()) +
      ",kShape[]={" + shape + "};\nconstexpr float kValueScale=" + scale +
      ";\nconstexpr int kWindow=" + std::to_string(net.window) +
      ";\nconstexpr bool kWindowPoints=" + (net.window_points ? "true" : "false") + ";\n";
  return assemble_file(BotKind::kAlphaBeta, embedded_alphabeta_sources(), file_head(what, options), consts,
                       value_net_layers(net), options, what);
}

}  // namespace ps::single_file
