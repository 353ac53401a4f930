// `papersoccer export --single-file OUT.cpp MODEL|NET.vnet`: one self-contained C++17 source for
// bot arenas, the model's PUCT or alpha-beta with the value net (export/single_file.h says how
// it is made).
#include <cstdio>
#include <fstream>

#include "apps/commands.h"
#include "core/file_kind.h"
#include "core/fileutil.h"
#include "export/net_weights.h"
#include "export/single_file.h"
#include "nn/checkpoint.h"
#include "valuenet/value_net_file.h"

namespace ps::cmd {

bool is_value_net_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string magic(4, '\0');
  return in.read(magic.data(), 4) && begins_with_magic(magic, FileKind::ValueNet);
}

namespace {

// The rules named by --pitch / --variant; a bad one names its flag.
const Pitch& export_pitch(const std::string& text) {
  try {
    const PitchChoice pc = parse_pitch_spec(text);
    return Pitch::get(pc.width, pc.length, pc.goal);
  } catch (const std::exception& e) {
    throw std::invalid_argument("export --pitch " + text + ": " + e.what());
  }
}

Variant export_variant(const std::string& text) {
  try {
    return parse_variant(text);
  } catch (const std::exception& e) {
    throw std::invalid_argument("export --variant " + text + ": " + e.what());
  }
}

// "export --pitch 8x12 --variant no-bounce": the command with the flags that chose the rules.
std::string export_with_rules_flags(const std::string& pitch_text, const std::string& variant_text) {
  std::string s = "export";
  if (!pitch_text.empty()) s += " --pitch " + pitch_text;
  if (!variant_text.empty()) s += " --variant " + variant_text;
  return s;
}

std::string file_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

single_file::ExportOptions export_options(const Pitch& pitch, Variant variant, int bits, int64_t max_chars,
                                          const std::string& input) {
  single_file::ExportOptions o;
  o.pitch = &pitch;
  o.variant = variant;
  o.bits = bits;
  o.max_chars = max_chars;
  o.model_name = file_name(input);
  return o;
}

// Writes the file and says what it holds: "wrote OUT: N chars (...), WHAT, PITCH VARIANT".
void write_source(const std::string& out, const single_file::ExportResult& r,
                  const single_file::ExportOptions& o, const std::string& what) {
  try {
    write_file_atomic(out, r.source);
  } catch (const std::exception& e) {
    throw std::runtime_error("export: cannot write the source file " + out + ": " + e.what());
  }
  std::printf(
      "wrote %s: %zu chars (code %zu, weights %zu at %d bits; limit %lld), %s, %s %s\n"
      "build: g++ -O2 -std=c++17 -o bot %s\n",
      out.c_str(), r.source.size(), r.code_chars, r.weight_chars, r.bits, (long long)o.max_chars,
      what.c_str(), o.pitch->name().c_str(), variant_name(o.variant), out.c_str());
}

// The alpha-beta bot: the value net's own rules (--pitch / --variant must agree with them).
void export_alphabeta(const std::string& vnet, const std::string& out, const std::string& pitch_text,
                      const std::string& variant_text, int bits, int64_t max_chars) {
  const ValueNet net = load_value_net(vnet, "export --single-file");
  const Pitch& pitch = pitch_text.empty() ? net.pitch() : export_pitch(pitch_text);
  const Variant variant = variant_text.empty() ? net.variant : export_variant(variant_text);
  if (pitch.name() != net.pitch().name() || variant != net.variant)
    throw std::invalid_argument(export_with_rules_flags(pitch_text, variant_text) + ": value net " + vnet +
                                " is trained for " + net.pitch().name() + " " + variant_name(net.variant) +
                                ", not " + pitch.name() + " " + variant_name(variant));
  const single_file::ExportOptions o = export_options(pitch, variant, bits, max_chars, vnet);
  write_source(out, single_file::assemble_alphabeta(net, o), o, "alpha-beta with value net " + o.model_name);
}

}  // namespace

void export_single_file(const std::string& model, const std::string& out, const std::string& pitch_text,
                        const std::string& variant_text, int bits, int64_t max_chars) {
  // A file named *.vnet without a checkpoint's magic (missing, empty, garbage) is read as a value
  // net, so that the value-net reader says what is wrong with it, not the checkpoint reader.
  const bool vnet_name = model.size() > 5 && model.compare(model.size() - 5, 5, ".vnet") == 0;
  auto checkpoint_magic = [&] {  // read only for such a name (the file is read again after)
    char magic[7] = {};
    std::ifstream(model, std::ios::binary).read(magic, 7);
    return std::string(magic, 7) == "PSNETCK";
  };
  if (is_value_net_file(model) || (vnet_name && !checkpoint_magic()))
    return export_alphabeta(model, out, pitch_text, variant_text, bits, max_chars);
  nn::LoadedCheckpoint ck = nn::load_checkpoint(model, "cpu");
  const nn::CheckpointMeta& meta = ck.meta;
  // As `bot` chooses: the option, else the model's first pitch and variant, else 8x10 standard.
  const std::string p = rules_choice(pitch_text, meta.pitches, "8x10");
  const std::string v = rules_choice(variant_text, meta.variants, "standard");
  const Pitch& pitch = export_pitch(p);  // the model's own names parse
  const Variant variant = export_variant(v);
  if (!meta.supports(pitch, variant))
    throw std::invalid_argument(export_with_rules_flags(pitch_text, variant_text) + ": " + model +
                                " is not trained for " + pitch.name() + " " + variant_name(variant));
  const single_file::ExportOptions o = export_options(pitch, variant, bits, max_chars, model);
  write_source(out, single_file::assemble(single_file::net_weights(ck.net), o), o,
               "net " + meta.net.summary());
}

}  // namespace ps::cmd
