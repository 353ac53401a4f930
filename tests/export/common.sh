# Sourced by the single-file bot's scripts (single_file_bot.sh, single_file_alphabeta.sh,
# strength.sh).

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

# check_arena_file FILE: at most 100,000 characters, no project include left, only standard
# headers the bot may use. Prints a FAIL line per problem; returns 1 when there was one.
check_arena_file() {
  bad=0
  chars=$(wc -m < "$1")
  if [ "$chars" -gt 100000 ]; then echo "FAIL: $chars chars > 100,000"; bad=1; fi
  if grep -q '^#include "' "$1"; then echo "FAIL: a project include is left"; bad=1; fi
  std="algorithm atomic cassert cctype chrono cmath condition_variable cstddef cstdint cstdio cstdlib
 cstring exception functional iosfwd iostream istream limits map memory mutex optional ostream
 queue random sstream stdexcept string string_view system_error thread tuple unordered_map
 unordered_set utility vector"
  for h in $(sed -n 's/^#include <\(.*\)>.*/\1/p' "$1"); do
    case " $(echo $std) " in
      *" $h "*) ;;
      *) echo "FAIL: <$h> is not on the list of standard headers the bot may use"; bad=1 ;;
    esac
  done
  return $bad
}

# replay_vectors DIR DATA DRIVER: builds DIR/bot.cpp's engine with the test driver and replays
# the shared test vectors of DATA on it.
replay_vectors() {
  # (-Wno-subobject-linkage: the bot's code, included here, uses anonymous namespaces.)
  g++ -O2 -std=c++17 -Wno-subobject-linkage -DPS_SINGLE_FILE_TEST_DRIVER \
      -DPS_SINGLE_FILE="\"$1/bot.cpp\"" -o "$1/driver" "$3"
  "$1/driver" "$2/games.tsv" "$2/turns.tsv" "$2/perft.tsv"
}

# positions_of GAMES_TSV MAX: every third turn start of each game after the opening (distinct),
# as records, until MAX.
positions_of() {
  awk -F '\t' -v max="$2" 'NR > 1 {
      n = split($8, t, " ")
      for (k = 4; k < n && got < max; k += 3) {
        s = t[1]; for (i = 2; i <= k; i++) s = s " " t[i]
        if (!seen[s]++) { print s; got++ }
      }
    }' "$1"
}
