// `papersoccer export --single-file OUT.cpp MODEL`: one self-contained C++17 source for bot
// arenas (export/single_file.h says how it is made).
#include <cstdio>

#include "apps/commands.h"
#include "core/fileutil.h"
#include "export/net_weights.h"
#include "export/single_file.h"
#include "nn/checkpoint.h"

namespace ps::cmd {

void export_single_file(const std::string& model, const std::string& out, const std::string& pitch_text,
                        const std::string& variant_text, int bits, int64_t max_chars) {
  nn::LoadedCheckpoint ck = nn::load_checkpoint(model, "cpu");
  const nn::CheckpointMeta& meta = ck.meta;
  // As `bot` chooses: the option, else the model's first pitch and variant, else 8x10 standard.
  const std::string p = rules_choice(pitch_text, meta.pitches, "8x10");
  const std::string v = rules_choice(variant_text, meta.variants, "standard");
  const PitchChoice pc = parse_pitch_spec(p);
  const Pitch& pitch = Pitch::get(pc.width, pc.length, pc.goal);
  const Variant variant = parse_variant(v);
  if (!meta.supports(pitch, variant))
    throw std::invalid_argument("export: " + model + " is not trained for " + pitch.name() + " " +
                                variant_name(variant));
  single_file::ExportOptions o;
  o.pitch = &pitch;
  o.variant = variant;
  o.bits = bits;
  o.max_chars = max_chars;
  const size_t slash = model.find_last_of('/');
  o.model_name = slash == std::string::npos ? model : model.substr(slash + 1);
  const single_file::ExportResult r = single_file::assemble(single_file::net_weights(ck.net), o);
  try {
    write_file_atomic(out, r.source);
  } catch (const std::exception& e) {
    throw std::runtime_error("export: cannot write the source file " + out + ": " + e.what());
  }
  std::printf("wrote %s: %zu chars (code %zu, weights %zu at %d bits; limit %lld), net %s, %s %s\n"
              "build: g++ -O2 -std=c++17 -o bot %s\n",
              out.c_str(), r.source.size(), r.code_chars, r.weight_chars, r.bits, (long long)max_chars,
              meta.net.summary().c_str(), pitch.name().c_str(), variant_name(variant), out.c_str());
}

}  // namespace ps::cmd
