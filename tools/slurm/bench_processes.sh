#!/bin/bash
# Self-play throughput with 1, 2, 4, ... processes on this machine (docs/SCALING.md): each
# process plays GAMES games of the config's self-play with MODEL (`papersoccer selfplay`, its own
# inference service, as one self-play worker would), all started together; prints per count the
# wall time, the positions of all processes, their sum per second, and the largest peak RSS.
#   tools/slurm/bench_processes.sh EXE CONFIG MODEL GAMES "1 2 4" [WORKDIR]
set -euo pipefail
EXE=$1 CFG=$2 MODEL=$3 GAMES=$4 COUNTS=$5 WORK=${6:-/tmp/ps-bench-processes}
rm -rf "$WORK"
mkdir -p "$WORK"
sed "s/^\(  games:\) *[0-9]*/\1 $GAMES/" "$CFG" > "$WORK/bench.yaml"
printf "%-9s %8s %10s %12s %14s\n" processes wall_s positions positions/s peak_RSS_MiB
for n in $COUNTS; do
  t0=$(date +%s.%N)
  pids=()
  for i in $(seq "$n"); do
    /usr/bin/time -f %M -o "$WORK/rss.$n.$i" "$EXE" selfplay "$WORK/bench.yaml" --net "$MODEL" \
      --out "$WORK/data.$n.$i" --prefix "p$i" > "$WORK/out.$n.$i" 2> /dev/null &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  t1=$(date +%s.%N)
  positions=0 rss=0
  for i in $(seq "$n"); do
    p=$(sed -n 's/.*positions \([0-9]*\) .*/\1/p' "$WORK/out.$n.$i" | tail -1)
    positions=$((positions + p))
    r=$(tail -1 "$WORK/rss.$n.$i")
    [ "$r" -gt "$rss" ] && rss=$r
  done
  awk -v n="$n" -v w="$(echo "$t1 - $t0" | bc)" -v p="$positions" -v r="$rss" \
    'BEGIN { printf "%-9d %8.1f %10d %12.1f %14.0f\n", n, w, p, p / w, r / 1024 }'
done
