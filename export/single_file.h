// One self-contained C++17 source for bot arenas (CodinGame: one file, standard library only,
// at most 100,000 characters): `papersoccer export --single-file OUT.cpp MODEL` (the model's
// PUCT search) or `... NET.vnet` (alpha-beta with the small value net; BotKind).
//
// How the file is made (one place, no second copy of the rules or the search):
//   1. At build time export/embed_sources.cmake stores the project's own std-only sources that
//      the bot needs (core/text.h, engine pitch/position/turns, nn evaluator/encoder, search
//      params and mcts (mcts.h, mcts_node.h, mcts_impl.h, mcts*.cpp); for the alpha-beta bot search player/leaf_eval/value_net/value_net_eval/
//      alphabeta instead of the net's) and the template export/bot_template.cpp as string
//      literals (embedded_sources(), embedded_alphabeta_sources()), in dependency order.
//   2. assemble() strips each of them (strip_source: comments, `#include "..."` lines,
//      `#pragma once`, blocks between `// single-file: omit begin` and `// single-file: omit
//      end` markers and the other kind's `// single-file: only KIND` blocks, indentation and
//      blank lines), hoists the `#include <...>` lines, and
//      concatenates them, with a block of constants (pitch, variant, net shape) and the
//      quantised weights (encode_weights) in front of the template.
// The template holds only what the project has no std-only version of: plain C++ inference of
// the net (nn/net.h's architecture with batch norms folded), the CodinGame protocol loop with
// the time management of `bot` (tournament/protocol.h) and a raw-evaluation mode for tests.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/pitch.h"
#include "nn/encoder.h"
#include "nn/net_config.h"
#include "valuenet/value_net.h"

namespace ps::single_file {

/// What the single file plays: the model's PUCT search (`export --single-file OUT.cpp MODEL`),
/// or alpha-beta with the small value net, the `alphabeta` player with `eval: nnue` (`export
/// --single-file OUT.cpp NET.vnet`). A source's blocks between `// single-file: only KIND
/// begin` and `// single-file: only KIND end` are kept for that kind only.
enum class BotKind { kPuct, kAlphaBeta };

/// One embedded project source: its path in the repository and its text.
struct EmbeddedSource {
  const char* path;
  const char* text;
};
/// The sources of the single file, dependencies first, the template last (generated at build
/// time by embed_sources.cmake): of the PUCT bot, and of the alpha-beta bot.
const std::vector<EmbeddedSource>& embedded_sources();
const std::vector<EmbeddedSource>& embedded_alphabeta_sources();

/// A source without comments, omitted blocks, project includes, `#pragma once`, indentation
/// and blank lines. String and character literals (and digit separators) are kept as they are.
/// `#include <...>` lines are moved to *system_includes (when given; in order, no duplicates)
/// instead of the result. Throws std::invalid_argument on an unterminated comment, literal or
/// omit block (naming `name`), and on a `single-file: only` marker that names no kind or has
/// no end. Blocks of other kinds than `kind` are removed like omitted ones.
std::string strip_source(const std::string& text, const std::string& name,
                         std::vector<std::string>* system_includes = nullptr, BotKind kind = BotKind::kPuct);

/// One layer of the net as the single file computes it: `out` rows of `fan_in` weights (conv
/// weights in [out][in][ky][kx] order) and one bias per row (batch norms folded in).
struct Layer {
  std::string name;
  int out = 0, fan_in = 0;
  std::vector<float> weights;  ///< out * fan_in
  std::vector<float> bias;     ///< out
};
/// The whole net in the order the template reads it: input conv; per block conv1 (C + pooled
/// rows), pool_fc (global-pooling blocks only), conv2; policy conv, policy out; value conv,
/// value fc, value out (the value row only: the moves-left output is not used).
struct NetWeights {
  nn::NetConfig config;
  std::vector<Layer> layers;
};
/// Throws std::invalid_argument when the layers do not have the shapes config implies.
void check_layer_shapes(const NetWeights& net);

/// The weights as printable text: per layer, per row a float32 scale, then the float32 biases,
/// then the weights quantised to `bits` (8: int8, 4: two per byte, in [-7, 7]) with a symmetric
/// scale per row (output channel), the whole byte stream in base64 (no quote, no backslash).
/// bits 32 stores the float32 weights unquantised (scale 1): for tests that separate the
/// quantisation error from the rest.
std::string encode_weights(const NetWeights& net, int bits);
/// encode_weights for any layers (no shape check): the value net's dense layers use it too.
std::string encode_layers(const std::vector<Layer>& layers, int bits);
/// The weights as the single file sees them after decoding (for the quantisation report).
NetWeights dequantized(const NetWeights& net, int bits);
/// A value net's dense layers (in order) as Layers: out rows of `in` weights, biases.
std::vector<Layer> value_net_layers(const ValueNet& net);
/// The value net the alpha-beta single file computes with: weights quantised to `bits` per row
/// and decoded (bits 32: unchanged), finalized. Its evaluations are the file's, bit for bit.
ValueNet dequantized(const ValueNet& net, int bits);

/// The file would exceed ExportOptions::max_chars; what() says which part and by how much.
class SizeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ExportOptions {
  const Pitch* pitch = nullptr;      ///< nullptr = 8x10
  Variant variant = Variant::kStandard;
  int bits = 0;                      ///< 8, 4, 32 (float, tests), or 0 = 8 when it fits, else 4
  int64_t max_chars = 100000;        ///< the arena's limit on the source size
  std::string model_name;            ///< shown in the file's first comment
};

struct ExportResult {
  std::string source;
  int bits = 8;
  size_t code_chars = 0;    ///< everything but the weight text
  size_t weight_chars = 0;  ///< the weight string literal(s)
};

/// The single file for net. Throws SizeError when it does not fit in options.max_chars
/// (naming the net, the chars its weights need at the smallest allowed width, and the limit
/// left after the code), std::invalid_argument for bad options.
ExportResult assemble(const NetWeights& net, const ExportOptions& options);
/// The alpha-beta single file for a value net (BotKind::kAlphaBeta): search/alphabeta.h's
/// AlphaBetaPlayer with default options and `net` at its leaves (valuenet/value_net_eval.h), the
/// ladder's alphabeta-nnue; the protocol and time management of the PUCT file. Throws as assemble, and std::invalid_argument when the net is invalid or for other
/// rules than the options'.
ExportResult assemble_alphabeta(const ValueNet& net, const ExportOptions& options);

}  // namespace ps::single_file
