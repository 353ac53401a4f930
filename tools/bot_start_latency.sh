#!/bin/sh
# Time from a bot's process start to its first answer, over N starts, as an arena measures it:
# the first input lines are written at once, and the clock runs from the start of the process.
#
#   tools/bot_start_latency.sh [N] [--load] [--max-ms MS] [-- BOT_COMMAND...]
#
# Default bot: build/papersoccer bot --first-ms 200. --load keeps one other core busy (a shell
# loop) during the measurement, as a second game beside the bot would. Prints every latency
# in ms (sorted), then min, median, p90, p99, max and the count of answers that were the
# bot's fallback turn (its stderr says so). Exit status 0, or 1 when a start gave no answer or,
# with --max-ms, when the slowest first answer took longer than MS.
set -eu
cd "$(dirname "$0")/.."
n=100
load=0
max_ms=0
while [ $# -gt 0 ]; do
  case "$1" in
    --load) load=1; shift ;;
    --max-ms) max_ms=$2; shift 2 ;;
    --) shift; break ;;
    *) n=$1; shift ;;
  esac
done
[ $# -gt 0 ] || set -- build/papersoccer bot --first-ms 200
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -n "${busy:-}" ] && kill "$busy" 2>/dev/null || true' EXIT
if [ "$load" = 1 ]; then
  sh -c 'while :; do :; done' &
  busy=$!
fi
fallbacks=0
i=0
while [ "$i" -lt "$n" ]; do
  i=$((i + 1))
  # The input stays open a second after the first lines, so the bot does not see its end first.
  start=$(date +%s%N)
  (printf '0\n1\n-\n'; sleep 1) | "$@" 2>"$tmp/err" | {
    IFS= read -r line || line=""
    date +%s%N > "$tmp/end"
    printf '%s' "$line" > "$tmp/answer"
  }
  end=$(cat "$tmp/end")
  answer=$(cat "$tmp/answer")
  if [ -z "$answer" ]; then
    echo "start $i: no answer; stderr:" >&2
    cat "$tmp/err" >&2
    exit 1
  fi
  grep -q fallback "$tmp/err" && fallbacks=$((fallbacks + 1))
  echo $(((end - start) / 1000000)) >> "$tmp/ms"
done
sort -n "$tmp/ms" > "$tmp/sorted"
pick() { sed -n "$1p" "$tmp/sorted"; }
at() { awk -v n="$n" -v q="$1" 'BEGIN { i = int(n * q + 0.999999); if (i < 1) i = 1; print i }'; }
echo "latencies (ms): $(tr '\n' ' ' < "$tmp/sorted")"
echo "starts $n$( [ "$load" = 1 ] && echo ' (one other core busy)'): min $(pick 1), median $(pick "$(at 0.5)"), p90 $(pick "$(at 0.9)"), p99 $(pick "$(at 0.99)"), max $(pick "$n") ms; fallback answers $fallbacks"
if [ "$max_ms" -gt 0 ] && [ "$(pick "$n")" -gt "$max_ms" ]; then
  echo "bot start latency: the slowest first answer took $(pick "$n") ms, over --max-ms $max_ms" >&2
  exit 1
fi
