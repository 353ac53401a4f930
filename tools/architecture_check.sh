#!/bin/sh
# The architecture check: docs/ARCHITECTURE.md names every file of the tree (a source file by its
# name, or a .cpp by its header), and every folder of tests/. Prints the files it does not name.
#
#   tools/architecture_check.sh
#
# Not checked: tests/ files (their folder is named), docs/, configs/, models/, dotfiles,
# CMakeLists.txt and README.md. Exit status: 0 all named, 1 some not, 77 skipped (not a git
# checkout), as CTest's SKIP_RETURN_CODE expects.
set -eu
cd "$(dirname "$0")/.."
git rev-parse --git-dir >/dev/null 2>&1 || { echo "architecture check skipped: not a git checkout"; exit 77; }
page=docs/ARCHITECTURE.md

# named NAME: the page holds NAME as a whole name (not inside a longer one).
named() {
  pattern=$(printf '%s' "$1" | sed 's/[][\.*^$/]/\\&/g')
  grep -Eq "(^|[^A-Za-z0-9_.-])$pattern(\$|[^A-Za-z0-9_-])" "$page"
}

missing=0
for f in $(git ls-files --cached --others --exclude-standard); do
  case "$f" in
    tests/* | docs/* | configs/* | models/* | .* | */.* | README.md) continue ;;
    CMakeLists.txt | */CMakeLists.txt) continue ;;
  esac
  [ -e "$f" ] || continue
  base=$(basename "$f")
  named "$base" && continue
  case "$base" in *.cpp) named "${base%.cpp}.h" && continue ;; esac
  echo "not named in $page: $f"
  missing=1
done
for d in $(git ls-files tests | cut -d/ -f2 | sort -u); do
  [ -d "tests/$d" ] || continue
  named "tests/$d" || named "\`$d\`" || { echo "not named in $page: tests/$d/"; missing=1; }
done
exit $missing
