#!/usr/bin/env bash
# One-call GPU check (see docs/BENCHMARKS.md, "CUDA on an H200"): builds the project against the CUDA
# LibTorch that ships inside the machine's Python torch, runs the CUDA tests and the nn, search
# and self-play benchmarks on the GPU, then a sum-chains vs best-chain match (all cores).
#
# The machine has no package registry: the Debian packages the build needs (yaml-cpp, TBB,
# zstd, CLI11, nlohmann-json, Eigen, Catch2) travel as .deb files in .devdeps/ (fetched on a
# Debian 12 machine with `apt-get download`, see the list below) and are unpacked with dpkg -x
# into a private prefix. A trained checkpoint for the match may travel as .devdeps/match.ckpt.
#   apt-get download libcli11-dev libtbb-dev libtbb12 libtbbmalloc2 libtbbbind-2-5 \
#     libyaml-cpp-dev libyaml-cpp0.7 nlohmann-json3-dev libeigen3-dev catch2 libzstd-dev libzstd1 \
#     zlib1g-dev
# .devdeps/ is git-ignored: the device tool takes it only when the run names it (carry: [".devdeps"]).
# Logs go to $OUT (the device tool's output folder) or ./device-out.
set -uo pipefail
cd "$(dirname "$0")/.."
source tools/device_env.sh  # OUT, stamp; DEPS, TORCH_PREFIX, TORCH_ROOT, LD_LIBRARY_PATH, JOBS, CMAKE_COMMON

stamp "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm --format=csv 2>&1 | head -3
nproc; command -v g++ c++ cmake ninja nvcc; g++ --version 2>&1 | head -1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cxx11abi", torch._C._GLIBCXX_USE_CXX11_ABI, "gpu", torch.cuda.is_available())'

B=build-cuda

stamp "configure (LibTorch's CMake package)"
if ! cmake -S . -B "$B" "${CMAKE_COMMON[@]}" -DCMAKE_PREFIX_PATH="$TORCH_PREFIX;$DEPS/usr" \
     >"$OUT/configure.log" 2>&1; then
  tail -25 "$OUT/configure.log"
  stamp "configure failed; fallback: LibTorch linked directly (PS_TORCH_ROOT)"
  rm -rf "$B"
  cmake -S . -B "$B" "${CMAKE_COMMON[@]}" -DPS_TORCH_ROOT="$TORCH_ROOT" \
        -DCMAKE_PREFIX_PATH="$DEPS/usr" >>"$OUT/configure.log" 2>&1 || {
    tail -25 "$OUT/configure.log"; stamp "configure failed"; exit 1; }
fi
grep -E "CUDA|Torch|cuDNN|LibTorch" "$OUT/configure.log" | head -12

stamp "build"
if ! cmake --build "$B" -j "$JOBS" --target papersoccer test_nn test_train >"$OUT/build.log" 2>&1; then
  grep -E "error|Error" "$OUT/build.log" | head -30
  stamp "build failed"
  exit 1
fi
stamp "built"

stamp "tests: CUDA cases, then the whole nn suite (CPU) on this LibTorch"
export CUBLAS_WORKSPACE_CONFIG=:4096:8
"$B/tests/nn/test_nn" "[cuda]" 2>&1 | grep -vE "^\s*$" | tail -40
"$B/tests/nn/test_nn" 2>&1 | tail -2
if ! "$B/tests/train/test_train" "[cuda]" >"$OUT/test_train.log" 2>&1; then
  tail -60 "$OUT/test_train.log"
  if command -v cuda-gdb >/dev/null; then
    stamp "test_train failed: once more under cuda-gdb for a backtrace"
    timeout 120 cuda-gdb -q -batch -ex run -ex bt -ex "x/32a \$sp" -ex "info threads" \
        --args "$B/tests/train/test_train" "[cuda]" 2>&1 | grep -vE "^\[(New|Thread .* exited)" | tail -60
  fi
else
  grep -E "warning|largest|policy|passed" "$OUT/test_train.log" | tail -20
fi

stamp "CLI pipeline on the GPU: selfplay -> train (cuda, optimizer state saved) -> export"
cat >/tmp/gpu-pipeline.yaml <<'YAML'
service: {device: cuda, max_batch: 64, batch_timeout_us: 500}
selfplay: {games: 16, concurrent_games: 16, visits: 32, cheap_visits: 8, games_per_chunk: 8}
train: {net: {preset: tiny}, device: cuda, threads: 4, steps: 60, batch_size: 128,
        checkpoint_interval: 20, log_interval: 20, window: {min_samples: 1000}}
YAML
"$B/papersoccer" init-net /tmp/gpu-init.ckpt --preset tiny 2>&1 | tail -1
"$B/papersoccer" selfplay /tmp/gpu-pipeline.yaml --net /tmp/gpu-init.ckpt --out /tmp/gpu-data 2>&1 | tail -1
"$B/papersoccer" train /tmp/gpu-pipeline.yaml --data /tmp/gpu-data --out "$OUT/cuda-trained.ckpt" 2>&1 | tail -2
"$B/papersoccer" export "$OUT/cuda-trained.ckpt" /tmp/gpu.model --pitch 8x10 --variant standard 2>&1 | tail -1
[ "${PS_DEVICE_QUICK:-0}" = 1 ] && { stamp "done (quick)"; exit 0; }

stamp "bench nn (GPU, 4 service workers)"
"$B/papersoccer" bench nn --device cuda --nets tiny,medium --batches 32,128,512 \
    --submitters 64 --seconds 0.5 --rounds 2 --threads 4 --workers 4 2>&1 | tail -12
stamp "bench selfplay (GPU)"
"$B/papersoccer" bench selfplay --device cuda --nets tiny,medium --games 32 \
    --concurrent-games 32 --max-batch 64 --workers 2 --train-steps 50 \
    --train-batch 256,1024 --train-threads 4 2>&1 | tail -14
if [ -f .devdeps/match.ckpt ]; then
  stamp "bench selfplay (GPU, trained tiny checkpoint)"
  "$B/papersoccer" bench selfplay --device cuda --checkpoint .devdeps/match.ckpt --games 32 \
      --concurrent-games 32 --max-batch 64 --workers 2 --train-steps 50 --train-batch 256 \
      --train-threads 4 2>&1 | tail -7
fi
if [ -f .devdeps/match.ckpt ]; then
  stamp "match: sum_chains true vs false (GPU)"
  sed "s#@CKPT@#.devdeps/match.ckpt#; s#@DEVICE@#cuda#g; s#@OUT@#/tmp/match#; s#@CONCURRENCY@#$JOBS#; s#^seed: 11#seed: ${PS_MATCH_SEED:-11}#" \
      configs/experiments/chains-sum-vs-best.yaml >/tmp/match.yaml
  timeout "${PS_MATCH_SECONDS:-100}" "$B/papersoccer" tournament /tmp/match.yaml 2>&1 | tail -12
  cp /tmp/match/games.tsv "$OUT/match-games.tsv"
  stamp "match games finished: $(($(wc -l </tmp/match/games.tsv) - 1))"
  awk -F'\t' 'NR > 1 { n[$4]++ } END { for (w in n) print "  winner", w, n[w] }' /tmp/match/games.tsv
fi
stamp "done"
