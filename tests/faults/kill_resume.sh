#!/bin/sh
# Fault test: a shortened quickstart killed with SIGKILL at random moments, KILLS times, then
# resumed to the end. Every resume must complete; nothing on disk may be corrupt or
# half-written; at most the games in flight and the current training step are lost.
#   kill_resume.sh EXE WORKDIR KILLS SEED [MODE]
# MODE "random" (default): each kill comes 0.5-4.5 s after a start (seeded), and the kills must
# have hit self-play, training and evaluation each at least once (the long `slow` variant, 24
# kills). MODE "phases": kill i waits until the run is in phase selfplay, train or evaluate
# (in turn; state.json polled every 0.05 s), then kills 0.05-0.3 s into it, so a few kills cover
# every phase whatever the speed of the machine (the CI variant). A phase of the quick variant
# lasts about 0.5 s or more on an idle 2-core machine (self-play of 32 games: ~0.55 s); with the
# 16 games it had, self-play took 0.27 s and a 0.1-0.6 s kill missed it.
# Checks after the last resume:
#   - the run finishes (state.json phase "finished", every generation's checkpoint exists);
#   - every data chunk is complete: each generation holds exactly selfplay.games games, read
#     back by `papersoccer train` over the whole data folder (which names any bad chunk);
#   - every checkpoint and best.model load and verify their checksum (`export`);
#   - no temporary file is left beside the files it was written for;
#   - the report is written from what is on disk.
set -u
EXE=$1
WORK=$2
KILLS=${3:-6}
SEED=${4:-1}
MODE=${5:-random}
rm -rf "$WORK"
mkdir -p "$WORK"
RUN="$WORK/run"
CFG="$WORK/tiny.yaml"
GAMES=32
GENS=3
STEPS=150
EVAL=4
if [ "$KILLS" -ge 20 ]; then  # the long variant: enough work that 24 kills spread over every phase
  GAMES=40
  GENS=12  # 4 finished after 8 of 24 kills on an idle 2-core machine
  STEPS=300
  EVAL=10
fi
cat > "$CFG" <<YAML
run: {name: kill, generations: $GENS, pitch: 6x8, dir: $RUN}
service: {max_batch: 8, batch_timeout_us: 0, workers: 1}
selfplay: {games: $GAMES, concurrent_games: 4, visits: 16, cheap_visits: 8, games_per_chunk: 2}
train: {net: {preset: tiny}, threads: 1, batch_size: 16, steps: $STEPS, checkpoint_interval: 10, log_interval: 10, window: {min_samples: 50}}
evaluate: {games: $EVAL, final_games: $EVAL, visits: 8, opening_turns: 1, concurrency: 2}
YAML
fail() { echo "FAIL: $*"; exit 1; }

# Pseudo-random delays in tenths of a second (awk's rand, seeded): 0.5 .. 4.5 s after a start
# (LibTorch and the network load in about 0.5 s).
delays=$(awk -v n="$KILLS" -v s="$SEED" 'BEGIN { srand(s); for (i = 0; i < n; i++) printf "%.1f ", 0.5 + 4.0 * rand() }')
phases=""
phase_now() { sed -n 's/.*"phase": *"\([^"]*\)".*/\1/p' "$RUN/state.json" 2>/dev/null; }
k=0
i=0
for d in $delays; do
  grep -q '"phase": *"finished"' "$RUN/state.json" 2>/dev/null && break
  "$EXE" run "$CFG" > "$WORK/out.$k.log" 2>&1 &
  pid=$!
  if [ "$MODE" = phases ]; then
    case $((i % 3)) in 0) want=selfplay ;; 1) want=train ;; *) want=evaluate ;; esac
    t=0
    while kill -0 "$pid" 2>/dev/null && [ $t -lt 1200 ]; do
      case "$(phase_now)" in "$want "*) break ;; esac
      sleep 0.05
      t=$((t + 1))
    done
    d=$(awk -v d="$d" 'BEGIN { printf "%.2f", 0.05 + (d - 0.5) * 0.25 / 4.0 }')
  fi
  i=$((i + 1))
  sleep "$d"
  if kill -0 "$pid" 2>/dev/null; then
    phase=$(sed -n 's/.*"phase": *"\([^"]*\)".*/\1/p' "$RUN/state.json" 2>/dev/null)
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    k=$((k + 1))
    echo "kill $k after ${d} s (phase: ${phase:-starting})"
    phases="$phases ${phase%% *}"
  else
    wait "$pid"
    st=$?
    [ $st -eq 0 ] || { cat "$WORK/out.$k.log"; fail "run exited with status $st before it was killed"; }
  fi
done
echo "$k kills; resuming to the end"
if [ $k -lt $((KILLS / 2)) ]; then
  fail "only $k of $KILLS kills landed before the run finished: make the run longer"
fi
for p in selfplay train evaluate; do
  case " $phases " in *" $p "*) ;; *) fail "no kill landed in phase $p (phases:$phases)" ;; esac
done
"$EXE" run "$CFG" > "$WORK/final.log" 2>&1 || { cat "$WORK/final.log"; fail "the final resume failed"; }
tail -5 "$WORK/final.log"

grep -q '"phase": *"finished"' "$RUN/state.json" || fail "state.json is not finished: $(cat "$RUN/state.json")"
g=0
while [ $g -le $GENS ]; do
  c=$(printf '%s/checkpoints/gen-%04d.ckpt' "$RUN" $g)
  [ -f "$c" ] || fail "missing $c"
  "$EXE" export "$c" "$WORK/check.model" > /dev/null 2>&1 || fail "checkpoint $c does not load"
  g=$((g + 1))
done
"$EXE" show --record "" > /dev/null || fail "show"
"$EXE" analyse --record "" --pitch 6x8 --model "$RUN/best.model" --visits 4 > /dev/null 2>&1 ||
  fail "best.model does not load"

# Games on disk per generation: the TSV index beside each chunk holds one line per game.
g=0
while [ $g -lt $GENS ]; do
  n=$(cat $(printf '%s/data/gen%04d-*.tsv' "$RUN" $g) 2>/dev/null | grep -c '^[0-9]')
  [ "$n" -eq $GAMES ] || fail "generation $g holds $n games on disk, expected $GAMES"
  g=$((g + 1))
done
# Every chunk reads back (train over the whole folder names any bad chunk and fails on none).
"$EXE" train "$CFG" --data "$RUN/data" --out "$WORK/retrain.ckpt" > "$WORK/retrain.log" 2>&1 ||
  { cat "$WORK/retrain.log"; fail "the data folder does not read back"; }
grep -qi "skip\|corrupt\|warning" "$WORK/retrain.log" && { cat "$WORK/retrain.log"; fail "a chunk was skipped"; }

left=$(find "$RUN" -name '*.tmp*' -o -name '.*.tmp' | head -5)
[ -z "$left" ] || fail "temporary files left: $left"
"$EXE" report "$RUN" > /dev/null || fail "report"
echo "ok: $k kills, the run finished, all files load"
