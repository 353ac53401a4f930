#include <catch2/catch.hpp>

#include <cmath>

#include "export/single_file.h"

using namespace ps;
using namespace ps::single_file;

namespace {

// A net of the tiny preset's shapes with weights w(layer, i) = sin(i * (layer + 1)) / 3.
NetWeights tiny_weights() {
  NetWeights n;
  n.config = nn::NetConfig::tiny();
  const nn::NetConfig& c = n.config;
  std::vector<std::pair<int, int>> shapes = {{c.channels, nn::kNumPlanes * 9}};
  for (int b = 0; b < c.blocks; ++b) {
    const int g = c.is_global_pool_block(b) ? c.global_pool_channels : 0;
    shapes.push_back({c.channels + g, c.channels * 9});
    if (g) shapes.push_back({c.channels, 3 * g});
    shapes.push_back({c.channels, c.channels * 9});
  }
  shapes.insert(shapes.end(), {{c.policy_channels, c.channels}, {8, c.policy_channels},
                               {c.value_channels, c.channels}, {c.value_hidden, 3 * c.value_channels},
                               {1, c.value_hidden}});
  for (size_t l = 0; l < shapes.size(); ++l) {
    Layer layer;
    layer.name = "l" + std::to_string(l);
    layer.out = shapes[l].first;
    layer.fan_in = shapes[l].second;
    for (int i = 0; i < layer.out * layer.fan_in; ++i)
      layer.weights.push_back(float(std::sin(double(i) * double(l + 1)) / 3.0));
    layer.bias.assign(size_t(layer.out), 0.5f);
    n.layers.push_back(layer);
  }
  return n;
}

}  // namespace

TEST_CASE("strip_source keeps literals and digit separators and drops comments", "[export]") {
  const std::string src =
      "#pragma once\n#include <vector>\n#include \"engine/pitch.h\"\n"
      "// a comment\nint  a = 0x5EED'0F'BA11; /* block */ const char* s = \"// not a comment\";\n"
      "// single-file: omit begin\nint dropped;\n// single-file: omit end\n"
      "char c = '\"';  int b = a - -1;\n  return x;\n";
  std::vector<std::string> includes;
  const std::string out = strip_source(src, "t.cpp", &includes);
  CHECK(includes == std::vector<std::string>{"#include <vector>"});
  CHECK(out.find("0x5EED'0F'BA11") != std::string::npos);
  CHECK(out.find("\"// not a comment\"") != std::string::npos);
  CHECK(out.find("comment\n") == std::string::npos);
  CHECK(out.find("block") == std::string::npos);
  CHECK(out.find("dropped") == std::string::npos);
  CHECK(out.find("engine/pitch.h") == std::string::npos);
  CHECK(out.find("a- -1") != std::string::npos);  // not a--1
  CHECK(out.find("'\"'") != std::string::npos);
  CHECK(out.find("int a=") != std::string::npos);
  CHECK_THROWS_AS(strip_source("int a; /* open", "t.cpp"), std::invalid_argument);
  CHECK_THROWS_AS(strip_source("// single-file: omit begin\nint a;", "t.cpp"), std::invalid_argument);
}

TEST_CASE("quantised weights are within half a step of the originals", "[export]") {
  const NetWeights n = tiny_weights();
  for (int bits : {8, 4}) {
    const NetWeights q = dequantized(n, bits);
    for (size_t l = 0; l < n.layers.size(); ++l) {
      const Layer& a = n.layers[l];
      for (int r = 0; r < a.out; ++r) {
        float m = 0;
        for (int k = 0; k < a.fan_in; ++k) m = std::max(m, std::fabs(a.weights[size_t(r * a.fan_in + k)]));
        const float step = m / (bits == 8 ? 127.0f : 7.0f);
        for (int k = 0; k < a.fan_in; ++k) {
          const size_t i = size_t(r * a.fan_in + k);
          REQUIRE(std::fabs(a.weights[i] - q.layers[l].weights[i]) <= step * 0.5f + 1e-6f);
        }
      }
    }
    const std::string text = encode_weights(n, bits);
    CHECK(text.find('"') == std::string::npos);
    CHECK(text.find('\\') == std::string::npos);
  }
  CHECK(encode_weights(n, 4).size() < encode_weights(n, 8).size() * 2 / 3);
}

TEST_CASE("assemble fits the limit or names the part that is too large", "[export]") {
  const NetWeights n = tiny_weights();
  ExportOptions o;
  const ExportResult r = assemble(n, o);
  CHECK(r.bits == 8);
  CHECK(r.source.size() <= 100000);
  CHECK(r.source.size() == r.code_chars + r.weight_chars);
  CHECK(r.source.find("#include \"") == std::string::npos);
  CHECK(r.source.find("int main(") != std::string::npos);
  CHECK(r.source.find("#pragma GCC optimize(\"O3\")\n") != std::string::npos);  // both kinds
  // Regression: std::getline held an input line of any length and std::atoll took '--visits 1x'
  // as 1; the file reads lines through read_line (1 MiB at most) and flags through flag_value
  // (single_file_bot.sh runs those inputs).
  CHECK(r.source.find("std::getline") == std::string::npos);
  CHECK(r.source.find("atoll") == std::string::npos);
  CHECK(r.source.find("bool read_line(") != std::string::npos);
  CHECK(r.source.find("long long flag_value(") != std::string::npos);

  // Auto falls back to 4 bits when 8 do not fit.
  o.max_chars = int64_t(r.code_chars + r.weight_chars - 100);
  CHECK(assemble(n, o).bits == 4);

  o.max_chars = int64_t(r.code_chars + 100);
  try {
    assemble(n, o);
    FAIL("no SizeError");
  } catch (const SizeError& e) {
    const std::string what = e.what();
    CHECK(what.find("weights of net " + n.config.summary() + " need") != std::string::npos);
    CHECK(what.find("at 4 bits") != std::string::npos);
    CHECK(what.find("nothing written") != std::string::npos);
  }
  o.max_chars = 1000;
  CHECK_THROWS_AS(assemble(n, o), SizeError);
  o.bits = 5;
  CHECK_THROWS_AS(assemble(n, o), std::invalid_argument);
}

