#!/bin/sh
# Runs a long-lived command (a server) until its output holds TEXT, then stops it with TERM and
# prints what it wrote; exit status 0 (the caller checks the output). Waits at most SECONDS, so a
# loaded machine that starts the command slowly still passes, and a quick one does not wait.
#   until_line.sh TEXT SECONDS -- COMMAND [ARG]...
set -u
text=$1
seconds=$2
shift 3
out=$(mktemp)
"$@" > "$out" 2>&1 &
pid=$!
waited=0
while [ "$waited" -lt $((seconds * 10)) ] && kill -0 "$pid" 2>/dev/null && ! grep -qF -- "$text" "$out"; do
  sleep 0.1
  waited=$((waited + 1))
done
kill -TERM "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
cat "$out"
rm -f "$out"
exit 0
