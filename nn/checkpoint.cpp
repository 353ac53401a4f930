#include "nn/checkpoint.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "core/byte_io.h"
#include "core/checksum.h"
#include "core/fileutil.h"
#include "nn/archive_check.h"

namespace ps::nn {

namespace {

constexpr const char* kFormat = "papersoccer-net";
constexpr int kFormatVersion = 1;

std::string read_checkpoint_file(const std::string& path) {
  try {
    return read_file(path);
  } catch (const std::exception& e) {
    throw CheckpointError("checkpoint " + path + ": cannot read: " + e.what());
  }
}

/// Verifies a file's bytes; returns the payload (the torch archive bytes).
std::string verify_payload(const std::string& path, const std::string& data) {
  const std::string problem = checkpoint_envelope_problem(data);
  if (!problem.empty()) throw CheckpointError("checkpoint " + path + ": " + problem);
  return data.substr(kCheckpointHeaderSize);
}

void open_archive(const std::string& path, const std::string& payload,
                  torch::serialize::InputArchive& ar, CheckpointMeta* meta,
                  torch::Device map_to = torch::Device(torch::kCPU)) {
  // LibTorch's reader can crash on a hostile archive: ours is checked first (archive_check.h).
  try {
    check_torch_archive(payload);
  } catch (const ArchiveError& e) {
    throw CheckpointError("checkpoint " + path + ": corrupted or foreign archive: " + e.what());
  }
  try {
    ar.load_from(payload.data(), payload.size(), map_to);
  } catch (const std::exception& e) {
    throw CheckpointError("checkpoint " + path + ": unreadable archive: " + e.what());
  }
  c10::IValue v;
  if (!ar.try_read("meta", v) || !v.isString())
    throw CheckpointError("checkpoint " + path + ": no metadata in the archive");
  *meta = CheckpointMeta::from_json(v.toStringRef(), "checkpoint " + path);
}

nlohmann::json net_to_json(const NetConfig& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, field] : NetConfig::kIntFields) j[key] = c.*field;
  j["moves_left_head"] = c.moves_left_head;
  return j;
}

NetConfig net_from_json(const nlohmann::json& j) {
  NetConfig c;
  for (const auto& [key, field] : NetConfig::kIntFields) c.*field = j.at(key).get<int>();
  c.moves_left_head = j.at("moves_left_head").get<bool>();
  return c;
}

std::string read_payload(const std::string& path) {
  return verify_payload(path, read_checkpoint_file(path));
}

}  // namespace

std::string checkpoint_file_bytes(const std::string& body) {
  ByteWriter w;
  w.raw(kCheckpointMagic, 8);
  w.put<uint64_t>(body.size());
  w.put<uint64_t>(fnv1a64_bytes(body.data(), body.size()));
  w.raw(body.data(), body.size());
  return std::move(w.str());
}

bool CheckpointMeta::supports(const Pitch& pitch, Variant variant) const {
  if (!pitches.empty() && std::find(pitches.begin(), pitches.end(), pitch.name()) == pitches.end())
    return false;
  if (!variants.empty() &&
      std::find(variants.begin(), variants.end(), variant_name(variant)) == variants.end())
    return false;
  return true;
}

std::string CheckpointMeta::to_json() const {
  nlohmann::json j = {{"format", kFormat},
                      {"format_version", kFormatVersion},
                      {"input_format_version", input_format_version},
                      {"num_planes", kNumPlanes},
                      {"net", net_to_json(net)},
                      {"pitches", pitches},
                      {"variants", variants},
                      {"training_step", training_step},
                      {"note", note}};
  if (std::isfinite(rating_elo)) j["rating"] = {{"elo", rating_elo}, {"ci95", rating_ci95}};
  if (train_call_start >= 0) j["train_call_start"] = train_call_start;
  return j.dump();
}

