// Template of the single-file bot (export/single_file.h): not compiled into the project. In the
// generated file it follows the project's engine, encoder and search sources and a block
// `namespace psx { kPitchW, kPitchL, kPitchG, kVariant, kC, kBlocks, kGpEvery, kGpC, kP, kV,
// kVH, kBits, kWeights }` written by the exporter. It holds:
//   - Net: the policy/value net of nn/net.h in plain C++, batch norms folded, weights decoded
//     once at start (per-row scale x int8 or int4); all buffers fixed-size, no heap per call;
//   - main(): the CodinGame protocol with the time management of `bot` (tournament/protocol.h:
//     the search runs on a worker thread with a budget of limit - safety_ms - search_margin_ms,
//     the answer is due limit - safety_ms after the input,
//     else the engine's fallback turn; later turns also fall back while a late search runs);
//   - `--raw-eval`: value and root turn priors of records read on stdin, as `analyse --raw`
//     prints them (the export test compares the two); `--bench`: evaluations per second.
// Input lines are read as `bot` reads them, at most 1 MiB each; flags are checked as `bot`
// checks them (apps/cmd_bot.cpp), each refused with its name and value.
// Build the file with -DPS_SINGLE_FILE_TEST_DRIVER to leave main() out (a test driver then
// includes it and brings its own).
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

namespace psx {

// single-file: only puct begin
constexpr int kH = kPitchL + 3, kGW = kPitchW + 1;  // the point grid (nn/encoder.h)
constexpr int kPW = kGW + 2, kPH = kH + 2;           // the grid padded by one zero point
constexpr int kNP = kH * kGW;                        // points of the grid
constexpr int kIn = ps::nn::kNumPlanes;
constexpr int kMaxC = (kC + kGpC > kIn ? kC + kGpC : kIn);
// Convolutions run over the flat padded plane from the first interior point on, kSpan floats
// (a multiple of 8 with a constant trip count, so g++ -O2 vectorises the loops); the pad
// points inside that span get garbage and are cleared after each layer. kPS: floats of one
// plane, room for the span's reads included.
constexpr int kSpanBegin = kPW + 1, kSpanEnd = kPW * (kH + 1) - 1;
constexpr int kSpan = (kSpanEnd - kSpanBegin + 7) / 8 * 8;
constexpr int kPS = (kSpanBegin + kSpan + kPW + 1 + 7) / 8 * 8;

// y[0..kSpan) += w * x[0..kSpan)
void axpy(float* __restrict y, const float* __restrict x, float w) {
  for (int j = 0; j < kSpan; ++j) y[j] += w * x[j];
}

bool is_gp_block(int i) { return kGpEvery > 0 && (i + 1) % kGpEvery == 0; }
// single-file: only puct end

struct Layer {
  int out = 0, fan_in = 0;
  std::vector<float> w, b;
};

// The layers in kWeights (export/single_file.h, encode_layers), in the order the bot reads them.
std::vector<Layer> decode() {
  std::vector<Layer> v;
  std::string bytes;
  uint32_t acc = 0;
  int got = 0;
  for (const char* s = kWeights; *s; ++s) {
    const char c = *s;
    const int d = c >= 'A' && c <= 'Z'   ? c - 'A'
                  : c >= 'a' && c <= 'z' ? c - 'a' + 26
                  : c >= '0' && c <= '9' ? c - '0' + 52
                  : c == '+'             ? 62
                                         : 63;
    acc = acc << 6 | uint32_t(d);
    if (++got == 4) {
      for (int k = 2; k >= 0; --k) bytes += char((acc >> (8 * k)) & 255);
      acc = 0;
      got = 0;
    }
  }
  size_t at = 0;
  auto f32 = [&]() {
    uint32_t u = 0;
    for (int k = 0; k < 4; ++k) u |= uint32_t(uint8_t(bytes[at++])) << (8 * k);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  };
  auto add = [&](int out, int fan_in) {
    const int bits = kBits;
    Layer l;
    l.out = out;
    l.fan_in = fan_in;
    std::vector<float> scale{std::vector<float>(size_t(out))};
    for (auto& s : scale) s = f32();
    l.b.resize(size_t(out));
    for (auto& b : l.b) b = f32();
    l.w.resize(size_t(out) * fan_in);
    for (size_t k = 0; k < l.w.size(); ++k) {
      // float32, int8, or two int4 per byte (low nibble first, stored as q + 8)
      if (bits == 32) {
        l.w[k] = f32();
        continue;
      }
      const int byte = uint8_t(bytes[at + (bits == 8 ? k : k / 2)]);
      const int q = bits == 8 ? int(int8_t(uint8_t(byte))) : ((k & 1) ? byte >> 4 : byte & 15) - 8;
      l.w[k] = float(q) * scale[k / size_t(fan_in)];
    }
    if (bits != 32) at += bits == 8 ? l.w.size() : (l.w.size() + 1) / 2;
    v.push_back(std::move(l));
  };
  // single-file: only puct begin
  add(kC, kIn * 9);
  for (int i = 0; i < kBlocks; ++i) {
    const int g = is_gp_block(i) ? kGpC : 0;
    add(kC + g, kC * 9);
    if (g) add(kC, 3 * g);
    add(kC, kC * 9);
  }
  add(kP, kC);
  add(8, kP);
  add(kV, kC);
  add(kVH, 3 * kV);
  add(1, kVH);
  // single-file: only puct end
  // single-file: only alphabeta begin
  for (int i = 0; i < kLayers; ++i) add(kShape[i + 1], kShape[i]);
  // single-file: only alphabeta end
  return v;
}

// single-file: only puct begin

class Net final : public ps::Evaluator {
 public:
  Net() {
    const ps::Pitch& pitch = ps::Pitch::get(kPitchW, kPitchL, kPitchG);
    for (int p = 0; p < kNP; ++p) mask_count_ += pitch.is_ball_point(p) ? 1.0f : 0.0f;
  }

