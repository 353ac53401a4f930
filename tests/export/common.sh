# Sourced by the single-file bot's scripts (single_file_bot.sh, strength.sh).

# build_single_file PAPERSOCCER DIR MODEL: exports DIR/bot.cpp from MODEL and compiles DIR/bot
# with exactly `g++ -O2 -std=c++17`; prints the file's size and the compile time.
build_single_file() {
  "$1" export --single-file "$2/bot.cpp" "$3"
  t0=$(date +%s.%N)
  g++ -O2 -std=c++17 -o "$2/bot" "$2/bot.cpp"
  t1=$(date +%s.%N)
  echo "file: $(wc -m < "$2/bot.cpp") chars; compile: $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s (g++ -O2 -std=c++17)"
}

# tournament_head NAME GAMES_PER_PAIRING OPENINGS SEED DIR: the keys of a tournament config
# before its players (round robin, 4-turn openings, one game at a time, 8x10 standard,
# results in DIR/out).
tournament_head() {
  cat <<YAML
name: $1
format: round-robin
games_per_pairing: $2
openings: $3
opening_turns: 4
seed: $4
concurrency: 1
pitch: 8x10
variant: standard
out_dir: $5/out
players:
YAML
}