CheckpointMeta CheckpointMeta::from_json(const std::string& text, const std::string& where) {
  CheckpointMeta m;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (j.at("format").get<std::string>() != kFormat)
      throw CheckpointError(where + ": metadata format is '" + j.at("format").get<std::string>() +
                            "', expected '" + kFormat + "'");
    const int fv = j.at("format_version").get<int>();
    if (fv != kFormatVersion)
      throw CheckpointError(where + ": checkpoint format version " + std::to_string(fv) +
                            ", this build reads version " + std::to_string(kFormatVersion));
    m.input_format_version = j.at("input_format_version").get<int>();
    if (m.input_format_version != kInputFormatVersion)
      throw CheckpointError(where + ": input format version " +
                            std::to_string(m.input_format_version) +
                            " does not match this build's version " +
                            std::to_string(kInputFormatVersion) + " (the planes differ)");
    const int planes = j.at("num_planes").get<int>();
    if (planes != kNumPlanes)
      throw CheckpointError(where + ": " + std::to_string(planes) + " input planes, this build has " +
                            std::to_string(kNumPlanes));
    m.net = net_from_json(j.at("net"));
    m.pitches = j.at("pitches").get<std::vector<std::string>>();
    m.variants = j.at("variants").get<std::vector<std::string>>();
    m.training_step = j.at("training_step").get<int64_t>();
    m.note = j.value("note", std::string());
    m.train_call_start = j.value("train_call_start", int64_t(-1));
    if (j.contains("rating")) {
      m.rating_elo = j.at("rating").at("elo").get<double>();
      m.rating_ci95 = j.at("rating").value("ci95", 0.0);
    }
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::exception& e) {
    throw CheckpointError(where + ": malformed metadata: " + e.what());
  }
  try {
    m.net.validate();
    for (const auto& v : m.variants) parse_variant(v);
    // A pitch the rules do not allow (9x10: odd width; 0x00; 1000000x1000000) was exported.
    for (const auto& p : m.pitches) (void)parse_pitch_spec(p);
  } catch (const std::exception& e) {
    throw CheckpointError(where + ": bad metadata: " + e.what());
  }
  return m;
}

void save_checkpoint(const std::string& path, PolicyValueNet& net, const CheckpointMeta& meta,
                     const torch::optim::Optimizer* optimizer) {
  if (meta.net != net->config())
    throw std::invalid_argument("save_checkpoint: meta.net (" + meta.net.summary() +
                                ") differs from the net's config (" + net->config().summary() + ")");
  std::ostringstream payload;
  try {
    torch::serialize::OutputArchive root, model;
    root.write("meta", c10::IValue(meta.to_json()));
    // Parameters are stored on the CPU so any machine can load the file. A net on another
    // device is copied into a CPU twin rather than moved: moving the live net would swap the
    // storage under a training run's optimizer and autograd state.
    if (net->parameters().front().device().is_cpu()) {
      net->save(model);
    } else {
      PolicyValueNet twin(net->config());
      torch::NoGradGuard no_grad;
      auto src_p = net->named_parameters(), dst_p = twin->named_parameters();
      for (const auto& item : src_p) dst_p[item.key()].copy_(item.value());
      auto src_b = net->named_buffers(), dst_b = twin->named_buffers();
      for (const auto& item : src_b) dst_b[item.key()].copy_(item.value());
      twin->save(model);
    }
    root.write("model", model);
    if (optimizer) {
      torch::serialize::OutputArchive opt;
      optimizer->save(opt);
      root.write("optimizer", opt);
    }
    root.save_to(payload);
  } catch (const std::exception& e) {
    throw CheckpointError("checkpoint " + path + ": cannot serialise: " + e.what());
  }
  const std::string data = checkpoint_file_bytes(payload.str());
  try {
    write_file_atomic(path, data);
  } catch (const std::exception& e) {
    throw CheckpointError("checkpoint " + path + ": cannot write: " + e.what());
  }
}

CheckpointMeta read_checkpoint_meta(const std::string& path) {
  const std::string payload = read_payload(path);
  torch::serialize::InputArchive ar;
  CheckpointMeta meta;
  open_archive(path, payload, ar, &meta);
  return meta;
}

LoadedCheckpoint load_checkpoint(const std::string& path, const std::string& device) {
  parse_device(device);  // a bad device is reported before the file is read
  return load_checkpoint_bytes(path, read_checkpoint_file(path), device);
}