  void evaluate(const ps::Position& pos, ps::Evaluation& out) override {
    ps::nn::encode_position(pos, planes_);
    for (int c = 0; c < kIn; ++c)
      for (int r = 0; r < kH; ++r)
        for (int x = 0; x < kGW; ++x) a_[c][(r + 1) * kPW + x + 1] = planes_[c * kNP + r * kGW + x];
    for (int p = 0; p < kNP; ++p)
      mask_[p] = planes_[ps::nn::kPlaneField * kNP + p] + planes_[(ps::nn::kPlaneField + 1) * kNP + p] +
                 planes_[(ps::nn::kPlaneField + 2) * kNP + p];
    size_t li = 0;
    conv3(a_, kIn, b_, layers_[li++], true);
    for (int i = 0; i < kBlocks; ++i) {
      const Layer& c1 = layers_[li++];
      conv3(b_, kC, t_, c1, true);
      if (is_gp_block(i)) {
        const Layer& fc = layers_[li++];
        pool(t_ + kC, kGpC, pooled_);
        for (int o = 0; o < kC; ++o) {
          float s = fc.b[o];
          for (int k = 0; k < 3 * kGpC; ++k) s += fc.w[o * 3 * kGpC + k] * pooled_[k];
          for (int r = 0; r < kH; ++r)
            for (int x = 0; x < kGW; ++x) t_[o][(r + 1) * kPW + x + 1] += s;
        }
      }
      conv3(t_, kC, a_, layers_[li++], false);
      for (int o = 0; o < kC; ++o) {
        axpy(b_[o] + kSpanBegin, a_[o] + kSpanBegin, 1.0f);
        relu(b_[o]);
      }
      clear_pad(b_, kC);
    }
    conv1(b_, kC, t_, layers_[li++], true);   // policy conv
    conv1(t_, kP, a_, layers_[li++], false);  // policy out: mover-frame logits [8][grid]
    for (int d = 0; d < 8; ++d)
      for (int r = 0; r < kH; ++r)
        for (int x = 0; x < kGW; ++x) planes_[d * kNP + r * kGW + x] = a_[d][(r + 1) * kPW + x + 1];
    conv1(b_, kC, t_, layers_[li++], true);   // value conv
    pool(t_, kV, pooled_);
    const Layer& fc = layers_[li++];
    float hidden[kVH];
    for (int o = 0; o < kVH; ++o) {
      float s = fc.b[o];
      for (int k = 0; k < 3 * kV; ++k) s += fc.w[o * 3 * kV + k] * pooled_[k];
      hidden[o] = std::max(0.0f, s);
    }
    const Layer& vo = layers_[li++];
    float z = vo.b[0];
    for (int k = 0; k < kVH; ++k) z += vo.w[k] * hidden[k];
    out.value = std::tanh(z);
    out.policy_logits.resize(size_t(kNP) * 8);
    ps::nn::policy_to_engine(pos.pitch(), pos.side_to_move(), planes_, out.policy_logits.data());
  }
  std::string name() const override { return "single-file net"; }

