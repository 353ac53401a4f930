#!/bin/sh
# `export --single-file` on bad input: runs it, then says "nothing written" when OUT does not
# exist afterwards; exits with the export's status (for check_command.sh -s fail).
#   export_single_file_fails.sh PAPERSOCCER OUT [EXPORT ARGS...]
ps=$1
out=$2
shift 2
rm -f "$out"
"$ps" export --single-file "$out" "$@"
rc=$?
[ -e "$out" ] || echo "nothing written"
exit $rc
