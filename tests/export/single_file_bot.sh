#!/bin/sh
# The single-file bot of a small model, end to end:
#   single_file_bot.sh PAPERSOCCER WORKDIR TESTDATA_DIR MODEL DRIVER_SOURCE [POSITIONS]
#  1. `export --single-file` writes it: at most 100,000 chars, only standard headers;
#  2. it compiles with exactly `g++ -O2 -std=c++17` (compile time printed);
#  3. its engine, built with the test driver, agrees with every row of the shared test vectors;
#  4. it plays `bot` on the same model through the tournament runner, both at 64 visits per turn
#     (deterministic: no noise, temperature 0) from 2 openings, colours swapped: every game ends
#     by the rules (no forfeit, no illegal turn);
#  5. over POSITIONS (default 16) distinct positions of those games, each engine started fresh
#     on the position at 64 visits: the share of positions where both answer the same turn (at
#     least 75%), and the largest differences of the network's value and root turn priors
#     between the quantised single file (--raw-eval) and `analyse --raw` (at most 0.05 each);
#  6. the same file with float32 weights (--bits 32): outputs within 1e-4 of LibTorch and the
#     same answers as bot (all positions but at most one), i.e. the differences of step 5 are
#     the quantisation's;
#  7. protocol errors, input lines over 1 MiB and bad flags are refused as `bot` refuses them.
set -eu
ps=$1
dir=$2
data=$3
model=$4
driver=$5
positions=${6:-16}
rm -rf "$dir"
mkdir -p "$dir"
fail=0

. "$(dirname "$0")/common.sh"
build_single_file "$ps" "$dir" "$model"
check_arena_file "$dir/bot.cpp" || fail=1

replay_vectors "$dir" "$data" "$driver" || fail=1

# The single file plays PUCT all game; `bot` hands the turns from 20 on to alpha-beta unless
# told otherwise (search.endgame_from_turn), so it is compared with the same search.
printf 'search: {endgame_from_turn: -1}\n' > "$dir/puct.yaml"
tournament_head single-file-vs-bot 4 2 11 "$dir" > "$dir/tournament.yaml"
cat >> "$dir/tournament.yaml" <<YAML
  - name: single-file
    type: external
    command: ["$dir/bot", --visits, "64", --first-ms, "5000", --turn-ms, "5000"]
    first_turn_ms: 20000
    turn_ms: 20000
    opening_history: true
    stderr: $dir/single-file.stderr
  - name: bot
    type: external
    command: ["$ps", bot, "$model", --config, "$dir/puct.yaml", --visits, "64", --first-ms, "5000", --turn-ms, "5000"]
    first_turn_ms: 20000
    turn_ms: 20000
    opening_history: true
    stderr: $dir/bot.stderr
YAML
"$ps" tournament "$dir/tournament.yaml" > "$dir/tournament.txt"
tail -n 5 "$dir/tournament.txt"
# games.tsv columns: game player0 player1 winner termination detail opening record
awk -F '\t' 'NR > 1 { n++; if ($5 != "goal" && $5 != "blocked") { print "FAIL game " $1 ": " $5 " (" $6 ")"; bad = 1 } }
  END { if (n != 4) { print "FAIL: " n " games, expected 4"; bad = 1 } exit bad }' "$dir/out/games.tsv" || fail=1
for f in "$dir/single-file.stderr" "$dir/bot.stderr"; do
  if grep -q 'fallback' "$f"; then echo "FAIL: $(basename "$f"): a fallback answer (search late)"; fail=1; fi
done

# Positions: every third turn start of each game after the opening (distinct), until
# POSITIONS.
positions_of "$dir/out/games.tsv" "$positions" > "$dir/positions.txt"

# The same file with float32 weights (--bits 32, too large for the arena): what is left once
# quantisation is out must be rounding, and the search must answer as bot's does.
"$ps" export --single-file "$dir/float.cpp" --bits 32 --max-chars 1000000 "$model" > /dev/null
g++ -O2 -std=c++17 -o "$dir/float" "$dir/float.cpp"

