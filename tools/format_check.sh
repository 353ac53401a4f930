#!/bin/sh
# The format check: clang-format (the repository's .clang-format) must leave the C++ lines a
# change touched as they are.
#
#   tools/format_check.sh            lines changed since the merge base with main (committed or
#                                    not); nothing to check on main itself
#   tools/format_check.sh REV        lines changed since the merge base with REV
#   tools/format_check.sh --all      every tracked C++ file, whole (a report: the tree predates
#                                    the formatter, so expect differences)
#   tools/format_check.sh --fix [REV]  reformat the changed lines in place
#
# Exit status: 0 clean, 1 differences (printed as a diff), 77 skipped (no clang-format or
# git-clang-format, not a git checkout, or no such REV), as CTest's SKIP_RETURN_CODE expects.
set -eu
cd "$(dirname "$0")/.."

skip() { echo "format check skipped: $1"; exit 77; }
command -v clang-format >/dev/null 2>&1 || skip "clang-format is not installed (tools/setup.sh installs it)"
git rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"

if [ "${1:-}" = "--all" ]; then
  bad=0
  for f in $(git ls-files '*.cpp' '*.h' | grep -v '^tests/fuzz/corpus/'); do
    clang-format --style=file "$f" | diff -u --label "$f" --label "$f (clang-format)" "$f" - || bad=1
  done
  exit $bad
fi

fix=0
if [ "${1:-}" = "--fix" ]; then fix=1; shift; fi
command -v git-clang-format >/dev/null 2>&1 || skip "git-clang-format is not installed"
rev=${1:-main}
git rev-parse --verify --quiet "$rev^{commit}" >/dev/null || skip "no revision '$rev' to compare with"
base=$(git merge-base "$rev" HEAD) || skip "no merge base of '$rev' and HEAD"
if [ $fix = 1 ]; then
  git clang-format --quiet --extensions cpp,h "$base"
  exit 0
fi
out=$(git clang-format --diff --extensions cpp,h "$base" 2>&1) || true
case "$out" in
  ""|*"no modified files to format"*|*"did not modify any files"*)
    echo "format check: the lines changed since $(git rev-parse --short "$base") are formatted"
    exit 0 ;;
esac
printf '%s\n' "$out"
echo "format check: the lines above differ from clang-format (tools/format_check.sh --fix $rev reformats them)"
exit 1
