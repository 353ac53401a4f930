#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz with clang (ASan + UBSan + fuzzer coverage on
# the whole project) in ./build-fuzz and runs one of them.
#   tools/fuzz.sh                    # list the targets
#   tools/fuzz.sh record 600         # fuzz record parsing for 600 s (default 60)
#   tools/fuzz.sh smoke              # every target ~25 s over its seed corpus (ctest -L fuzz)
# The working corpus grows in build-fuzz/corpus/TARGET (seeded from tests/fuzz/corpus/TARGET);
# crashes, leaks, timeouts and OOMs are written to build-fuzz/artifacts/TARGET/. Reproduce one
# with build-fuzz/tests/fuzz/fuzz_TARGET FILE. Extra libFuzzer flags: PS_FUZZ_FLAGS (the long
# runs used "-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1" to go on after a
# finding); another build directory: PS_FUZZ_BUILD_DIR; build jobs: PS_JOBS (2).
# Exit status 77 when clang or libFuzzer is missing (ctest counts it as skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
TARGETS="record pgn tsv protocol data config checkpoint"
BUILD=${PS_FUZZ_BUILD_DIR:-build-fuzz}
target=${1:-}
seconds=${2:-60}
if [ -z "$target" ]; then
  echo "usage: tools/fuzz.sh TARGET [SECONDS] | smoke    targets: $TARGETS"
  exit 2
fi
CC_BIN=$(command -v clang || command -v clang-14 || true)
CXX_BIN=$(command -v clang++ || command -v clang++-14 || true)
if [ -z "$CXX_BIN" ] || ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
     "$CXX_BIN" -x c++ -fsanitize=fuzzer,address,undefined -o /dev/null - 2>/dev/null; then
  echo "fuzz: clang with libFuzzer not found (apt-get install clang libclang-rt-14-dev); skipped"
  exit 77
fi
if [ ! -f "$BUILD/build.ninja" ]; then
  CC="$CC_BIN" CXX="$CXX_BIN" cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPS_FUZZ=ON >/dev/null
fi
JOBS=${PS_JOBS:-2}
if [ "$target" = smoke ]; then
  nice -n 10 cmake --build "$BUILD" -j "$JOBS" --target $(for t in $TARGETS; do echo fuzz_$t; done)
  exec nice -n 10 ctest --test-dir "$BUILD" -L fuzz --output-on-failure
fi
case " $TARGETS " in *" $target "*) ;; *) echo "fuzz: unknown target '$target' ($TARGETS)"; exit 2;; esac
nice -n 10 cmake --build "$BUILD" -j "$JOBS" --target "fuzz_$target"
mkdir -p "$BUILD/corpus/$target" "$BUILD/artifacts/$target"
exec nice -n 10 "$BUILD/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -rss_limit_mb=2048 \
  -timeout=10 -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$target/" ${PS_FUZZ_FLAGS:-} \
  "$BUILD/corpus/$target" "tests/fuzz/corpus/$target"
