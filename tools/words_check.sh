#!/bin/sh
# The words check: the tree says what the code does and why, not the history of the work that
# made it. Prints every line of a tracked (or untracked, not ignored) file that matches one of
# the patterns below: numbered rounds of the work, numbered items of the work's tracker (git
# history and the tracker hold those), and the phrases that speak of a round of review. A technical word that one of those phrases contains (a transposition-table lookup of
# the same name, a hash map's chain) is not matched on its own. Case is ignored; this script is
# not checked (it holds the patterns).
#
#   tools/words_check.sh
#
# Exit status: 0 none found, 1 some found (each printed as FILE:LINE:TEXT), 77 skipped (not a
# git checkout), as CTest's SKIP_RETURN_CODE expects.
set -eu
cd "$(dirname "$0")/.."
git rev-parse --git-dir >/dev/null 2>&1 || { echo "words check skipped: not a git checkout"; exit 77; }

session='sessions?[-_ ]?[0-9]'
probe="(^|[^a-z])(a|the) probe'?s|probe'?s (exact )?inputs?|probe'?s case|probe (found|finding|linked|regression|of session|of serve|of \`serve)|user probe|[(](new-user )?probe(, session|:)|re-probe|probing helper|probe with [0-9]|: a probe[)]|(first|second|third|fourth|fifth|sixth) probe"
helper='helper branch'
tracker='issues? #?[0-9]+'

# git grep: the files git tracks plus untracked ones not ignored; -I skips binary files.
if git grep --untracked -n -I -i -E -e "$session" -e "$probe" -e "$helper" -e "$tracker" -- . ':!tools/words_check.sh'; then
  echo "words check: the lines above speak of how the code was made; say what the code does and why" \
       "instead (tools/words_check.sh)"
  exit 1
fi
exit 0
