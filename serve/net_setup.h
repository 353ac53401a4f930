// How the server runs its network, in one place: the analysis and every mcts bot share one
// inference service (the registry's shared_net_evaluator keys services by these options).
#pragma once

#include <yaml-cpp/yaml.h>

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

/// The options of a registry "mcts" player on the server's model (loop/players.h).
inline YAML::Node mcts_player_options(const ServeOptions& o) {
  const nn::ServiceOptions so = service_options(o);
  YAML::Node n;
  n["checkpoint"] = o.model;
  n["device"] = so.device;
  n["max_batch"] = so.max_batch;
  n["batch_timeout_us"] = so.batch_timeout_us;
  return n;
}

}  // namespace ps::serve
