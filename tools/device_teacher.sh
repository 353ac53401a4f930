#!/usr/bin/env bash
# Teacher games on a lent machine's many cores (issue 12): builds `papersoccer` (CPU only is
# enough: the teacher is alpha-beta with the small value net, no LibTorch call) against the
# LibTorch inside the machine's Python torch, with the Debian packages carried as .deb files in
# .devdeps/ (the list and how to fetch them: tools/device_check.sh; zlib1g-dev too), then runs
#   papersoccer teacher CONFIG --out $OUT/data --prefix PREFIX
# with one game per core until the deadline, and stops it there. Games already finished stay in
# their chunks (each chunk is rewritten atomically after every game); the games still being played
# are lost. Merge the chunks into the local data folder: another prefix means other game seeds
# (a game's seed comes from the prefix and its index), so they never repeat the local games.
#   PS_TEACHER_CONFIG  (configs/experiments/teacher-window-8x10.yaml)
#   PS_TEACHER_PREFIX  (device; letters, digits, _ or .)
#   PS_DEVICE_SECONDS  seconds from the start of this script to stop the teacher (540)
# `serve` is left out of the build (-DPS_WITH_SERVE=OFF): the machine has no cpp-httplib.
set -uo pipefail
cd "$(dirname "$0")/.."
source tools/device_env.sh  # OUT, stamp; DEPS, TORCH_PREFIX, TORCH_ROOT, LD_LIBRARY_PATH, JOBS
CONFIG="${PS_TEACHER_CONFIG:-configs/experiments/teacher-window-8x10.yaml}"
PREFIX="${PS_TEACHER_PREFIX:-device}"
DEADLINE=$(( T0 + ${PS_DEVICE_SECONDS:-540} ))

stamp "machine"
nproc; lscpu 2>/dev/null | grep -E "Model name|^CPU\(s\)|Thread|Core" | head -4; g++ --version 2>&1 | head -1

B=build-device

stamp "configure"
if ! cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER= -DPS_WITH_SERVE=OFF \
     -DCMAKE_CUDA_ARCHITECTURES=90 -DTORCH_CUDA_ARCH_LIST=9.0 -Wno-dev \
     -DCMAKE_PREFIX_PATH="$TORCH_PREFIX;$DEPS/usr" >"$OUT/configure.log" 2>&1; then
  tail -30 "$OUT/configure.log"; stamp "configure failed"; exit 1
fi
stamp "build"
if ! cmake --build "$B" -j "$JOBS" --target papersoccer >"$OUT/build.log" 2>&1; then
  grep -E "error|Error" "$OUT/build.log" | head -30; stamp "build failed"; exit 1
fi
stamp "built"

sed "s/^\(  concurrent_games:\) *[0-9]*/\1 $JOBS/" "$CONFIG" >/tmp/teacher.yaml
grep -E "concurrent_games|value_net|nodes" /tmp/teacher.yaml
LEFT=$(( DEADLINE - $(date +%s) ))
[ "$LEFT" -lt 30 ] && { stamp "no time left for games"; exit 1; }
stamp "teacher for $LEFT s, $JOBS games at a time, prefix $PREFIX"
timeout -s TERM "$LEFT" "$B/papersoccer" teacher /tmp/teacher.yaml --out "$OUT/data" --prefix "$PREFIX" \
  >"$OUT/teacher.log" 2>&1
tail -c 400 "$OUT/teacher.log"; echo
games=$(cat "$OUT"/data/"$PREFIX"-*.tsv 2>/dev/null | wc -l)
stamp "stopped: $games games in $OUT/data"
# The device tool brings back a limited number of files: one archive of the chunks.
tar -cf "$OUT/$PREFIX.tar" -C "$OUT/data" . && rm -rf "$OUT/data"
ls -la "$OUT"
