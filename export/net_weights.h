// The layers of a checkpoint as the single-file bot computes them (LibTorch side of
// `export --single-file`): every batch norm folded into the convolution before it.
#pragma once

#include <string>

#include "export/single_file.h"
#include "nn/checkpoint.h"

namespace ps::single_file {

/// net's parameters and batch-norm statistics as plain layers (see NetWeights): a conv followed
/// by a batch norm becomes w' = w * gamma / sqrt(var + eps), b' = beta - mean * gamma /
/// sqrt(var + eps). Throws std::invalid_argument when a tensor is missing or misshapen.
NetWeights net_weights(nn::PolicyValueNet& net);

}  // namespace ps::single_file
