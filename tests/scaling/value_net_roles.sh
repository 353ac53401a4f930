#!/bin/sh
# A value-net run (run.learner: value-net; loop/value_net_run.h) with teacher workers as plain
# processes: worker B started first without a config (it waits for RUNDIR/config.yaml), worker
# A with the config (it writes config.yaml) and --max-games 3, worker B killed with SIGKILL after
# a stored game and started again, then `run` to the end. Checks:
#   - worker A stores exactly 3 games and ends; `run` and worker B end by themselves, exit 0,
#     B saying the run is finished;
#   - every game each worker reported stored is in the teacher's chunks; generation 1 holds at
#     least its 12 games, and `run`'s log counts them all;
#   - the trainer and gatekeeper roles refuse a value-net run, naming it.
#   value_net_roles.sh EXE WORKDIR
set -u
EXE=$1
WORK=$2
rm -rf "$WORK"
mkdir -p "$WORK"
RUN="$WORK/run"
CFG="$WORK/tiny-value-net.yaml"
cp "$(dirname "$0")/tiny-value-net.yaml" "$CFG"
fail() {
  echo "FAIL: $*"
  for f in "$WORK"/*.log; do echo "--- $f"; tail -5 "$f"; done
  kill -9 $wb $wb2 2>/dev/null
  exit 1
}
wb="" wb2=""
"$EXE" selfplay --follow "$RUN" --worker B --poll 0.2 > "$WORK/B.log" 2>&1 &
wb=$!
t=0
until grep -q "waiting for $RUN/config.yaml" "$WORK/B.log"; do
  t=$((t + 1)); [ $t -gt 600 ] && fail "worker B does not wait for config.yaml"; sleep 0.1
done
"$EXE" selfplay "$CFG" --follow "$RUN" --worker A --poll 0.2 --max-games 3 > "$WORK/A.log" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "worker A: exit status $rc"
grep -q "worker A: 3 games stored" "$WORK/A.log" || fail "worker A: not 3 games"
t=0
until grep -q "worker B: game 1 stored" "$WORK/B.log"; do
  t=$((t + 1)); [ $t -gt 1200 ] && fail "worker B stored no game in 120 s"; sleep 0.1
done
kill -9 $wb
wait $wb 2>/dev/null
b_before=$(grep -c "worker B: game .* stored" "$WORK/B.log")
"$EXE" selfplay --follow "$RUN" --worker B --poll 0.2 > "$WORK/B2.log" 2>&1 &
wb2=$!
"$EXE" run "$CFG" --dir "$RUN" > "$WORK/run.log" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "run: exit status $rc"
t=0
while kill -0 $wb2 2>/dev/null; do
  t=$((t + 1)); [ $t -gt 600 ] && fail "worker B did not end with the run"; sleep 0.1
done
wait $wb2
rc=$?
[ $rc -eq 0 ] || fail "worker B (restarted): exit status $rc"
grep -q "worker B: the run is finished (generation 2)" "$WORK/B2.log" || fail "worker B: no end line"
# Every reported game is on disk (the killed B may have lost only games in flight, which it never reported).
records() { cat "$RUN"/data/teacher-*/"$1"*.tsv 2>/dev/null | wc -l; }
[ "$(records w-A-)" -eq 3 ] || fail "worker A: $(records w-A-) games in its chunks, 3 reported"
b_after=$(grep -c "worker B: game .* stored" "$WORK/B2.log")
[ "$(records w-B-)" -ge $((b_before + b_after)) ] ||
  fail "worker B: $(records w-B-) games in its chunks, $((b_before + b_after)) reported"
grep -q '"generation":1.*"teacher_games":1[2-9]\|"generation":1.*"teacher_games":[2-9][0-9]' "$RUN/logs/generations.jsonl" ||
  grep -q '"teacher_games":1[2-9].*"generation":1\|"teacher_games":[2-9][0-9].*"generation":1' "$RUN/logs/generations.jsonl" ||
  fail "generation 1's teacher games: $(head -1 "$RUN/logs/generations.jsonl")"
# The resnet roles refuse it by name.
"$EXE" train --follow "$RUN" > "$WORK/train.log" 2>&1 && fail "train --follow accepted a value-net run"
grep -q "a value-net run (run.learner: value-net) has no trainer role" "$WORK/train.log" || fail "train: $(cat "$WORK/train.log")"
"$EXE" gatekeeper "$RUN" > "$WORK/gk.log" 2>&1 && fail "gatekeeper accepted a value-net run"
grep -q "has no gatekeeper role" "$WORK/gk.log" || fail "gatekeeper: $(cat "$WORK/gk.log")"
echo "PASS"
