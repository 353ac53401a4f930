#!/bin/sh
# The shipped model files: every manifest models/*.json (and models/candidates/*.json) names a
# file beside it whose SHA-256 is the manifest's, and each pointer models/<pitch>-<variant>.vnet
# is byte-identical to its newest dated file (<pitch>-<variant>-YYYYMMDD.vnet; a second net of one
# day is YYYYMMDDb, and so on), the net that manifest describes; every dated file has its
# manifest (the same name, .json), and a manifest's "file" is its own name with .vnet. Exit 0 when
# all hold, 1 naming each that does not, 77 (skipped) without sha256sum.
#   tools/models_check.sh [MODELS_DIR]
set -u
dir=${1:-$(dirname "$0")/../models}
command -v sha256sum > /dev/null 2>&1 || { echo "models_check: no sha256sum (skipped)"; exit 77; }
status=0
for m in "$dir"/*.json "$dir"/candidates/*.json; do
  [ -f "$m" ] || continue
  file=$(sed -n 's/^ *"file": *"\([^"]*\)".*/\1/p' "$m" | head -1)
  want=$(sed -n 's/^ *"sha256": *"\([0-9a-f]*\)".*/\1/p' "$m" | head -1)
  [ -n "$file" ] && [ -n "$want" ] || { echo "models_check: $m: no \"file\" and \"sha256\" lines"; status=1; continue; }
  [ "$file" = "$(basename "${m%.json}").vnet" ] ||
    { echo "models_check: $m: names $file, not $(basename "${m%.json}").vnet"; status=1; continue; }
  path=$(dirname "$m")/$file
  [ -f "$path" ] || { echo "models_check: $m: names $file, which is not beside it"; status=1; continue; }
  got=$(sha256sum "$path" | cut -d' ' -f1)
  [ "$got" = "$want" ] || { echo "models_check: $m: $file has SHA-256 $got, the manifest says $want"; status=1; }
done
for dated in "$dir"/*-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9].vnet "$dir"/*-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][a-z].vnet; do
  [ -f "$dated" ] || continue
  [ -f "${dated%.vnet}.json" ] || { echo "models_check: $dated has no manifest ${dated%.vnet}.json"; status=1; }
done
for pointer in "$dir"/*-*.vnet; do
  case $(basename "$pointer") in *-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9].vnet | *-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][a-z].vnet) continue ;; esac
  stem=${pointer%.vnet}
  newest=$(ls "$stem"-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9].vnet "$stem"-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][a-z].vnet 2> /dev/null |
    LC_ALL=C sort | tail -1)
  [ -n "$newest" ] || continue  # an experiment net with a name of its own, not a pointer
  cmp -s "$pointer" "$newest" ||
    { echo "models_check: $pointer differs from $newest, the newest dated net it points to"; status=1; }
done
[ $status -eq 0 ] && echo "models_check: manifests and pointers agree"
exit $status
