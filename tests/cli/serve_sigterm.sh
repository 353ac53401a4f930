#!/bin/sh
# `serve` prints its address, answers, and stops on SIGTERM with exit status 143; a second
# server on the same port fails naming the address.   serve_sigterm.sh PAPERSOCCER WORKDIR
set -u
exe=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
"$exe" serve --port 0 > "$work/out.txt" 2>&1 &
pid=$!
i=0
url=""
while [ $i -lt 300 ] && [ -z "$url" ]; do
  url=$(grep -o 'http://[^ ]*' "$work/out.txt" | head -n 1)
  sleep 0.1
  i=$((i + 1))
done
[ -n "$url" ] || { cat "$work/out.txt"; echo "FAIL: no address printed"; kill $pid; exit 1; }
port=$(echo "$url" | sed 's|.*:\([0-9]*\)/$|\1|')
"$exe" serve --port "$port" > "$work/second.txt" 2>&1
second=$?
kill -TERM $pid
wait $pid
status=$?
cat "$work/out.txt" "$work/second.txt"
[ $second -eq 1 ] && grep -q "cannot listen on 127.0.0.1:$port" "$work/second.txt" ||
  { echo "FAIL: a second server on port $port did not fail naming it (status $second)"; exit 1; }
[ $status -eq 143 ] || { echo "FAIL: exit status $status after SIGTERM; expected 143"; exit 1; }
echo "ok: 143"
