// How the server runs its network, in one place: the analysis and every mcts bot share one
// inference service (loop/players.h's shared_net_evaluator keys services by these options).
#pragma once

#include "nn/service.h"
#include "serve/options.h"

namespace ps::serve {

/// Small batches with a short wait: a few searches at a time, each answering quickly.
inline nn::ServiceOptions service_options(const ServeOptions& o) {
  nn::ServiceOptions so;
  so.device = o.device;
  so.max_batch = 8;
  so.batch_timeout_us = 200;
  return so;
}

}  // namespace ps::serve