 private:
  // 3x3 convolution (padding 1) of n input planes, bias, optional ReLU.
  void conv3(float (*in)[kPS], int n, float (*out)[kPS], const Layer& l, bool with_relu) {
    for (int o = 0; o < l.out; ++o) {
      float* y = out[o] + kSpanBegin;
      std::fill(y, y + kSpan, l.b[o]);
      for (int i = 0; i < n; ++i) {
        const float* w = &l.w[(size_t(o) * n + i) * 9];
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx)
            axpy(y, in[i] + kSpanBegin + (ky - 1) * kPW + (kx - 1), w[ky * 3 + kx]);
      }
      if (with_relu) relu(out[o]);
    }
    clear_pad(out, l.out);
  }
  // 1x1 convolution, bias, optional ReLU.
  void conv1(float (*in)[kPS], int n, float (*out)[kPS], const Layer& l, bool with_relu) {
    for (int o = 0; o < l.out; ++o) {
      float* y = out[o] + kSpanBegin;
      std::fill(y, y + kSpan, l.b[o]);
      for (int i = 0; i < n; ++i) axpy(y, in[i] + kSpanBegin, l.w[size_t(o) * n + i]);
      if (with_relu) relu(out[o]);
    }
    clear_pad(out, l.out);
  }
  static void relu(float* p) {
    for (int j = kSpanBegin; j < kSpanBegin + kSpan; ++j) p[j] = std::max(0.0f, p[j]);
  }
  // Zeroes the pad points the span wrote: the side columns and what follows the last row.
  static void clear_pad(float (*p)[kPS], int n) {
    for (int c = 0; c < n; ++c) {
      for (int r = 1; r <= kH; ++r) p[c][r * kPW] = p[c][r * kPW + kPW - 1] = 0.0f;
      std::fill(p[c] + kSpanEnd, p[c] + kPS, 0.0f);
    }
  }
  // Masked pooling of n post-ReLU planes (nn/net.cpp masked_pool): mean over the ball points,
  // the mean scaled by (sqrt(points) - 10) / 10, and the max.
  void pool(float (*p)[kPS], int n, float* out) {
    const float scale = (std::sqrt(mask_count_) - 10.0f) / 10.0f;
    for (int c = 0; c < n; ++c) {
      float sum = 0, mx = 0;
      for (int r = 0; r < kH; ++r)
        for (int x = 0; x < kGW; ++x) {
          const float v = p[c][(r + 1) * kPW + x + 1] * mask_[r * kGW + x];
          sum += v;
          mx = std::max(mx, v);
        }
      const float mean = sum / std::max(1.0f, mask_count_);
      out[c] = mean;
      out[n + c] = mean * scale;
      out[2 * n + c] = mx;
    }
  }

  std::vector<Layer> layers_ = decode();
  float mask_count_ = 0;
  float mask_[kNP] = {};
  float planes_[kIn * kNP] = {};
  float pooled_[3 * kMaxC] = {};
  float a_[kMaxC][kPS] = {}, b_[kMaxC][kPS] = {}, t_[kMaxC][kPS] = {};
};
// single-file: only puct end
// single-file: only alphabeta begin
// The small value net of valuenet/value_net.h, its layers from kWeights.
struct Net {
  std::shared_ptr<ps::ValueNet> vnet = std::make_shared<ps::ValueNet>();
  Net() {
    vnet->width = kPitchW;
    vnet->length = kPitchL;
    vnet->goal = kPitchG;
    vnet->variant = ps::Variant(kVariant);
    vnet->value_scale = kValueScale;
    vnet->window = kWindow;
    vnet->window_points = kWindowPoints;
    for (Layer& l : decode()) vnet->layers.push_back({l.fan_in, l.out, std::move(l.w), std::move(l.b)});
    vnet->validate();
    vnet->finalize();
  }
};
// single-file: only alphabeta end

using Clock = std::chrono::steady_clock;
const Clock::time_point g_start = Clock::now();  // the process start, for the first answer

