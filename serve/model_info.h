// What the server knows about its model file without loading LibTorch types into every file:
// which pitches and variants the network was trained for.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/pitch.h"

namespace ps::serve {

struct ModelInfo {
  std::string path;     ///< "" when the server has no model
  std::string summary;  ///< net shape and training step
  std::vector<std::string> pitches, variants;  ///< empty: any

  /// Can the network play (pitch, variant)? (The checkpoint's own check.)
  std::function<bool(const Pitch&, Variant)> supports = [](const Pitch&, Variant) { return false; };

  bool present() const { return !path.empty(); }
  /// "pitches 8x10 and variants standard" (or "any").
  std::string rules_text() const;
};

/// Reads the metadata of a model file or checkpoint; throws nn::CheckpointError naming the file.
ModelInfo read_model_info(const std::string& path);

}  // namespace ps::serve
