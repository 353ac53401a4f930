#include "train/window.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace ps {

namespace fs = std::filesystem;

TrainingWindow load_window(const TrainConfig::Window& window, const std::string& data_dir) {
  std::error_code ec;
  if (fs::exists(data_dir, ec) && !fs::is_directory(data_dir, ec))
    throw std::runtime_error(data_dir +
                             ": not a directory: the training data is the folder of its .psd chunks "
                             "(give the folder, not a file in it)");
  if (!fs::is_directory(data_dir, ec))
    throw std::runtime_error(data_dir + ": training data directory does not exist");
  std::vector<std::string> files;
  for (auto& e : fs::directory_iterator(data_dir))
    if (e.path().extension() == ".psd") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  // Count everything first (the window size depends on the total).
  std::vector<std::vector<GameData>> chunks(files.size());
  int64_t total = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    try {
      chunks[i] = read_chunk(files[i]);
    } catch (const DataError& e) {
      std::cerr << "warning: skipping chunk: " << e.what() << "\n";
      continue;
    }
    for (auto& g : chunks[i]) total += int64_t(g.samples.size());
  }
  TrainingWindow w;
  w.total = total;
  const int64_t want = window.size(total);
  int64_t have = 0;
  for (size_t i = files.size(); i-- > 0 && have < want;) {
    for (size_t j = chunks[i].size(); j-- > 0 && have < want;) {
      GameData& g = chunks[i][j];
      if (g.samples.empty()) continue;
      w.games.push_back(std::move(g));
      const uint32_t gi = uint32_t(w.games.size() - 1);
      for (uint32_t s = 0; s < w.games.back().samples.size(); ++s) w.samples.push_back({gi, s});
      have += int64_t(w.games.back().samples.size());
    }
  }
  if (w.samples.empty()) throw std::runtime_error(data_dir + ": no training samples found");
  return w;
}

}  // namespace ps