same=0
same_float=0
total=0
: > "$dir/answers.tsv"
while IFS= read -r rec; do
  kicks=$(echo "$rec" | tr -d ' ')
  # Side to move: the number of turns played, mod 2.
  id=$(( $(echo "$rec" | wc -w) % 2 ))
  input=$(printf '%s\n%s\n%s\n' "$id" "${#kicks}" "$kicks")
  a=$(printf '%s\n' "$input" | "$dir/bot" --visits 64 --first-ms 5000 --turn-ms 5000 2>/dev/null | head -n 1)
  b=$(printf '%s\n' "$input" | "$ps" bot "$model" --config "$dir/puct.yaml" --visits 64 --first-ms 5000 --turn-ms 5000 2>/dev/null | head -n 1)
  c=$(printf '%s\n' "$input" | "$dir/float" --visits 64 --first-ms 5000 --turn-ms 5000 2>/dev/null | head -n 1)
  total=$((total + 1))
  [ "$a" = "$b" ] && same=$((same + 1))
  [ "$c" = "$b" ] && same_float=$((same_float + 1))
  printf '%s\t%s\t%s\t%s\n' "$rec" "$a" "$c" "$b" >> "$dir/answers.tsv"
done < "$dir/positions.txt"
echo "agreement with bot at 64 visits: 8-bit $same of $total positions, float32 $same_float of $total"
if [ "$total" -eq 0 ] || [ $((same * 100)) -lt $((total * 75)) ]; then
  echo "FAIL: 8-bit agreement below 75%"; fail=1
fi
if [ $((total - same_float)) -gt 1 ]; then
  echo "FAIL: with float weights more than one position answered differently from bot"; fail=1
fi

# Network outputs: quantised (and float) single file vs LibTorch on the same positions.
: > "$dir/raw-torch.txt"
while IFS= read -r rec; do
  "$ps" analyse --raw --record "$rec" --model "$model" >> "$dir/raw-torch.txt"
  echo end >> "$dir/raw-torch.txt"
done < "$dir/positions.txt"
compare() {  # compare WIDTH LIMIT RAW_FILE
awk -F '\t' -v what="$1" -v limit="$2" '
  FNR == 1 { file++; pos = 0 }
  $1 == "end" { pos++; next }
  $1 == "value" { v[file, pos] = $2; next }
  $1 == "turn" { p[file, pos, $2] = $3; if (file == 1) keys[pos, $2] = 1; next }
  END {
    for (i = 0; i < pos; i++) { d = v[1, i] - v[2, i]; if (d < 0) d = -d; if (d > dv) dv = d }
    for (k in keys) {
      split(k, kk, SUBSEP)
      if (!((2, kk[1], kk[2]) in p)) { missing++; continue }
      d = p[1, kk[1], kk[2]] - p[2, kk[1], kk[2]]; if (d < 0) d = -d; if (d > dp) dp = d; n++
    }
    printf "%s weights vs LibTorch: over %d positions max |value diff| %.6f, max |turn prior diff| %.6f over %d turns (%d turns listed by one side only)\n", what, pos, dv, dp, n, missing
    if (pos == 0 || dv > limit || dp > limit) { print "FAIL: network outputs differ by more than " limit; exit 1 }
  }' "$3" "$dir/raw-torch.txt"
}
"$dir/bot" --raw-eval < "$dir/positions.txt" > "$dir/raw-single.txt"
"$dir/float" --raw-eval < "$dir/positions.txt" > "$dir/raw-float.txt"
compare 8-bit 0.05 "$dir/raw-single.txt" || fail=1
compare float32 0.0001 "$dir/raw-float.txt" || fail=1

# Protocol errors as `bot` reports them: a length line that is no positive count stops the bot
# with the line number; a count that differs from the turn is logged, and the turn is used.
if printf '0\nx\n-\n' | "$dir/bot" --visits 8 > "$dir/proto.out" 2> "$dir/proto.err"; then
  echo "FAIL: a bad length line was accepted"; fail=1
fi
grep -q "protocol line 2: expected the length of the opponent's turn, got 'x'" "$dir/proto.err" ||
  { echo "FAIL: no message for the bad length line:"; cat "$dir/proto.err"; fail=1; }
answer=$(printf '0\n5\n-\n' | "$dir/bot" --visits 8 2> "$dir/proto.err" | head -n 1)
[ -n "$answer" ] || { echo "FAIL: no answer after a length line that differs from the turn"; fail=1; }
grep -q "length line says 5 but the turn has 1 characters" "$dir/proto.err" ||
  { echo "FAIL: the differing length was not logged:"; cat "$dir/proto.err"; fail=1; }

# Long input lines and bad flags: refused as `bot` refuses them (common.sh).
check_input_limits "$dir" "$dir/bot" --visits || fail=1

[ $fail -eq 0 ] && echo "ok: single file exported, compiled, replays the test vectors, plays bot legally"
exit $fail
