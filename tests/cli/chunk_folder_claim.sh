#!/bin/sh
# One writer per chunk folder and prefix (loop/role_claim.h, claim_chunk_folder). Two `teacher`
# processes on one --out once ran side by side (2026-12-02: a restart while the first one
# still ran, SIGINT being ignored in a background job) and would have written the same chunk
# names. Checks:
#   - a second teacher on the same --out and --prefix exits 1 at once, naming the holder's pid
#     and what to do; one with another --prefix runs;
#   - after the first is SIGKILLed, a new one takes its claim over and resumes;
#   - `train --data` reads the folder with its claims/ subfolder; no claim is left at the end.
#   chunk_folder_claim.sh PAPERSOCCER WORKDIR
set -u
ps=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
fail() {
  echo "FAIL: $*"
  for f in "$dir"/*.log; do echo "--- $f"; tail -5 "$f"; done
  kill -9 $first 2>/dev/null
  exit 1
}
printf 'selfplay:\n  pitches: [6x8]\n  games_per_chunk: 1\n  teacher: {nodes: 300, tt_mb: 1}\ntrain:\n  net: {preset: tiny}\n  steps: 2\n  batch_size: 16\n  window: {min_samples: 10}\n' > "$dir/t.yaml"
"$ps" teacher "$dir/t.yaml" --out "$dir/d" --games 100000 > "$dir/first.log" 2>&1 &
first=$!
t=0
while [ ! -f "$dir/d/claims/chunks-teacher.claim" ]; do
  t=$((t + 1))
  [ $t -gt 300 ] && fail "no claim after 30 s"
  kill -0 $first 2>/dev/null || fail "the first teacher ended"
  sleep 0.1
done
"$ps" teacher "$dir/t.yaml" --out "$dir/d" --games 100000 > "$dir/second.log" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "a second teacher on the same --out: exit status $rc, expected 1"
grep -q "chunks-teacher is held by pid $first on host" "$dir/second.log" || fail "second: $(cat "$dir/second.log")"
grep -q "give this one another --out or --prefix" "$dir/second.log" || fail "second, no advice: $(cat "$dir/second.log")"
"$ps" teacher "$dir/t.yaml" --out "$dir/d" --prefix other --games 1 > "$dir/other.log" 2>&1 ||
  fail "a teacher with another --prefix: $(tail -3 "$dir/other.log")"
# Wait for a few stored games, then SIGKILL the first: its claim is left, and taken over.
t=0
while [ "$(ls "$dir/d" | grep -c '^teacher-.*\.psd$')" -lt 2 ]; do
  t=$((t + 1))
  [ $t -gt 600 ] && fail "the first teacher stored no 2 chunks in 60 s"
  sleep 0.1
done
kill -9 $first
wait $first 2>/dev/null
[ -f "$dir/d/claims/chunks-teacher.claim" ] || fail "the killed teacher's claim is gone"
stored=$(ls "$dir/d" | grep -c '^teacher-.*\.psd$')
"$ps" teacher "$dir/t.yaml" --out "$dir/d" --games $((stored + 1)) > "$dir/third.log" 2>&1 ||
  fail "the restarted teacher: $(tail -3 "$dir/third.log")"
grep -q "chunks-teacher: took over the claim of pid $first" "$dir/third.log" || fail "third: $(head -3 "$dir/third.log")"
[ -z "$(ls "$dir/d/claims")" ] || fail "claims left: $(ls "$dir/d/claims")"
"$ps" train "$dir/t.yaml" --data "$dir/d" --out "$dir/n.ckpt" > "$dir/train.log" 2>&1 ||
  fail "train --data over the folder: $(tail -3 "$dir/train.log")"
echo PASS
