#!/usr/bin/env bash
# Teacher games on a larger machine's many cores: builds `papersoccer` (CPU only is
# enough: the teacher is alpha-beta with the small value net, no LibTorch call) against the
# LibTorch inside the machine's Python torch, with the Debian packages carried as .deb files in
# .devdeps/ (the list and how to fetch them: tools/device_check.sh), then runs
#   papersoccer teacher CONFIG --out $OUT/data --prefix PREFIX
# with one game per core until the deadline, and stops it there. Games already finished stay in
# their chunks (each chunk is rewritten atomically after every game); the games still being played
# are lost. The chunks come back as one archive, $OUT/PREFIX.tar (the device tool returns a
# limited number of files). A game's seed comes from its prefix and its index, so every run needs
# a prefix of its own: the same prefix on a fresh machine replays the same games.
#   PS_TEACHER_PREFIX  required: letters, digits, _ or . (e.g. device3; not one used before)
#   PS_TEACHER_CONFIG  (configs/experiments/teacher-window-8x10.yaml)
#   PS_DEVICE_SECONDS  seconds from the start of this script to stop the teacher (540)
# With the device tool: command `PS_TEACHER_PREFIX=device3 PS_DEVICE_SECONDS=560 bash
# tools/device_teacher.sh`, carry [".devdeps"], timeout_s at least PS_DEVICE_SECONDS + 20. Then
# here: `tar -xf PREFIX.tar -C runs/teacher-window/device` and copy those chunks beside the
# local ones into the folder `train-value --data` reads.
# `serve` is left out of the build (-DPS_WITH_SERVE=OFF): the machine has no cpp-httplib.
set -uo pipefail
cd "$(dirname "$0")/.."
CONFIG="${PS_TEACHER_CONFIG:-configs/experiments/teacher-window-8x10.yaml}"
PREFIX="${PS_TEACHER_PREFIX:-}"
SECONDS_GIVEN="${PS_DEVICE_SECONDS:-540}"
# The inputs are checked before the build, which takes a good part of the machine's time.
fail() { echo "device_teacher.sh: $*" >&2; exit 2; }
[[ "$PREFIX" =~ ^[A-Za-z0-9_.]+$ ]] ||
  fail "PS_TEACHER_PREFIX '$PREFIX': give one of letters, digits, _ or . (a new one per run)"
[[ "$SECONDS_GIVEN" =~ ^[0-9]+$ ]] || fail "PS_DEVICE_SECONDS '$SECONDS_GIVEN': a whole number of seconds"
[ -f "$CONFIG" ] || fail "PS_TEACHER_CONFIG $CONFIG: no such file"
grep -q '^  concurrent_games:' "$CONFIG" ||
  fail "$CONFIG: no line '  concurrent_games: N' under selfplay: to set to the machine's cores"
source tools/device_env.sh  # OUT, stamp; DEPS, TORCH_PREFIX, TORCH_ROOT, LD_LIBRARY_PATH, JOBS, CMAKE_COMMON
DEADLINE=$(( T0 + SECONDS_GIVEN ))

stamp "machine"
nproc; lscpu 2>/dev/null | grep -E "Model name|^CPU\(s\)|Thread|Core" | head -4; g++ --version 2>&1 | head -1

B=build-device

stamp "configure"
if ! cmake -S . -B "$B" "${CMAKE_COMMON[@]}" -DPS_WITH_SERVE=OFF \
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
rc=$?  # 124: stopped at the deadline, as meant
tail -c 400 "$OUT/teacher.log"; echo
mkdir -p "$OUT/data"
games=$(cat "$OUT"/data/"$PREFIX"-*.tsv 2>/dev/null | wc -l)
stamp "stopped (teacher exit $rc): $games games in $OUT/data"
# The device tool brings back a limited number of files: one archive of the chunks (without the
# claims folder: the device's claim file means nothing on another machine).
tar -cf "$OUT/$PREFIX.tar" -C "$OUT/data" --exclude=./claims . && rm -rf "$OUT/data"
ls -la "$OUT"
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; then stamp "the teacher failed (exit $rc): $OUT/teacher.log"; exit 1; fi
[ "$games" -gt 0 ] || { stamp "no game finished"; exit 1; }
