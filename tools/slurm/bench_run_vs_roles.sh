#!/bin/bash
# docs/SCALING.md: `run` (alternating, one process) against the roles as processes
# (gatekeeper, trainer, 2 self-play workers) on the tiny config of
# tests/scaling/roles_processes.sh with 3 generations, one after the other, twice.
#   tools/slurm/bench_run_vs_roles.sh EXE [WORKDIR]
EXE=$1; W=${2:-/tmp/ps-run-vs-roles}; mkdir -p $W
cp "$(dirname "$0")/../../tests/scaling/tiny.yaml" $W/tiny.yaml
G="--generations 3"
run: {name: cmp, generations: 3, pitch: 6x8}
service: {max_batch: 8, batch_timeout_us: 0, workers: 1, torch_threads: 1}
selfplay: {games: 8, concurrent_games: 2, visits: 8, cheap_visits: 4, games_per_chunk: 2}
train: {net: {preset: tiny}, threads: 1, batch_size: 16, steps: 30, rows_per_sample: 4, checkpoint_interval: 10, log_interval: 10, window: {min_samples: 50}}
evaluate: {games: 2, final_games: 2, visits: 8, opening_turns: 1, concurrency: 1}
YAML
for rep in 1 2; do
rm -rf $W/run-alt $W/run-roles
t0=$(date +%s.%N)
/usr/bin/time -f %M -o $W/alt.rss $EXE run $W/tiny.yaml --dir $W/run-alt $G > $W/alt.log 2>&1
t1=$(date +%s.%N)
$EXE gatekeeper $W/run-roles --config $W/tiny.yaml $G --poll 0.2 > $W/gk.log 2>&1 & gk=$!
$EXE train $W/tiny.yaml --follow $W/run-roles $G --poll 0.2 > $W/tr.log 2>&1 & tr=$!
$EXE selfplay $W/tiny.yaml --follow $W/run-roles --worker A $G --poll 0.2 > $W/a.log 2>&1 & a=$!
$EXE selfplay $W/tiny.yaml --follow $W/run-roles --worker B $G --poll 0.2 > $W/b.log 2>&1 & b=$!
wait $gk; t2=$(date +%s.%N); wait $tr $a $b
alt_games=$(cat $W/run-alt/data/*.tsv | wc -l); roles_games=$(cat $W/run-roles/data/*.tsv | wc -l)
echo "rep $rep: run (alternating) $(echo "$t1 - $t0" | bc) s, $alt_games games; roles $(echo "$t2 - $t1" | bc) s to finished, $roles_games games"
grep "^gen 3 |" $W/alt.log | cut -c1-120; grep "^gen 3 |" $W/gk.log | cut -c1-120
done
