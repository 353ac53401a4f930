#!/bin/sh
# `run` stopped by SIGTERM saves its state and exits with 143 (128 + 15; it exited 130, the
# SIGINT status, before).   run_sigterm.sh PAPERSOCCER WORKDIR
set -u
exe=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cat > "$work/c.yaml" <<YAML
run: {name: sigterm, generations: 1, pitch: 6x8, dir: $work/run}
service: {max_batch: 4, batch_timeout_us: 0}
selfplay: {games: 100000, concurrent_games: 2, visits: 8, cheap_visits: 4, games_per_chunk: 4}
train: {net: {preset: tiny}, threads: 1, batch_size: 16, steps: 10}
evaluate: {games: 2, final_games: 2, visits: 4, opening_turns: 1, concurrency: 1}
YAML
"$exe" run "$work/c.yaml" > "$work/out.txt" 2>&1 &
pid=$!
# Wait until self-play has stored a game (the run is past its start-up), at most 60 s.
i=0
while [ $i -lt 600 ] && ! ls "$work"/run/data/*.psd > /dev/null 2>&1; do
  sleep 0.1
  i=$((i + 1))
done
kill -TERM $pid
wait $pid
status=$?
cat "$work/out.txt"
if [ $status -ne 143 ]; then
  echo "FAIL: exit status $status after SIGTERM; expected 143"
  exit 1
fi
grep -q '"phase": "interrupted"' "$work/run/state.json" || { echo "FAIL: state.json not saved as interrupted"; exit 1; }
echo "ok: 143"
