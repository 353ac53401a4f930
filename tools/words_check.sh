#!/bin/sh
# The words check: the tree says what the code does and why, not the history of the work that
# made it. Prints every line of a tracked (or untracked, not ignored) file that names
#
#   - a numbered work session: "session 38", "session-38", "sessions 32-37";
#   - a probe in the sense of a round of review or testing: "session-28 probe", "a new-user
#     probe", "probe finding(s)", "probe regression", "the probe's input", "a probe found",
#     "(probe, session ...)", "re-probe", "probing helpers", "the fifth probe";
#   - a "helper branch".
#
# The word "probe" alone is not flagged: it is also a technical word here (a transposition-table
# probe, `tt_probe`, a hash map's probe chain, a file written to probe a folder), so only the
# phrases above, which are about work history, are. Case is ignored. This script itself is not
# checked (it quotes the phrases).
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

# git grep: the files git tracks plus untracked ones not ignored; -I skips binary files.
if git grep --untracked -n -I -i -E -e "$session" -e "$probe" -e "$helper" -- . ':!tools/words_check.sh'; then
  echo "words check: the lines above name work sessions, probes or helper branches;" \
       "say what the code does and why instead (tools/words_check.sh)"
  exit 1
fi
exit 0
