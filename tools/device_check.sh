#!/usr/bin/env bash
# One-call GPU check (see docs/BENCHMARKS.md, "CUDA"): builds the project against the CUDA
# LibTorch that ships inside the machine's Python torch, runs the CUDA tests and the nn, search
# and self-play benchmarks on the GPU, then a sum-chains vs best-chain match (all cores).
#
# The machine has no package registry: the Debian packages the build needs (yaml-cpp, TBB,
# zstd, CLI11, nlohmann-json, Eigen, Catch2) travel as .deb files in .devdeps/ (fetched on a
# Debian 12 machine with `apt-get download`, see the list below) and are unpacked with dpkg -x
# into a private prefix. A trained checkpoint for the match may travel as .devdeps/match.ckpt.
#   apt-get download libcli11-dev libtbb-dev libtbb12 libtbbmalloc2 libtbbbind-2-5 \
#     libyaml-cpp-dev libyaml-cpp0.7 nlohmann-json3-dev libeigen3-dev catch2 libzstd-dev libzstd1
# Logs go to $OUT (the device tool's output folder) or ./device-out.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/device-out}"
mkdir -p "$OUT"
exec > >(tee "$OUT/device.log") 2>&1
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }

stamp "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm --format=csv 2>&1 | head -3
nproc; command -v g++ c++ cmake ninja nvcc; g++ --version 2>&1 | head -1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cxx11abi", torch._C._GLIBCXX_USE_CXX11_ABI, "gpu", torch.cuda.is_available())'

DEPS=/tmp/psdeps
mkdir -p "$DEPS"
for f in .devdeps/*.deb; do dpkg -x "$f" "$DEPS"; done
TORCH_PREFIX=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
TORCH_ROOT=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))')
export LD_LIBRARY_PATH="$DEPS/usr/lib/x86_64-linux-gnu:$TORCH_ROOT/lib:${LD_LIBRARY_PATH:-}"
B=build-cuda
JOBS=$(nproc)

stamp "configure (LibTorch's CMake package)"
common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER=
        -DCMAKE_CUDA_ARCHITECTURES=90 -DTORCH_CUDA_ARCH_LIST=9.0 -Wno-dev)
if ! cmake -S . -B "$B" "${common[@]}" -DCMAKE_PREFIX_PATH="$TORCH_PREFIX;$DEPS/usr" \
     >"$OUT/configure.log" 2>&1; then
  tail -25 "$OUT/configure.log"
  stamp "configure failed; fallback: LibTorch linked directly (PS_TORCH_ROOT)"
  rm -rf "$B"
  cmake -S . -B "$B" "${common[@]}" -DPS_TORCH_ROOT="$TORCH_ROOT" \
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
"$B/tests/nn/test_nn" "[cuda]" -s 2>&1 | grep -E "warning|max \||passed|failed|FAILED|REQUIRE|CHECK|with expansion" | head -40
"$B/tests/nn/test_nn" 2>&1 | tail -3
"$B/tests/train/test_train" "[cuda]" 2>&1 | tail -15

stamp "bench nn (GPU)"
"$B/papersoccer" bench nn --device cuda --nets tiny,medium --batches 1,8,32,128,512 \
    --submitters 64 --seconds 0.5 --rounds 2 --threads 4 2>&1 | tail -30
stamp "bench selfplay (GPU)"
"$B/papersoccer" bench selfplay --device cuda --nets tiny,medium --games 32 \
    --concurrent-games 32 --max-batch 64 --workers 2 --train-steps 50 \
    --train-batch 256,1024 --train-threads 4 2>&1 | tail -14
stamp "bench search (GPU nets)"
"$B/papersoccer" bench search --device cuda --positions 8 --visits 400 --cost-us 100 \
    --net-visits 400 --uct-playouts 500 2>&1 | tail -12
if [ -f .devdeps/match.ckpt ]; then
  stamp "match: sum_chains true vs false (GPU)"
  sed "s#@CKPT@#.devdeps/match.ckpt#; s#@DEVICE@#cuda#g; s#@OUT@#/tmp/match#; s#@CONCURRENCY@#$JOBS#" \
      configs/experiments/chains-sum-vs-best.yaml >/tmp/match.yaml
  timeout "${PS_MATCH_SECONDS:-120}" "$B/papersoccer" tournament /tmp/match.yaml 2>&1 | tail -12
  cp /tmp/match/games.tsv "$OUT/match-games.tsv"
  stamp "match games finished: $(($(wc -l </tmp/match/games.tsv) - 1))"
  awk -F'\t' 'NR > 1 { n[$4]++ } END { for (w in n) print "  winner", w, n[w] }' /tmp/match/games.tsv
fi
stamp "done"