ps::Position start_position() {
  return ps::Position(ps::Pitch::get(kPitchW, kPitchL, kPitchG), ps::Variant(kVariant));
}

// Is `turn` one whole legal turn of pos (a turn start): every kick legal, and the turn ends
// at its last kick and not before?
bool whole_turn(const ps::Position& pos, const std::string& turn) {
  ps::Position p = pos;
  const int mover = p.side_to_move();
  for (size_t i = 0; i < turn.size(); ++i) {
    const int d = turn[i] - '0';
    if (p.game_over() || p.side_to_move() != mover || (i > 0 && p.turn_start()) || !p.is_legal(d))
      return false;
    p.make_kick(d);
  }
  return !turn.empty() && (p.game_over() || p.turn_start() || p.side_to_move() != mover);
}

// Applies digits kick by kick (spaces between turns are skipped); false on a bad or illegal
// kick.
bool play_digits(ps::Position& pos, const std::string& digits) {
  for (char c : digits) {
    if (c == ' ' || c == '\r') continue;
    if (c < '0' || c > '7' || !pos.is_legal(c - '0')) return false;
    pos.make_kick(c - '0');
  }
  return true;
}

// One input line (its newline dropped) of at most kMaxLine characters, as `bot` reads them
// (tournament/protocol.h read_protocol_line); false at the end of the input. A longer line
// throws std::length_error naming line `lineno`: the bot stops instead of holding the line.
constexpr size_t kMaxLine = size_t(1) << 20;
bool read_line(std::string& line, int lineno) {
  line.clear();
  for (int c; (c = std::cin.rdbuf()->sbumpc()) != '\n';) {
    if (c == EOF) return !line.empty();
    if (line.size() == kMaxLine)
      throw std::length_error("line " + std::to_string(lineno) + ": longer than " + std::to_string(kMaxLine) +
                              " characters, starting " + ps::quoted_text(line, 40));
    line += char(c);
  }
  return true;
}

// `--raw-eval`: per stdin line (a record), what `papersoccer analyse --raw` prints, then "end"
// (the alpha-beta bot: the value net's value only).
int raw_eval(Net& net) {
  std::string line;
  int lineno = 0;
  // single-file: only puct begin
  const ps::SearchParams sp;
  // single-file: only puct end
  while (read_line(line, ++lineno)) {
    ps::Position pos = start_position();
    if (!play_digits(pos, line) || pos.game_over() || !pos.turn_start()) {
      std::printf("error\n");
      continue;
    }
    // single-file: only puct begin
    ps::Evaluation ev;
    net.evaluate(pos, ev);
    const ps::BestFirstResult r = ps::best_first_turns(pos, ev.policy_logits.data(), ps::root_turn_options(sp));
    std::printf("value\t%.9g\n", double(ev.value));
    for (const ps::Turn& t : r.turns) std::printf("turn\t%s\t%.9g\n", t.kicks.c_str(), double(t.prior));
    // single-file: only puct end
    // single-file: only alphabeta begin
    std::printf("value\t%.9g\n", double(net.vnet->evaluate(pos)));
    // single-file: only alphabeta end
    std::printf("end\n");
  }
  return 0;
}