TEST_CASE("strip_source keeps a bot kind's blocks for that kind only", "[export]") {
  const std::string src =
      "int shared;\n// single-file: only puct begin (why)\nint puct_only;\n// single-file: only puct end\n"
      "// single-file: only alphabeta begin\nint ab_only;\n// single-file: only alphabeta end\nint tail;\n";
  const std::string puct = strip_source(src, "t.cpp", nullptr, BotKind::kPuct);
  const std::string ab = strip_source(src, "t.cpp", nullptr, BotKind::kAlphaBeta);
  CHECK(puct == "int shared;int puct_only;int tail;\n");
  CHECK(ab == "int shared;int ab_only;int tail;\n");
  CHECK(strip_source(src, "t.cpp") == puct);  // the default kind: the model's PUCT bot
  CHECK_THROWS_WITH(strip_source("// single-file: only mcts begin\nint a;\n", "t.cpp"),
                    Catch::Contains("t.cpp: 'single-file: only' names no bot kind"));
  CHECK_THROWS_WITH(strip_source("// single-file: only alphabeta begin\nint a;\n", "t.cpp"),
                    Catch::Contains("without its end marker"));
}

TEST_CASE("the alpha-beta file of a value net fits, holds the search, and decodes to the quantised net",
          "[export]") {
  const ValueNet net = random_value_net(Pitch::standard(), Variant::kStandard, {16, 16}, 7);
  ExportOptions o;
  const ExportResult r = assemble_alphabeta(net, o);
  CHECK(r.bits == 8);
  CHECK(r.source.size() <= 100000);
  CHECK(r.source.find("class AlphaBetaPlayer") != std::string::npos);
  CHECK(r.source.find("#pragma GCC optimize(\"O3\")\n") != std::string::npos);
  CHECK(r.source.find("class ValueNetEvaluator") != std::string::npos);
  CHECK(r.source.find("kLayers=3,kShape[]={" + std::to_string(net.layers[0].in) + ",16,16,1}") !=
        std::string::npos);
  // None of the PUCT bot: no net inference, no MCTS, no Game.
  CHECK(r.source.find("class Net final") == std::string::npos);
  CHECK(r.source.find("class Search") == std::string::npos);
  CHECK(r.source.find("const Game&") == std::string::npos);
  CHECK(r.source.find("#include \"") == std::string::npos);
  // The same bounded input and strict flags as the PUCT file (single_file_alphabeta.sh).
  CHECK(r.source.find("std::getline") == std::string::npos);
  CHECK(r.source.find("atoll") == std::string::npos);
  CHECK(r.source.find("bool read_line(") != std::string::npos);
  CHECK(r.source.find("long long flag_value(") != std::string::npos);
  // Other rules than the net's are refused.
  o.variant = Variant::kSingleBounce;
  CHECK_THROWS_WITH(assemble_alphabeta(net, o), Catch::Contains("the value net is for 8x10 standard"));
  // What the file computes with: every weight within half a quantisation step; bits 32 exact.
  const ValueNet q = dequantized(net, 8);
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const DenseLayer& a = net.layers[i];
    for (int row = 0; row < a.out; ++row) {
      float m = 0;
      for (int k = 0; k < a.in; ++k) m = std::max(m, std::fabs(a.weight[size_t(row) * a.in + k]));
      for (int k = 0; k < a.in; ++k) {
        const size_t at = size_t(row) * a.in + k;
        CHECK(std::fabs(q.layers[i].weight[at] - a.weight[at]) <= m / 127 / 2 + 1e-7f);
      }
    }
  }
  CHECK(dequantized(net, 32).layers[0].weight == net.layers[0].weight);
  const Position start(Pitch::standard(), Variant::kStandard);
  CHECK(std::fabs(q.evaluate(start) - net.evaluate(start)) < 0.05f);
}

// A net with the ball window's points (train-value --window-points) exports with them: the file
// sets kWindowPoints, so its net has the window's 6 inputs per cell (no test had
// exported one).
TEST_CASE("the alpha-beta file of a value net with window points carries them", "[export]") {
  const ValueNet net = random_value_net(Pitch::standard(), Variant::kStandard, {16, 16}, 7, 2, true);
  const ExportResult r = assemble_alphabeta(net, ExportOptions{});
  CHECK(r.source.size() <= 100000);
  CHECK(r.source.find("constexpr bool kWindowPoints=true;") != std::string::npos);
  CHECK(r.source.find("constexpr int kWindow=2;") != std::string::npos);
  CHECK(r.source.find("kShape[]={735,16,16,1}") != std::string::npos);
  const ValueNet plain = random_value_net(Pitch::standard(), Variant::kStandard, {16, 16}, 7, 2);
  CHECK(assemble_alphabeta(plain, ExportOptions{}).source.find("constexpr bool kWindowPoints=false;") !=
        std::string::npos);
}
