#!/bin/sh
# The browser test: starts `papersoccer serve` on a free port, then play_review.mjs drives
# headless chromium through a whole game, its review and an analysis; screenshots go to OUTDIR.
# Exit 77 (skipped) when chromium or puppeteer-core is not installed (tools/setup_browser.sh).
#   run.sh PAPERSOCCER MODEL OUTDIR
set -eu
EXE=$1 MODEL=$2 OUT=$3
DIR=$(cd "$(dirname "$0")" && pwd)
if [ ! -x /usr/bin/chromium ] || [ ! -d "$DIR/node_modules/puppeteer-core" ] || ! command -v node >/dev/null; then
  echo "skipped: needs /usr/bin/chromium, node and tests/browser/node_modules (run tools/setup_browser.sh)"
  exit 77
fi
mkdir -p "$OUT"
rm -f "$OUT"/*.png
"$EXE" serve --port 0 --model "$MODEL" > "$OUT/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true' EXIT
url=""
for _ in $(seq 200); do
  url=$(grep -o 'http://[^ ]*' "$OUT/server.log" | head -n 1 || true)
  [ -n "$url" ] && break
  kill -0 $pid 2>/dev/null || { cat "$OUT/server.log"; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "the server printed no address"; cat "$OUT/server.log"; exit 1; }
node "$DIR/play_review.mjs" "$url" "$OUT"