// The search of `bot` (MctsPlayer with the bot's parameters: no root noise, temperature 0),
// on a worker thread when threads are available.
class Bot {
 public:
  ~Bot() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (worker_.joinable()) worker_.join();
  }
  void start_worker() {
    try {
      worker_ = std::thread([this] { loop(); });
    } catch (const std::system_error&) {  // no threads here: search in the main thread
    }
  }
  // single-file: only puct begin
  Bot(Net& net, long long visits) : search_(net, params(), 1), visits_(visits) {}
  static ps::SearchParams params() {
    ps::SearchParams sp;
    sp.temperature = 0;
    sp.root_noise = false;
    return sp;
  }
  // The search's turn; *stats: a line for the log (written by the main thread only: the
  // worker never touches the standard streams).
  std::string think(const ps::Position& pos, int, long long time_ms, std::string* stats) {
    ps::SearchLimits lim;
    lim.visits = visits_;
    lim.time_ms = std::max<long long>(1, time_ms * 9 / 10);
    const ps::SearchResult r = search_.run(pos, lim);
    *stats = "bot: " + std::to_string(r.new_visits) + " visits, " + std::to_string(r.evaluations) +
             " evaluations in " + std::to_string(int(r.elapsed_ms)) + " ms\n";
    return r.best_turn;  // temperature 0 (params()): sample_turn's choice
  }
  // single-file: only puct end
  // single-file: only alphabeta begin
  // The ladder's alphabeta-nnue (AlphaBetaPlayer with default options, seed 1 as in `analyse`);
  // visits: a node budget (--nodes). The search stops deepening at half the time and answers by
  // 90% of it.
  Bot(Net& net, long long visits)
      : search_({}, std::make_unique<ps::ValueNetEvaluator>(net.vnet, "single file"), 1), visits_(visits) {
    search_.new_game(net.vnet->pitch(), net.vnet->variant);
  }
  std::string think(const ps::Position& pos, int, long long time_ms, std::string* stats) {
    const std::string turn = search_.search_turn(pos, {time_ms, visits_});
    const ps::AlphaBetaPlayer::Info& i = search_.last_info();
    *stats = "bot: depth " + std::to_string(i.depth) + ", score " + std::to_string(i.score) + ", " +
             std::to_string(i.nodes) + " nodes in " + std::to_string(int(i.ms)) + " ms\n";
    return turn;
  }
  // single-file: only alphabeta end
  // Submits a job; false while an earlier one still runs.
  bool submit(const ps::Position& pos, int turns, long long time_ms) {
    std::lock_guard<std::mutex> lock(mu_);
    if (answer_id_ != job_id_) return false;
    job_pos_ = pos;
    job_turns_ = turns;
    job_ms_ = time_ms;
    ++job_id_;
    has_job_ = true;
    cv_.notify_all();
    return true;
  }
  // Waits for the job until `deadline`; false when it is not done by then.
  bool wait(Clock::time_point deadline, std::string* answer, std::string* error, std::string* stats) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_until(lock, deadline, [&] { return answer_id_ == job_id_; })) return false;
    *answer = answer_;
    *error = error_;
    *stats = stats_;
    return true;
  }
  bool threaded() const { return worker_.joinable(); }

 private:
  void loop() {
    for (;;) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || has_job_; });
      if (stop_) return;
      has_job_ = false;
      const ps::Position pos = job_pos_;
      const int turns = job_turns_;
      const long long ms = job_ms_;
      const uint64_t id = job_id_;
      lock.unlock();
      std::string answer, error, stats;
      try {
        answer = think(pos, turns, ms, &stats);
      } catch (const std::exception& e) {
        error = e.what();
      }
      lock.lock();
      answer_ = answer;
      error_ = error;
      stats_ = stats;
      answer_id_ = id;
      lock.unlock();
      cv_.notify_all();
    }
  }

  // single-file: only puct begin
  ps::Search search_;
  // single-file: only puct end
  // single-file: only alphabeta begin
  ps::AlphaBetaPlayer search_;
  // single-file: only alphabeta end
  long long visits_;
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false, has_job_ = false;
  ps::Position job_pos_ = start_position();
  int job_turns_ = 0;
  long long job_ms_ = 0;
  uint64_t job_id_ = 0, answer_id_ = 0;
  std::string answer_, error_, stats_;
};

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// Plays one game of the CodinGame protocol (see tournament/protocol.h for the messages).
// Long (about 90 lines): one loop over the shared position, turn count and clock (read and check
// the opponent's turn, answer within the limit); kept whole because the exported file must stay
// under 100,000 characters and every extra function's signature and arguments cost some.
int play(Net& net, long long first_ms, long long turn_ms, long long safety_ms,
         long long search_margin_ms, long long visits) {
  std::string line;
  if (!read_line(line, 1)) return 0;
  const std::string id = trim(line);
  if (id != "0" && id != "1") {
    std::cerr << "bot: expected the player id 0 or 1 on line 1, got '" << id.substr(0, 60) << "'\n";
    return 1;
  }
  const int me = id[0] - '0';
  Bot bot(net, visits);
  bot.start_worker();
  ps::Position pos = start_position();
  int turns = 0;  // complete turns played, both sides
  bool first = true;
  std::string len_line, turn;
  int lineno = 1;
  while (read_line(len_line, lineno + 1)) {
    const Clock::time_point start = Clock::now();
    ++lineno;
    // The length line, as `bot` checks it (tournament/protocol.cpp): a positive count.
    len_line = trim(len_line);
    const bool digits = !len_line.empty() && len_line.size() < 10 &&
                        len_line.find_first_not_of("0123456789") == std::string::npos;
    const long length = digits ? std::stol(len_line) : 0;
    if (length < 1) {
      std::cerr << "bot: protocol line " << lineno << ": expected the length of the opponent's turn, got '"
                << len_line.substr(0, 60) << "'\n";
      return 1;
    }
    if (!read_line(turn, lineno + 1)) return 0;
    ++lineno;
    turn = trim(turn);
    if (turn.empty()) {  // no turn: taking it as '-' would let us kick twice in a row, as `bot` refuses
      std::cerr << "bot: protocol line " << lineno
                << ": expected the opponent's turn (digits 0-7, or '-'), got an empty line\n";
      return 1;
    }
    if (size_t(length) != turn.size())
      std::cerr << "bot: length line says " << length << " but the turn has " << turn.size()
                << " characters; using the turn\n";
    if (turn != "-") {
      // Kick by kick, so a line holding several turns (an opening played before) works too;
      // after the first answer a line holds one turn of the opponent: a kick of ours in it is refused.
      for (char c : turn) {
        if (c < '0' || c > '7' || !pos.is_legal(c - '0') || (!first && pos.side_to_move() == me)) {
          std::cerr << "bot: protocol line " << lineno << ": opponent turn '" << turn.substr(0, 60)
                    << "' is not legal here\n";
          return 1;
        }
        const int mover = pos.side_to_move();
        pos.make_kick(c - '0');
        if (pos.game_over() || pos.turn_start() || pos.side_to_move() != mover) ++turns;
      }
    }
    if (pos.game_over() || !pos.turn_start() || pos.side_to_move() != me) {
      std::cerr << "bot: protocol line " << lineno << ": no answer is due after '" << turn.substr(0, 60)
                << "': "
                << (pos.game_over()     ? "the game is over"
                    : !pos.turn_start() ? "the turn is not finished (the ball bounced)"
                    : turn == "-"       ? "'-' (no previous turn) is only valid on player 0's first turn"
                                        : "it is not our turn")
                << "\n";
      return 1;
    }
    long long limit = first ? first_ms : turn_ms;
    if (first) {
      const long long spent = std::chrono::duration_cast<std::chrono::milliseconds>(start - g_start).count();
      limit = std::max(turn_ms, limit - spent);
    }
    first = false;
    const Clock::time_point deadline = start + std::chrono::milliseconds(std::max(1LL, limit - safety_ms));
    const long long budget = std::max(1LL, limit - safety_ms - search_margin_ms);
    std::string answer, why, stats;
    if (bot.threaded()) {
      const bool submitted = bot.submit(pos, turns, budget);
      const std::string fallback = ps::fallback_turn(pos);  // while the search thinks
      std::string error;
      if (!submitted)
        why = "still busy with an earlier turn";
      else if (!bot.wait(deadline, &answer, &error, &stats))
        why = "no answer within " + std::to_string(limit - safety_ms) + " ms";
      else if (!error.empty())
        why = "search failed: " + error;
      if (why.empty() && !whole_turn(pos, answer)) why = "search answered an illegal turn '" + answer + "'";
      if (!why.empty()) answer = fallback;
    } else {
      try {
        answer = bot.think(pos, turns, budget, &stats);
      } catch (const std::exception& e) {
        why = std::string("search failed: ") + e.what();
        answer = ps::fallback_turn(pos);
      }
    }
    std::cout << answer << std::endl;  // first: the log must not delay the answer
    std::cerr << stats;
    if (!why.empty()) std::cerr << "bot: " << why << "; answering the fallback turn " << answer << "\n";
    play_digits(pos, answer);
    ++turns;
  }
  return 0;
}

