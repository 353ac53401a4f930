#!/bin/sh
# Soak: games among every built-in player type (random, greedy, uct, mcts, and on 8x10 standard
# the real `bot` with MODEL as an external engine), from
# random openings, on 8x10 and 8x12 and in all three variants. The bot gets 5 s for its first
# answer and 100 ms (+400 ms referee margin) per turn: the soak checks memory and soundness on a
# possibly loaded machine, not the CodinGame clock (tests/cli/bot_tournament.sh checks that). Each combination is one
# `papersoccer tournament` process; its peak RSS (GNU time) must stay below 2 GiB and every game
# must finish (no forfeit by crash or illegal turn). MODEL (the quickstart net) is trained for
# 8x10 standard only, and a net refuses other pitches and variants; there `mcts` uses a fresh
# tiny net from `init-net` (metadata: any pitch and variant).
#   soak.sh EXE MODEL WORKDIR [GAMES_PER_PAIRING]   (default 12: 6 x 6 x 12 = 432 games + bot)
set -u
EXE=$1
MODEL=$2
WORK=$3
GPP=${4:-12}
rm -rf "$WORK"
mkdir -p "$WORK"
fail() { echo "FAIL: $*"; exit 1; }
[ -x /usr/bin/time ] || fail "GNU time (/usr/bin/time, Debian package 'time') is needed to measure peak RSS"
"$EXE" init-net "$WORK/any-pitch.ckpt" --preset tiny --seed 5 > /dev/null || fail "init-net"
total=0
worst=0
for pitch in 8x10 8x12; do
  for variant in standard single-bounce no-bounce; do
    tag="$pitch-$variant"
    bot=""
    net="$WORK/any-pitch.ckpt"
    if [ "$pitch" = 8x10 ] && [ "$variant" = standard ]; then
      net=$MODEL
      bot="
  - {name: bot, type: external, command: [$EXE, bot, $MODEL, --turn-ms, '100', --first-ms, '5000'], first_turn_ms: 5000, turn_ms: 100, margin_ms: 400, opening_history: true}"
    fi
    cat > "$WORK/$tag.yaml" <<YAML
name: soak-$tag
format: round-robin
games_per_pairing: $GPP
openings: $((GPP / 2))
opening_turns: 3
seed: 11
concurrency: 2
pitch: $pitch
variant: $variant
time_ms: -1
visits: -1
out_dir: $WORK/$tag
players:
  - {name: random, type: random}
  - {name: greedy, type: greedy}
  - {name: uct, type: uct, visits: 300}
  - {name: mcts, type: mcts, checkpoint: $net, visits: 32}$bot
YAML
    start=$(date +%s)
    /usr/bin/time -f "%M" -o "$WORK/$tag.rss" "$EXE" tournament "$WORK/$tag.yaml" > "$WORK/$tag.log" 2>&1 ||
      { tail -20 "$WORK/$tag.log"; fail "tournament $tag failed"; }
    secs=$(( $(date +%s) - start ))
    kib=$(tail -1 "$WORK/$tag.rss")
    mib=$((kib / 1024))
    games=$(grep -c . "$WORK/$tag/games.tsv")
    games=$((games - 1))
    total=$((total + games))
    [ "$mib" -gt "$worst" ] && worst=$mib
    forfeits=$(awk -F, 'NR > 1 && $5 != "goal" && $5 != "blocked"' "$WORK/$tag/games.csv" | wc -l)
    echo "$tag: $games games in $secs s, peak RSS $mib MiB, forfeits $forfeits"
    [ "$mib" -lt 2048 ] || fail "$tag: peak RSS $mib MiB is not below 2 GiB"
    [ "$forfeits" -eq 0 ] || { awk -F, 'NR > 1 && $5 != "goal" && $5 != "blocked"' "$WORK/$tag/games.csv" | head; fail "$tag: forfeits"; }
  done
done
echo "soak ok: $total games, worst peak RSS $worst MiB"
