#include "serve/model_info.h"

#include "nn/checkpoint.h"

namespace ps::serve {

namespace {

std::string list_or_any(const std::vector<std::string>& v) {
  if (v.empty()) return "any";
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

}  // namespace

std::string ModelInfo::rules_text() const {
  return "pitches " + list_or_any(pitches) + " and variants " + list_or_any(variants);
}

ModelInfo read_model_info(const std::string& path) {
  const nn::CheckpointMeta meta = nn::read_checkpoint_meta(path);
  ModelInfo info;
  info.path = path;
  info.summary = meta.net.summary() + ", step " + std::to_string(meta.training_step);
  info.pitches = meta.pitches;
  info.variants = meta.variants;
  info.supports = [meta](const Pitch& pitch, Variant variant) { return meta.supports(pitch, variant); };
  return info;
}

}  // namespace ps::serve