// The flag of the search's budget per turn, as `bot` names it: visits for PUCT, nodes for
// alpha-beta (-1: the clock alone).
// single-file: only puct begin
constexpr const char* kBudgetFlag = "--visits";
// single-file: only puct end
// single-file: only alphabeta begin
constexpr const char* kBudgetFlag = "--nodes";
// single-file: only alphabeta end

// The value of flag argv[i], moving i to it: the whole text an integer from lo to hi (INT64_MAX:
// no upper bound), or -1 where minus_one; else std::invalid_argument naming the flag and the text.
long long flag_value(int argc, char** argv, int& i, long long lo, long long hi, bool minus_one = false) {
  const std::string flag = argv[i];
  if (++i == argc) throw std::invalid_argument(flag + ": missing its value");
  const std::string text = argv[i];
  size_t used = 0;
  long long v = 0;
  try {
    if (text.find_first_not_of("-0123456789") == std::string::npos) v = std::stoll(text, &used);
  } catch (const std::exception&) {  // not a number, or out of range
  }
  if (used == 0 || used != text.size() || ((v < lo || v > hi) && !(minus_one && v == -1)))
    throw std::invalid_argument(flag + ": expected an integer " + (hi == INT64_MAX ? ">= " : "from ") +
                                std::to_string(lo) + (hi == INT64_MAX ? "" : " to " + std::to_string(hi)) +
                                (minus_one ? " or -1" : "") + ", got " + ps::quoted_text(text, 40));
  return v;
}

}  // namespace psx

