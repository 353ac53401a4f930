#include "tournament/external_engine.h"

#include <chrono>
#include <sstream>

#include "core/text.h"

namespace ps::tour {

const char* EngineFailure::kind_name() const {
  switch (kind_) {
    case Kind::kTime: return "time forfeit";
    case Kind::kCrash: return "engine crash";
    case Kind::kGarbage: return "garbage output";
    case Kind::kStart: return "engine start failure";
  }
  return "engine failure";
}

ExternalEnginePlayer::ExternalEnginePlayer(ExternalEngineOptions options)
    : options_(std::move(options)) {
  if (options_.command.empty() || options_.command[0].empty())
    throw std::runtime_error("external engine: empty command");
  std::string exe = options_.command[0];
  if (find_executable(exe).empty())
    throw std::runtime_error("external engine: command '" + exe +
                             "' is not an executable file (not found" +
                             (exe.find('/') == std::string::npos ? std::string(" in PATH") : "") +
                             ", or not executable)");
  name_ = options_.name;
  if (name_.empty()) {
    const size_t slash = exe.rfind('/');
    name_ = slash == std::string::npos ? exe : exe.substr(slash + 1);
  }
}

ExternalEnginePlayer::~ExternalEnginePlayer() { finish(); }

void ExternalEnginePlayer::finish() {
  if (process_) process_->kill(int(options_.exit_grace_ms));
  process_.reset();
}

void ExternalEnginePlayer::new_game(const Pitch&, Variant) {
  finish();
  id_sent_ = false;
  answers_ = 0;
  kicks_known_ = 0;
  process_ = std::make_unique<ChildProcess>();
  try {
    process_->start(options_.command, options_.working_dir, options_.stderr_path);
  } catch (const std::exception& e) {
    throw EngineFailure(EngineFailure::Kind::kStart, e.what());
  }
}

std::string ExternalEnginePlayer::choose_turn(const Game& game, const TurnBudget& budget) {
  using Clock = ChildProcess::Clock;
  if (!process_) new_game(game.start().pitch(), game.start().variant());
  std::string input;
  if (!id_sent_) {
    input = std::to_string(game.position().side_to_move()) + "\n";
    id_sent_ = true;
  }
  // Everything played since the engine's last answer: normally the opponent's last turn; with
  // opening_history, the first time also the opening's turns (as one digit string).
  std::string unseen;
  for (size_t i = kicks_known_; i < game.kicks().size(); ++i) unseen += char('0' + game.kicks()[i].dir);
  input += protocol_turn_input(unseen);
  const int64_t limit = answers_ == 0 ? options_.first_turn_ms : options_.turn_ms;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::milliseconds(limit + options_.margin_ms);
  const bool written = process_->write(input);
  std::string line;
  const auto status = written ? process_->read_line(deadline, &line) : ChildProcess::ReadStatus::kEof;
  last_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  ++answers_;
  switch (status) {
    case ChildProcess::ReadStatus::kLine: break;
    case ChildProcess::ReadStatus::kTimeout:
      throw EngineFailure(EngineFailure::Kind::kTime,
                          "no answer within " + std::to_string(limit) + " ms" +
                              (options_.margin_ms ? " (+" + std::to_string(options_.margin_ms) + " ms margin)" : "") +
                              (line.empty() ? "" : "; partial line " + quoted_text(line, 40)));
    case ChildProcess::ReadStatus::kTooLong:
      throw EngineFailure(EngineFailure::Kind::kGarbage,
                          "answer line longer than 64 KiB, starting " + quoted_text(line, 40));
    case ChildProcess::ReadStatus::kEof: {
      const std::string how = process_->kill(int(options_.exit_grace_ms));
      throw EngineFailure(EngineFailure::Kind::kCrash,
                          std::string(written ? "output closed" : "input closed") +
                              " before an answer (" + how + ")" +
                              (line.empty() ? "" : "; partial line " + quoted_text(line, 40)));
    }
  }
  size_t a = 0, b = line.size();
  while (a < b && std::isspace(static_cast<unsigned char>(line[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(line[b - 1]))) --b;
  line = line.substr(a, b - a);
  kicks_known_ = game.kicks().size() + line.size();
  return line;
}

PlayerFactory make_external_engine_factory() {
  return [](ConfigReader& opts, const PlayerContext& ctx) -> std::unique_ptr<Player> {
    ExternalEngineOptions o;
    const std::string where = opts.path("command");
    if (!opts.has("command")) opts.require<std::string>("command");  // throws "required key"
    YAML::Node cmd = opts.get<YAML::Node>("command", YAML::Node());
    if (cmd.IsSequence()) {
      for (size_t i = 0; i < cmd.size(); ++i) {
        if (!cmd[i].IsScalar())
          throw ConfigError(opts.source() + ": " + where + "[" + std::to_string(i) +
                            "]: expected a string");
        o.command.push_back(cmd[i].Scalar());
      }
    } else if (cmd.IsScalar()) {
      std::istringstream ss(cmd.Scalar());
      std::string w;
      while (ss >> w) o.command.push_back(w);
    } else {
      throw ConfigError(opts.source() + ": " + where + ": expected a list of strings or a string");
    }
    if (o.command.empty()) throw ConfigError(opts.source() + ": " + where + ": empty command");
    o.working_dir = opts.get<std::string>("working_dir", "");
    o.first_turn_ms = opts.get<int64_t>("first_turn_ms", o.first_turn_ms);
    o.turn_ms = opts.get<int64_t>("turn_ms", o.turn_ms);
    o.margin_ms = opts.get<int64_t>("margin_ms", o.margin_ms);
    o.exit_grace_ms = opts.get<int64_t>("exit_grace_ms", o.exit_grace_ms);
    o.stderr_path = opts.get<std::string>("stderr", "");
    o.opening_history = opts.get<bool>("opening_history", false);
    if (o.first_turn_ms <= 0 || o.turn_ms <= 0 || o.margin_ms < 0 || o.exit_grace_ms < 0)
      throw ConfigError(opts.source() + ": " + opts.path("turn_ms") +
                        ": first_turn_ms and turn_ms must be > 0, margin_ms and exit_grace_ms >= 0");
    o.name = ctx.name;
    try {
      return std::make_unique<ExternalEnginePlayer>(o);
    } catch (const std::runtime_error& e) {
      throw ConfigError(opts.source() + ": " + where + ": " + e.what());
    }
  };
}

}  // namespace ps::tour
