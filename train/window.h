// The training window: the newest samples of a self-play data directory (selfplay/data.h), as
// many as TrainConfig::Window::size allows for the directory's total. Shared by the residual
// net's trainer (train/trainer.h) and the value-net trainer (train/value_trainer.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "selfplay/data.h"
#include "train/trainer.h"

namespace ps {

/// One sample of the window: game index into TrainingWindow::games, sample index in that game.
struct SampleRef {
  uint32_t game;
  uint32_t sample;
};

struct TrainingWindow {
  std::vector<GameData> games;     ///< newest first
  std::vector<SampleRef> samples;  ///< every sample of `games`
  int64_t total = 0;               ///< samples in the whole directory
};

/// Reads every chunk ("*.psd") of data_dir and keeps the newest games (file names sort
/// chronologically) until window.size(total) samples are held. Unreadable chunks are skipped
/// with a warning on stderr. Throws std::runtime_error naming data_dir when it does not exist
/// or holds no sample.
TrainingWindow load_window(const TrainConfig::Window& window, const std::string& data_dir);

/// Every sample of the teacher's games (train.teacher.data). Throws std::runtime_error as
/// load_window does, its message starting "train.teacher.data: ".
TrainingWindow load_teacher_games(const TrainConfig::Teacher& teacher);

}  // namespace ps