#ifndef PS_SINGLE_FILE_TEST_DRIVER
int main(int argc, char** argv) {
  long long first_ms = 1000, turn_ms = 200, safety_ms = 40, search_margin_ms = 10, visits = -1;
  const long long kMaxMs = 86400000;  // a day, as `bot`
  bool raw = false;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--first-ms") {
        first_ms = psx::flag_value(argc, argv, i, 1, kMaxMs);
      } else if (a == "--turn-ms") {
        turn_ms = psx::flag_value(argc, argv, i, 1, kMaxMs);
      } else if (a == "--safety-ms") {
        safety_ms = psx::flag_value(argc, argv, i, 0, kMaxMs);
      } else if (a == "--search-margin-ms") {
        search_margin_ms = psx::flag_value(argc, argv, i, 0, kMaxMs);
      } else if (a == psx::kBudgetFlag) {
        visits = psx::flag_value(argc, argv, i, 1, INT64_MAX, true);
      } else if (a == "--raw-eval") {
        raw = true;
        // single-file: only puct begin
      } else if (a == "--bench") {  // network evaluations per second on the start position
        static psx::Net net;
        ps::Evaluation ev;
        const ps::Position pos = psx::start_position();
        const auto t0 = psx::Clock::now();
        int n = 0;
        while (psx::Clock::now() - t0 < std::chrono::seconds(2) || n < 10) net.evaluate(pos, ev), ++n;
        const double s = std::chrono::duration<double>(psx::Clock::now() - t0).count();
        std::printf("%d evaluations in %.2f s: %.0f per second\n", n, s, n / s);
        return 0;
        // single-file: only puct end
        // single-file: only alphabeta begin
      } else if (a == "--bench") {  // alpha-beta on the start position for 2 s: depth, nodes, ms
        static psx::Net net;
        psx::Bot bot(net, -1);
        std::string stats;
        bot.think(psx::start_position(), 0, 2000, &stats);
        std::printf("%s", stats.c_str());
        return 0;
        // single-file: only alphabeta end
      } else {
        throw std::invalid_argument("unknown option " + ps::quoted_text(a, 40));
      }
    }
    // As `bot`: the search needs time left after both margins.
    if (safety_ms + search_margin_ms >= std::min(first_ms, turn_ms))
      throw std::invalid_argument("--safety-ms " + std::to_string(safety_ms) + " + --search-margin-ms " +
                                  std::to_string(search_margin_ms) + " must be below --first-ms (" +
                                  std::to_string(first_ms) + ") and --turn-ms (" + std::to_string(turn_ms) +
                                  "): the search would have no time");
  } catch (const std::invalid_argument& e) {
    std::cerr << "bot: " << e.what() << "\nusage: " << argv[0]
              << " [--first-ms MS] [--turn-ms MS] [--safety-ms MS] [--search-margin-ms MS] ["
              << psx::kBudgetFlag << " N] [--raw-eval] [--bench]\n";
    return 2;
  }
  static psx::Net net;
  try {
    return raw ? psx::raw_eval(net) : psx::play(net, first_ms, turn_ms, safety_ms, search_margin_ms, visits);
  } catch (const std::length_error& e) {  // an input line too long (read_line)
    std::cerr << "bot: " << (raw ? "" : "protocol ") << e.what() << "\n";
    return 1;
  }
}
#endif
