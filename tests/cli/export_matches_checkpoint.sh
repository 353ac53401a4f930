#!/bin/sh
# An exported model gives the same analysis as the checkpoint it came from.
#   export_matches_checkpoint.sh PAPERSOCCER WORKDIR
# Writes a tiny checkpoint (init-net), exports it, and for positions on both pitch lengths
# (8x10 and 8x12; start, middle and late positions; record, kick-list, TSV-row and PGN inputs)
# runs `analyse` with each file, each run a fresh process: the raw network output (value and
# every generated turn's prior, 9 significant digits) must be byte-identical, and so must the
# readable analysis with a 64-visit search for one position per pitch. A checkpoint with other
# weights must give other numbers (so the comparison does see the weights).
set -eu
ps=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
"$ps" init-net --seed 7 "$dir/net.ckpt"
"$ps" export "$dir/net.ckpt" "$dir/net.model"
"$ps" init-net --seed 8 "$dir/other.ckpt"
printf '[Event "cli test"]\n[Pitch "8x12"]\n\n1. 0 3 2. 66 5 3. 3 *\n' > "$dir/game.pgn"

fail=0
n=0
# check NAME [--search] ARGS...: analyse the position given by ARGS with both files and
# compare; --search also compares the readable analysis with a search.
check() {
  name=$1
  shift
  search=0
  if [ "${1:-}" = "--search" ]; then
    search=1
    shift
  fi
  n=$((n + 1))
  bad=0
  "$ps" analyse "$@" --model "$dir/net.ckpt" --raw > "$dir/$name.ckpt.raw"
  "$ps" analyse "$@" --model "$dir/net.model" --raw > "$dir/$name.model.raw"
  if ! grep -q '^value	' "$dir/$name.ckpt.raw" || ! grep -q '^turn	' "$dir/$name.ckpt.raw"; then
    echo "FAIL $name: the raw output lacks a value or a turn line:"
    cat "$dir/$name.ckpt.raw"
    bad=1
  fi
  if ! cmp -s "$dir/$name.ckpt.raw" "$dir/$name.model.raw"; then
    echo "FAIL $name: raw output differs between the checkpoint and the exported model:"
    diff "$dir/$name.ckpt.raw" "$dir/$name.model.raw" || true
    bad=1
  fi
  if [ $search -eq 1 ]; then
    # The readable form names the model file (the "model:" line) and the search's wall time;
    # everything else must agree.
    for f in ckpt model; do
      "$ps" analyse "$@" --model "$dir/net.$f" --visits 64 --top 50 > "$dir/$name.$f.full"
      grep -v '^model: ' "$dir/$name.$f.full" | sed 's/ in [0-9.]* s,/,/' > "$dir/$name.$f.txt"
    done
    if ! cmp -s "$dir/$name.ckpt.txt" "$dir/$name.model.txt"; then
      echo "FAIL $name: the analysis differs between the checkpoint and the exported model:"
      diff "$dir/$name.ckpt.txt" "$dir/$name.model.txt" || true
      bad=1
    fi
    if ! grep -q '^search: 64 visits' "$dir/$name.ckpt.txt"; then
      echo "FAIL $name: no search line in the analysis:"
      cat "$dir/$name.ckpt.txt"
      bad=1
    fi
  fi
  if [ $bad -eq 0 ]; then
    echo "ok $name: $(grep -c '^turn' "$dir/$name.ckpt.raw") turns, $(head -n 1 "$dir/$name.ckpt.raw")"
  fi
  if [ $bad -ne 0 ]; then fail=1; fi
}

check start-8x10
check record-8x10 --search --record "0 3 66 5 3 4 1 66 06 1 3 536 10607 53344 47 212 00" --turn 12
check kicks-8x10 --kicks "0366534" --kick 6
check start-8x12 --pitch 8x12
check tsv-8x12 --search --tsv "$(printf '8\t12\t2\tstandard\t0 3 66 5 3 4 1 66 06 1 3')"
check pgn-8x12 --pgn "$dir/game.pgn" --turn 2
echo "$n positions compared"
"$ps" analyse --pitch 8x12 --model "$dir/other.ckpt" --raw > "$dir/other.raw"
if cmp -s "$dir/start-8x12.ckpt.raw" "$dir/other.raw"; then
  echo "FAIL: a net with other weights gives the same raw output"
  fail=1
fi
exit $fail
