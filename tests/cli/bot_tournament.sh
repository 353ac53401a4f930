#!/bin/sh
# The real `papersoccer bot` (a tiny exported model) plays through the tournament runner as an
# external engine, in a gauntlet against the built-in greedy player and the scripted fake
# engine (tests/tournament/fake_engine.cpp) answering an illegal turn, late, or garbage from
# its second answer on. Two games per pairing (both colours), from the start position.
#   bot_tournament.sh PAPERSOCCER FAKE_ENGINE WORKDIR
# Checks, from the tournament's games.tsv and results.json:
#   - every game was played (8) and the bot never lost by a forfeit: each game it lost ended by
#     a goal or a blocked ball;
#   - each fake engine lost both its games, with the reason of its misbehaviour recorded
#     ("illegal turn", "time forfeit", "garbage output");
#   - the greedy games ended by the rules (goal or blocked).
# Time limits: the bot thinks --turn-ms 100 per turn; the referee allows it 1000 ms (10 s for
# the first answer, which includes loading LibTorch and the model), so a loaded machine does
# not make it forfeit. The fake engine's late answer (1500 ms) is against a 300 ms limit.
set -eu
ps=$1
fake=$2
dir=$3
rm -rf "$dir"
mkdir -p "$dir"
"$ps" init-net --seed 3 "$dir/net.ckpt"
"$ps" export "$dir/net.ckpt" "$dir/bot.model"
cat > "$dir/tournament.yaml" <<YAML
name: bot-cli-test
format: gauntlet
gauntlet_size: 1
games_per_pairing: 2
opening_turns: 0
seed: 5
concurrency: 1
pitch: 8x10
variant: standard
out_dir: $dir/out
players:
  - name: bot
    type: external
    command: ["$ps", bot, "$dir/bot.model", --turn-ms, "100", --first-ms, "1000"]
    first_turn_ms: 10000
    turn_ms: 1000
    stderr: $dir/bot.stderr
  - name: greedy
    type: greedy
  - name: fake-illegal
    type: external
    command: ["$fake", --mode, illegal, --at, "2"]
  - name: fake-late
    type: external
    command: ["$fake", --mode, late, --at, "2", --sleep-ms, "1500"]
    turn_ms: 300
  - name: fake-garbage
    type: external
    command: ["$fake", --mode, garbage, --at, "2"]
YAML
"$ps" tournament "$dir/tournament.yaml"

tsv=$dir/out/games.tsv
json=$dir/out/results.json
fail=0
# games.tsv columns: game player0 player1 winner termination detail opening record
awk -F '\t' '
  NR == 1 { next }
  { games++
    opp = ($2 == "bot") ? $3 : $2
    if ($2 != "bot" && $3 != "bot") { print "FAIL game " $1 ": the bot did not play"; bad = 1; next }
    want = ""
    if (opp == "fake-illegal") want = "illegal turn"
    else if (opp == "fake-late") want = "time forfeit"
    else if (opp == "fake-garbage") want = "garbage output"
    if (want != "") {
      if ($4 != "bot" || $5 != want) {
        print "FAIL game " $1 " vs " opp ": expected the bot to win by \"" want "\", got winner " $4 " by \"" $5 "\" (" $6 ")"
        bad = 1
      }
    } else if ($5 != "goal" && $5 != "blocked") {
      print "FAIL game " $1 " vs " opp ": ended by \"" $5 "\" (" $6 "), not by the rules"
      bad = 1
    }
    if ($4 != "bot" && $5 != "goal" && $5 != "blocked") {
      print "FAIL game " $1 ": the bot lost by a forfeit: " $5 " (" $6 ")"
      bad = 1
    }
  }
  END {
    if (games != 8) { print "FAIL: " games " games in games.tsv, expected 8"; bad = 1 }
    exit bad
  }' "$tsv" || fail=1
for text in '"played_games": 8' '"termination": "illegal turn"' '"termination": "time forfeit"' \
            '"termination": "garbage output"'; do
  if ! grep -qF "$text" "$json"; then
    echo "FAIL: results.json lacks $text"
    fail=1
  fi
done
# Forfeit kinds that must not appear at all (the bot never forfeits; the fakes misbehave only
# in the three ways above).
for text in '"termination": "engine crash"' '"termination": "player error"' \
            '"termination": "engine start failure"' '"termination": "incomplete turn"'; do
  if grep -qF "$text" "$json"; then
    echo "FAIL: results.json has $text"
    fail=1
  fi
done
fallbacks=$(grep -c 'answering the fallback turn' "$dir/bot.stderr" || true)
echo "bot fallback answers (search too slow, not a forfeit): $fallbacks"
[ $fail -eq 0 ] && echo "ok: 8 games, no forfeit by the bot, the fakes' forfeits recorded"
exit $fail
