#!/bin/sh
# A command-line check: runs a command, checks its exit status and its output.
#   check_command.sh -s fail|ok [-c CODE] [-i INPUT] [-e TEXT]... [-x TEXT]... [-p] -- COMMAND [ARG]...
#   -s fail   the command must exit with a non-zero status (an error case)
#   -s ok     the command must exit with status 0
#   -c CODE   ... and with exactly this status
#   -i INPUT  printf format string written to the command's stdin (default: no input)
#   -e TEXT   its stdout + stderr must contain TEXT (a fixed string); may be repeated
#   -x TEXT   its stdout + stderr must not contain TEXT (a fixed string); may be repeated
#   -p        its output must hold printable ASCII, tabs and newlines only (no raw bytes)
# Passes when every check holds; prints the command's output, and what failed.
set -u
want=""
code=""
input=""
has_input=0
printable=0
expect_file=$(mktemp)
exclude_file=$(mktemp)
out=$(mktemp)
trap 'rm -f "$expect_file" "$exclude_file" "$out"' EXIT
while [ $# -gt 0 ]; do
  case "$1" in
    -s) want=$2; shift 2 ;;
    -c) code=$2; shift 2 ;;
    -i) input=$2; has_input=1; shift 2 ;;
    -e) printf '%s\n' "$2" >> "$expect_file"; shift 2 ;;
    -x) printf '%s\n' "$2" >> "$exclude_file"; shift 2 ;;
    -p) printable=1; shift ;;
    --) shift; break ;;
    *) echo "check_command.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "check_command.sh: no command" >&2; exit 2; }
[ "$want" = ok ] || [ "$want" = fail ] || { echo "check_command.sh: -s ok or -s fail is required" >&2; exit 2; }
if [ $has_input -eq 1 ]; then
  # shellcheck disable=SC2059
  printf "$input" | "$@" > "$out" 2>&1
else
  "$@" < /dev/null > "$out" 2>&1
fi
status=$?
cat "$out"
fail=0
if [ "$want" = fail ] && [ $status -eq 0 ]; then
  echo "FAIL: the command exited with status 0; expected a failure"
  fail=1
elif [ "$want" = ok ] && [ $status -ne 0 ]; then
  echo "FAIL: the command exited with status $status; expected 0"
  fail=1
elif [ -n "$code" ] && [ "$status" != "$code" ]; then
  echo "FAIL: the command exited with status $status; expected $code"
  fail=1
fi
while IFS= read -r text; do
  if ! grep -qF -- "$text" "$out"; then
    echo "FAIL: the output lacks: $text"
    fail=1
  fi
done < "$expect_file"
while IFS= read -r text; do
  if grep -qF -- "$text" "$out"; then
    echo "FAIL: the output holds: $text"
    fail=1
  fi
done < "$exclude_file"
if [ $printable -eq 1 ] && LC_ALL=C grep -q "$(printf '[^[:print:]\t]')" "$out"; then
  echo "FAIL: the output holds raw non-printable bytes"
  fail=1
fi
exit $fail
