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

# expect_refusal DIR RC MESSAGE INPUT BOT [ARGS...]: BOT ARGS with stdin INPUT must exit with
# status RC and say MESSAGE (a fixed string) on stderr. Prints a FAIL line; returns 1 if not.
expect_refusal() {
  local out=$1 rc=$2 msg=$3 input=$4 got=0
  shift 4
  "$@" < "$input" > "$out/refusal.out" 2> "$out/refusal.err" || got=$?
  if [ "$got" -ne "$rc" ] || ! grep -qF -- "$msg" "$out/refusal.err"; then
    echo "FAIL: $* (stdin $(basename "$input")): exit status $got, expected $rc with '$msg'; stderr:"
    head -c 400 "$out/refusal.err"; echo
    return 1
  fi
}

# check_input_limits DIR BOT BUDGET_FLAG (an 8x10 standard bot, its budget flag --visits or
# --nodes; uses $ps, papersoccer): the inputs that a single-file bot once mishandled. A line
# of 2 MiB (with or without its newline) was read whole (a 200 MB one took 394 MB and 10 s): it
# must stop the bot with the line number, as `bot` stops (1 MiB at most), in the protocol and
# in --raw-eval, while a line of exactly 1 MiB is still read. Flags went through atoll
# ('--visits 1x' was 1, '--turn-ms 99999999999999999999' overflowed into fallback answers): each
# must be refused with its name and value, exit status 2. A later line holding a kick of ours is
# refused too.
check_input_limits() {
  local dir=$1 bot=$2 budget=$3 bad=0 long
  { echo 0; head -c 2097152 /dev/zero | tr '\0' 1; } > "$dir/long-no-newline.txt"
  { head -c 2097152 /dev/zero | tr '\0' 1; echo; } > "$dir/long-newline.txt"
  { echo 0; head -c 1048576 /dev/zero | tr '\0' 1; echo; echo -; } > "$dir/mib-line.txt"
  : > "$dir/empty.txt"
  long="longer than 1048576 characters, starting '1111111111111111111111111111111111111111...'"
  expect_refusal "$dir" 1 "bot: protocol line 2: $long" "$dir/long-no-newline.txt" "$bot" || bad=1
  expect_refusal "$dir" 1 "bot: protocol line 1: $long" "$dir/long-newline.txt" "$bot" || bad=1
  expect_refusal "$dir" 1 "bot: line 1: $long" "$dir/long-newline.txt" "$bot" --raw-eval || bad=1
  expect_refusal "$dir" 1 "bot: protocol line 2: expected the length of the opponent's turn, got '1111" \
    "$dir/mib-line.txt" "$bot" || bad=1
  expect_refusal "$dir" 2 "bot: $budget: expected an integer >= 1 or -1, got '1x'" "$dir/empty.txt" \
    "$bot" "$budget" 1x || bad=1
  expect_refusal "$dir" 2 "bot: --turn-ms: expected an integer from 1 to 86400000, got '99999999999999999999'" \
    "$dir/empty.txt" "$bot" --turn-ms 99999999999999999999 || bad=1
  expect_refusal "$dir" 2 "bot: --turn-ms: missing its value" "$dir/empty.txt" "$bot" --turn-ms || bad=1
  expect_refusal "$dir" 2 "bot: --safety-ms 200 + --search-margin-ms 10 must be below --first-ms (1000) and --turn-ms (200)" \
    "$dir/empty.txt" "$bot" --safety-ms 200 || bad=1
  # After the first answer a line holds one opponent turn: one that ran on into a kick of ours was
  # played as if we had made it. The line: the opponent's first listed turn
  # after the bot's own first answer, then our first legal kick after it ($ps: papersoccer).
  local a t k
  a=$(printf '0\n1\n-\n' | "$bot" "$budget" 8 2> /dev/null | head -n 1)
  t=$(printf '8\t10\t2\tstandard\t%s\n' "$a" | "$ps" turns --list | cut -f 3)
  k=$(printf '8\t10\t2\tstandard\t%s %s\n' "$a" "$t" | "$ps" turns --list | cut -f 3 | cut -c 1)
  printf '0\n1\n-\n%s\n%s%s\n' "$((${#t} + 1))" "$t" "$k" > "$dir/two-turns.txt"
  expect_refusal "$dir" 1 "bot: protocol line 5: opponent turn '$t$k' is not legal here" \
    "$dir/two-turns.txt" "$bot" || bad=1
  # Why no answer is due, as `bot` says it (the single files said only "no answer is due").
  printf '1\n1\n-\n' > "$dir/dash-to-1.txt"
  expect_refusal "$dir" 1 "bot: protocol line 3: no answer is due after '-': '-' (no previous turn) is only valid on player 0's first turn" \
    "$dir/dash-to-1.txt" "$bot" || bad=1
  # An empty turn line was taken as '-' on the first turn, and a bad player id was not shown.
  printf '0\n1\n\n' > "$dir/empty-turn.txt"
  expect_refusal "$dir" 1 "bot: protocol line 3: expected the opponent's turn (digits 0-7, or '-'), got an empty line" \
    "$dir/empty-turn.txt" "$bot" || bad=1
  printf '2\n' > "$dir/id-2.txt"
  expect_refusal "$dir" 1 "bot: expected the player id 0 or 1 on line 1, got '2'" "$dir/id-2.txt" "$bot" || bad=1
  [ $bad -eq 0 ] && echo "ok: long input lines, bad flags and a line of two turns refused with their line, flag and value"
  return $bad
}
