#!/bin/sh
# The roles of a shared run directory as plain processes (no scheduler; loop/roles.h): a tiny
# run with a gatekeeper, a trainer and two self-play workers, one of which is killed with
# SIGKILL after it has stored a few games (the gatekeeper held stopped until then, so the run
# cannot finish first); the trainer and the gatekeeper are killed with SIGKILL
# at the same moment and started again (they resume from the directory alone). Checks:
#   - the gatekeeper, the trainer (both restarted) and the surviving worker end by themselves,
#     exit status 0;
#   - state.json says "finished" at the last generation; a network was promoted and exported
#     (best.model, and the trainer's candidates models/gen-*.model, load with `export`);
#   - every game each worker reported stored is in the data (records counted per worker): the
#     killed worker lost at most its games in flight, the other none;
#   - every chunk reads back (`train` over the whole data folder names any bad one);
#   - no temporary file is left but the killed processes' own;
#   - one process per identity (loop/role_claim.h): a second worker with worker A's id, a second
#     gatekeeper and a `run` of the directory are refused at once (exit 1, naming the holder);
#     worker B, SIGKILLed, started again with its id takes its claim over at once and stores
#     exactly its --max-games; the restarted trainer and gatekeeper take theirs over too; every
#     claim is released at the end.
#   roles_processes.sh EXE WORKDIR
set -u
EXE=$1
WORK=$2
rm -rf "$WORK"
mkdir -p "$WORK"
RUN="$WORK/run"
CFG="$WORK/tiny.yaml"
GENS=2
CONCURRENT=2  # as in tiny.yaml
cp "$(dirname "$0")/tiny.yaml" "$CFG"  # generations 2, selfplay.concurrent_games 2
fail() {
  echo "FAIL: $*"
  for f in "$WORK"/*.log; do echo "--- $f"; tail -5 "$f"; done
  kill -9 $gk $tr $wa $wb $wb2 2>/dev/null
  kill -9 $a2 $gk2 $run2 2>/dev/null
  exit 1
}
wb2="" a2="" gk2="" run2=""
T0=$(date +%s)
"$EXE" gatekeeper "$RUN" --config "$CFG" --poll 0.2 > "$WORK/gatekeeper.log" 2>&1 &
gk=$!
"$EXE" train "$CFG" --follow "$RUN" --poll 0.2 > "$WORK/trainer.log" 2>&1 &
tr=$!
"$EXE" selfplay "$CFG" --follow "$RUN" --worker A --poll 0.2 > "$WORK/A.log" 2>&1 &
wa=$!
"$EXE" selfplay "$CFG" --follow "$RUN" --worker B --poll 0.2 > "$WORK/B.log" 2>&1 &
wb=$!

# Wait until all four hold their claims: the identity checks below must run while they run (on
# an idle machine the tiny run can finish before worker B stores 3 games).
t=0
for c in worker-A worker-B trainer gatekeeper; do
  while [ ! -f "$RUN/claims/$c.claim" ]; do
    t=$((t + 1))
    [ $t -gt 600 ] && fail "no claim $c after 60 s"
    sleep 0.1
  done
done
# The gatekeeper is stopped (SIGSTOP) until it is killed below: it alone advances the generation,
# so the run cannot finish before worker B is killed (in CI the whole tiny run once finished
# during the identity checks, worker B ended by itself and its restart had no claim to take over).
kill -STOP $gk
# One process per identity, while all four run: a second worker A (two
# workers of one id lost 129 of 262 games), a second gatekeeper, a `run` of the same directory,
# started at once; each must exit 1 naming the holder.
"$EXE" selfplay --follow "$RUN" --worker A --poll 0.2 > "$WORK/A2.log" 2>&1 &
a2=$!
"$EXE" gatekeeper "$RUN" --poll 0.2 > "$WORK/gatekeeper2.log" 2>&1 &
gk2=$!
"$EXE" run "$CFG" --dir "$RUN" > "$WORK/run2.log" 2>&1 &
run2=$!
wait $a2; rc_a2=$?
wait $gk2; rc_gk2=$?
wait $run2; rc_run2=$?
# (the trainer may have trained every generation meanwhile; worker A and the gatekeeper live on)
for p in $wa $gk; do kill -0 $p 2>/dev/null || fail "worker A or the gatekeeper ended during the identity checks"; done
[ $rc_a2 -eq 1 ] || fail "a second worker A: exit status $rc_a2, expected 1"
grep -q "worker-A is held by pid $wa on host" "$WORK/A2.log" || fail "second worker A: $(cat "$WORK/A2.log")"
grep -q "another --worker id" "$WORK/A2.log" || fail "second worker A: no advice: $(cat "$WORK/A2.log")"
[ $rc_gk2 -eq 1 ] || fail "a second gatekeeper: exit status $rc_gk2, expected 1"
grep -q "gatekeeper is held by pid $gk" "$WORK/gatekeeper2.log" || fail "second gatekeeper: $(cat "$WORK/gatekeeper2.log")"
[ $rc_run2 -eq 1 ] || fail "a run of the directory: exit status $rc_run2, expected 1"
grep -q -e "trainer is held by pid $tr" -e "gatekeeper is held by pid $gk" "$WORK/run2.log" ||
  fail "run of the directory: $(cat "$WORK/run2.log")"
echo "a second worker A, a second gatekeeper and a run of the directory were refused"

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
# Kill the trainer and the gatekeeper too, and start them again.
kill -9 $tr $gk 2>/dev/null
wait $tr $gk 2>/dev/null
# The trainer may have trained every generation while the gatekeeper was stopped and released
# its claim on its way out: whether a claim is left to take over is what the claim file says
# after the kill, not whether the process still ran a moment before (CI, stop 26: the trainer
# ran at the check, exited cleanly before the SIGKILL, and the restart had nothing to take over).
tr_killed=0
[ -f "$RUN/claims/trainer.claim" ] && tr_killed=1
[ -f "$RUN/claims/gatekeeper.claim" ] || fail "the stopped gatekeeper's claim is gone before its restart"
killed="$wb $tr $gk"
"$EXE" gatekeeper "$RUN" --poll 0.2 >> "$WORK/gatekeeper.log" 2>&1 &
gk=$!
"$EXE" train --follow "$RUN" --poll 0.2 >> "$WORK/trainer.log" 2>&1 &
tr=$!
# Worker B again under its id: takes its claim over at once, stores exactly 2 games.
"$EXE" selfplay --follow "$RUN" --worker B --poll 0.2 --max-games 2 > "$WORK/B2.log" 2>&1 &
wb2=$!


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
wait $wb2 || fail "worker B (restarted) exit status $?"
grep -q "worker-B: took over the claim of pid $wb" "$WORK/B2.log" || fail "worker B's claim: $(head -3 "$WORK/B2.log")"
[ $tr_killed = 0 ] || grep -q "trainer: took over the claim of pid" "$WORK/trainer.log" ||
  fail "the trainer's claim was not taken over"
grep -q "gatekeeper: took over the claim of pid" "$WORK/gatekeeper.log" || fail "the gatekeeper's claim was not taken over"
[ -z "$(ls "$RUN/claims")" ] || fail "claims not released: $(ls "$RUN/claims")"
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
b2_reported=$(grep -c 'stored in' "$WORK/B2.log")
echo "worker A: $a_reported reported, $a_stored stored; worker B: $b_reported + $b2_reported (restarted) reported, $b_stored stored"
[ "$a_stored" -eq "$a_reported" ] || fail "worker A: $a_reported games reported, $a_stored stored"
[ "$b2_reported" -le 2 ] || fail "worker B restarted with --max-games 2 stored $b2_reported"
grep -q "the run is finished" "$WORK/B2.log" || [ "$b2_reported" -eq 2 ] ||
  fail "worker B (restarted) ended before its 2 games and before the run"
b_reported=$((b_reported + b2_reported))
[ "$b_stored" -ge "$b_reported" ] || fail "worker B lost stored games: $b_reported reported, $b_stored stored"
[ "$b_stored" -le $((b_reported + CONCURRENT)) ] || fail "worker B: more games stored than it played"
ls "$RUN"/data/ | grep -q -- "-B-" || fail "no chunks named by worker B"

# Every chunk reads back.
sed 's/steps: 30,/steps: 1,/' "$CFG" > "$WORK/check.yaml"
"$EXE" train "$WORK/check.yaml" --data "$RUN/data" --out "$WORK/check.ckpt" > "$WORK/check.log" 2>&1 ||
  fail "the data does not read back: $(tail -3 "$WORK/check.log")"

# Temporaries: only the killed processes' may be left.
left=$(find "$RUN" -name '*.tmp.*' | grep -v -E "\.tmp\.($(echo $killed | tr ' ' '|'))\$")
[ -z "$left" ] || fail "temporary files left: $left"
echo "PASS"
