#!/bin/sh
# The roles of a shared run directory as plain processes (no scheduler; loop/roles.h): a tiny
# run with a gatekeeper, a trainer and two self-play workers, one of which is killed with
# SIGKILL after it has stored a few games. Checks:
#   - the gatekeeper, the trainer and the surviving worker end by themselves, exit status 0;
#   - state.json says "finished" at the last generation; a network was promoted and exported
#     (best.model, and the trainer's candidates models/gen-*.model, load with `export`);
#   - every game each worker reported stored is in the data (records counted per worker): the
#     killed worker lost at most its games in flight, the other none;
#   - every chunk reads back (`train` over the whole data folder names any bad one);
#   - no temporary file is left but the killed worker's own.
#   roles_processes.sh EXE WORKDIR
set -u
EXE=$1
WORK=$2
rm -rf "$WORK"
mkdir -p "$WORK"
RUN="$WORK/run"
CFG="$WORK/tiny.yaml"
GENS=2
CONCURRENT=2
cat > "$CFG" <<YAML
run: {name: roles, generations: $GENS, pitch: 6x8}
service: {max_batch: 8, batch_timeout_us: 0, workers: 1, torch_threads: 1}
selfplay: {games: 6, concurrent_games: $CONCURRENT, visits: 8, cheap_visits: 4, games_per_chunk: 2}
train: {net: {preset: tiny}, threads: 1, batch_size: 16, steps: 30, rows_per_sample: 4, checkpoint_interval: 10, log_interval: 10, window: {min_samples: 50}}
evaluate: {games: 2, final_games: 2, visits: 8, openings: 1, opening_turns: 1, concurrency: 1}
YAML
fail() {
  echo "FAIL: $*"
  for f in "$WORK"/*.log; do echo "--- $f"; tail -5 "$f"; done
  kill -9 $gk $tr $wa $wb 2>/dev/null
  exit 1
}
T0=$(date +%s)
"$EXE" gatekeeper "$RUN" --config "$CFG" --poll 0.2 > "$WORK/gatekeeper.log" 2>&1 &
gk=$!
"$EXE" train "$CFG" --follow "$RUN" --poll 0.2 > "$WORK/trainer.log" 2>&1 &
tr=$!
"$EXE" selfplay "$CFG" --follow "$RUN" --worker A --poll 0.2 > "$WORK/A.log" 2>&1 &
wa=$!
"$EXE" selfplay "$CFG" --follow "$RUN" --worker B --poll 0.2 > "$WORK/B.log" 2>&1 &
wb=$!

# Kill worker B once it has stored 3 games (its games in flight are lost).
t=0
while [ "$(grep -c 'stored in' "$WORK/B.log" 2>/dev/null)" -lt 3 ]; do
  kill -0 $wb 2>/dev/null || fail "worker B ended before it was killed"
  t=$((t + 1))
  [ $t -gt 600 ] && fail "worker B stored no 3 games in 60 s"
  sleep 0.1
done
kill -9 $wb
wait $wb 2>/dev/null
b_reported=$(grep -c 'stored in' "$WORK/B.log")
echo "killed worker B after it reported $b_reported games stored"

# The others end by themselves once the last generation is done.
t=0
while kill -0 $gk 2>/dev/null; do
  t=$((t + 1))
  [ $t -gt 1500 ] && fail "the gatekeeper did not finish within 150 s"
  sleep 0.1
done
wait $gk || fail "gatekeeper exit status $?"
wait $tr || fail "trainer exit status $?"
wait $wa || fail "worker A exit status $?"
echo "run finished in $(( $(date +%s) - T0 )) s"

grep -q '"phase": *"finished"' "$RUN/state.json" || fail "state.json: $(cat "$RUN/state.json")"
grep -q "\"generation\": *$GENS" "$RUN/state.json" || fail "state.json is not at generation $GENS"
grep -q '"best": *"gen-0000"' "$RUN/state.json" && fail "no network was promoted"
grep -q "the run is finished" "$WORK/A.log" || fail "worker A did not see the run finish"
for m in "$RUN/best.model" "$RUN/models/gen-0001.model" "$RUN/models/gen-000$GENS.model"; do
  "$EXE" export "$m" "$WORK/check.model" > /dev/null 2>&1 || fail "$m does not load"
done

# Every reported game is stored: records (one line per game) per worker.
records() { cat "$RUN"/data/gen*-"$1"-*.tsv 2>/dev/null | grep -c .; }
a_reported=$(grep -c 'stored in' "$WORK/A.log")
a_stored=$(records A)
b_stored=$(records B)
echo "worker A: $a_reported reported, $a_stored stored; worker B: $b_reported reported, $b_stored stored"
[ "$a_stored" -eq "$a_reported" ] || fail "worker A: $a_reported games reported, $a_stored stored"
[ "$b_stored" -ge "$b_reported" ] || fail "worker B lost stored games: $b_reported reported, $b_stored stored"
[ "$b_stored" -le $((b_reported + CONCURRENT)) ] || fail "worker B: more games stored than it played"
ls "$RUN"/data/ | grep -q -- "-B-" || fail "no chunks named by worker B"

# Every chunk reads back.
sed 's/steps: 30,/steps: 1,/' "$CFG" > "$WORK/check.yaml"
"$EXE" train "$WORK/check.yaml" --data "$RUN/data" --out "$WORK/check.ckpt" > "$WORK/check.log" 2>&1 ||
  fail "the data does not read back: $(tail -3 "$WORK/check.log")"

# Temporaries: only the killed worker's may be left.
left=$(find "$RUN" -name '*.tmp.*' ! -name "*.tmp.$wb")
[ -z "$left" ] || fail "temporary files left: $left"
echo "PASS"