LoadedCheckpoint load_checkpoint_bytes(const std::string& path, const std::string& bytes,
                                       const std::string& device) {
  const torch::Device dev = parse_device(device);
  const std::string payload = verify_payload(path, bytes);
  torch::serialize::InputArchive ar;
  LoadedCheckpoint out;
  open_archive(path, payload, ar, &out.meta);
  // The net is built from the metadata before its stored tensors are read: metadata that asks
  // for more parameters than the file can hold (at 2 bytes each) would allocate gigabytes
  // first (an 83 KB file saying channels 4096 took 2.5 GB).
  const int64_t min_params = out.meta.net.min_parameters();
  if (min_params > int64_t(payload.size()) / 2)
    throw CheckpointError("checkpoint " + path + ": its metadata's net (" + out.meta.net.summary() +
                          ") has at least " + std::to_string(min_params) + " parameters, more than its " +
                          std::to_string(payload.size()) + " bytes can hold");
  out.net = PolicyValueNet(out.meta.net);
  // Expected shapes from the freshly built net; Module::load replaces tensors without checking.
  std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
  for (const auto& item : out.net->named_parameters())
    shapes.emplace_back(item.key(), item.value().sizes().vec());
  for (const auto& item : out.net->named_buffers())
    shapes.emplace_back(item.key(), item.value().sizes().vec());
  try {
    torch::serialize::InputArchive model;
    ar.read("model", model);
    out.net->load(model);
  } catch (const std::exception& e) {
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    throw CheckpointError("checkpoint " + path + ": parameters do not fit the stored architecture (" +
                          out.meta.net.summary() + "): " + what);
  }
  auto check = [&](const std::string& key, const torch::Tensor& t) {
    for (const auto& s : shapes)
      if (s.first == key) {
        if (t.sizes().vec() != s.second)
          throw CheckpointError("checkpoint " + path + ": tensor '" + key + "' has shape " +
                                c10::str(t.sizes()) + ", the architecture (" +
                                out.meta.net.summary() + ") needs " + c10::str(s.second));
        return;
      }
  };
  for (const auto& item : out.net->named_parameters()) check(item.key(), item.value());
  for (const auto& item : out.net->named_buffers()) check(item.key(), item.value());
  // Checksum-valid garbage: a NaN or infinite weight, or a negative batch-norm variance, gave
  // non-finite evaluations (a fallback turn every turn, with exit status 0).
  auto finite = [&](const std::string& key, const torch::Tensor& t) {
    if (!t.is_floating_point()) return;
    if (!torch::isfinite(t).all().item<bool>())
      throw CheckpointError("checkpoint " + path + ": tensor '" + key + "' holds a value that is not finite");
    if (key.size() >= 11 && key.compare(key.size() - 11, 11, "running_var") == 0 &&
        (t < 0).any().item<bool>())
      throw CheckpointError("checkpoint " + path + ": tensor '" + key + "' holds a negative variance");
  };
  for (const auto& item : out.net->named_parameters()) finite(item.key(), item.value());
  for (const auto& item : out.net->named_buffers()) finite(item.key(), item.value());
  torch::serialize::InputArchive opt;
  out.has_optimizer = ar.try_read("optimizer", opt);
  out.net->to(dev);
  out.net->eval();
  return out;
}

void load_optimizer_state(const std::string& path, torch::optim::Optimizer& optimizer) {
  const std::string payload = read_payload(path);
  torch::serialize::InputArchive ar;
  CheckpointMeta meta;
  // The optimizer's state tensors (momenta) must live where its parameters live: a file
  // is mapped onto the parameters' device (else a CUDA run resumed from a file would step with
  // CPU momenta next to CUDA parameters).
  torch::Device dev(torch::kCPU);
  for (const auto& group : optimizer.param_groups())
    if (!group.params().empty()) {
      dev = group.params().front().device();
      break;
    }
  open_archive(path, payload, ar, &meta, dev);
  torch::serialize::InputArchive opt;
  if (!ar.try_read("optimizer", opt))
    throw CheckpointError("checkpoint " + path + ": holds no optimizer state");
  try {
    optimizer.load(opt);
  } catch (const std::exception& e) {
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    throw CheckpointError("checkpoint " + path + ": optimizer state does not fit: " + what);
  }
}

}  // namespace ps::nn
