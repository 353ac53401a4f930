#!/bin/sh
# The single-file bot against `bot` on the same model at CodinGame's clock, for
# docs/experiments/single-file-bots.md:
#   strength.sh PAPERSOCCER WORKDIR MODEL [GAMES] [TURN_MS]
# GAMES (default 100, even) games from GAMES/2 random 4-turn openings, each played with both
# colours; both engines get TURN_MS (default 200) per answer and 1,000 ms for the first, the
# referee the same per-turn limit plus a 50 ms margin (pipe and scheduling latency on a shared
# machine) and 10 s for the first answer (`bot` loads LibTorch first, over 1 s on a loaded
# machine; each engine still answers its first turn within 1,000 ms of its start). Prints the tournament's table, the single file's score with a Wilson 95% interval,
# forfeits and fallback answers of each side, the single file's evaluations per second in play
# and alone (--bench), its size and compile time.
set -eu
ps=$1
dir=$2
model=$3
games=${4:-100}
turn_ms=${5:-200}
rm -rf "$dir"
mkdir -p "$dir"
. "$(dirname "$0")/common.sh"
build_single_file "$ps" "$dir" "$model"
"$dir/bot" --bench

# The single file plays PUCT all game; `bot` is given the same search (its default hands the
# turns from 20 on to alpha-beta: search.endgame_from_turn), so the match measures the export.
printf 'search: {endgame_from_turn: -1}\n' > "$dir/puct.yaml"
tournament_head single-file-strength "$games" "$((games / 2))" 17 "$dir" > "$dir/tournament.yaml"
cat >> "$dir/tournament.yaml" <<YAML
  - name: single-file
    type: external
    command: ["$dir/bot", --turn-ms, "$turn_ms", --first-ms, "1000"]
    first_turn_ms: 10000
    turn_ms: $turn_ms
    margin_ms: 50
    opening_history: true
    stderr: $dir/single-file.stderr
  - name: bot
    type: external
    command: ["$ps", bot, "$model", --config, "$dir/puct.yaml", --turn-ms, "$turn_ms", --first-ms, "1000"]
    first_turn_ms: 10000
    turn_ms: $turn_ms
    margin_ms: 50
    opening_history: true
    stderr: $dir/bot.stderr
YAML
"$ps" tournament "$dir/tournament.yaml" | tee "$dir/tournament.txt" | tail -n 12
# games.tsv columns: game player0 player1 winner termination detail opening record
awk -F '\t' 'NR > 1 {
    n++; if ($4 == "single-file") w++
    if ($5 != "goal" && $5 != "blocked") f[$4 == "single-file" ? "bot" : "single-file"]++
  }
  END {
    z = 1.959964; p = w / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    printf "single-file vs bot: %d / %d = %.1f%% (Wilson 95%%: %.1f%% - %.1f%%); forfeits: single-file %d, bot %d\n",
      w, n, 100 * p, 100 * (c - h), 100 * (c + h), f["single-file"], f["bot"]
  }' "$dir/out/games.tsv"
echo "fallback answers: single-file $(grep -c fallback "$dir/single-file.stderr" || true), bot $(grep -c fallback "$dir/bot.stderr" || true)"
awk '/^bot: [0-9]+ visits/ { v += $2; e += $4; t += $7; n++ }
  END { if (t > 0) printf "single-file in play: %d turns, %.0f visits and %.0f evaluations per second of search\n", n, 1000 * v / t, 1000 * e / t }' \
  "$dir/single-file.stderr"
