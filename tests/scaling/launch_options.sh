#!/bin/bash
# tools/slurm/launch.sh's options without Slurm (label "scaling"): inputs it once mishandled.
#   - --dry-run creates nothing (it made RUNDIR/slurm) and prints each sbatch command quoted for
#     a shell: run through a stand-in sbatch, the words are the ones launch.sh meant (PS_ARGS
#     with spaces, a run directory with a space);
#   - an option without its value is a usage error naming it (--run-dir alone died with
#     "unbound variable"), exit status 2;
#   - non-numeric or out-of-range numbers are refused (--poll abc was accepted).
#   launch_options.sh EXE WORKDIR
set -u
EXE=$1
WORK=$2
LAUNCH="$(dirname "$0")/../../tools/slurm/launch.sh"
CFG="$(dirname "$0")/tiny.yaml"
rm -rf "$WORK"
mkdir -p "$WORK"
fail() { echo "FAIL: $*"; exit 1; }

# Dry run: nothing created, commands quoted.
RUN="$WORK/run dir"
bash "$LAUNCH" --dry-run --run-dir "$RUN" --config "$CFG" --exe "$EXE" --generations 3 --poll 0.5 \
  --workers 2 > "$WORK/dry.out" 2> "$WORK/dry.err" || fail "dry run: exit $?: $(cat "$WORK/dry.err")"
[ -e "$RUN" ] && fail "--dry-run created $RUN"
[ "$(grep -c '^sbatch ' "$WORK/dry.err")" -eq 3 ] || fail "3 sbatch commands expected: $(cat "$WORK/dry.err")"
n=0
sbatch() { n=$((n + 1)); printf '%s\n' "$@" > "$WORK/args.$n"; }
while read -r line; do eval "$line"; done < <(grep '^sbatch ' "$WORK/dry.err")
[ "$n" -eq 3 ] || fail "the printed commands do not run as shell commands"
exe_abs=$(realpath "$EXE")
grep -qxF -- "--export=ALL,PS_EXE=$exe_abs,PS_RUN_DIR=$(realpath -m "$RUN"),PS_CONFIG=$(realpath "$CFG"),PS_ARGS= --generations 3 --poll 0.5,PS_RUN_ARGS=--generations 3" \
  "$WORK/args.1" || fail "gatekeeper's --export is not one word: $(cat "$WORK/args.1")"
grep -qx -- "--array=1-2" "$WORK/args.3" || fail "no worker array: $(cat "$WORK/args.3")"
grep -qx -- "--dependency=after:dry-run-gatekeeper" "$WORK/args.2" || fail "trainer dependency: $(cat "$WORK/args.2")"

# A value-net run: `run` (run.sbatch) and the workers after it; no trainer, no gatekeeper.
bash "$LAUNCH" --dry-run --run-dir "$RUN" --config "$(dirname "$0")/tiny-value-net.yaml" --exe "$EXE" \
  --generations 3 --workers 4 > "$WORK/vn.out" 2> "$WORK/vn.err" || fail "value-net dry run: $(cat "$WORK/vn.err")"
[ "$(grep -c '^sbatch ' "$WORK/vn.err")" -eq 2 ] || fail "value-net: 2 sbatch commands expected: $(cat "$WORK/vn.err")"
grep '^sbatch ' "$WORK/vn.err" | head -1 | grep -q 'run.sbatch$' || fail "value-net: run.sbatch first: $(cat "$WORK/vn.err")"
grep '^sbatch ' "$WORK/vn.err" | tail -1 | grep -q -- '--dependency=after:dry-run-run .*selfplay.sbatch$' ||
  fail "value-net: workers after run: $(cat "$WORK/vn.err")"
grep -q 'PS_RUN_ARGS=--generations\\ 3' "$WORK/vn.err" || fail "value-net: run's --generations: $(cat "$WORK/vn.err")"
grep -qx 'run dry-run-run' "$WORK/vn.out" || fail "value-net: job ids: $(cat "$WORK/vn.out")"

# Options without their values.
for opt in --run-dir --config --workers --partition --train-partition --gpus --worker-gpus \
           --cpus-per-worker --cpus-trainer --cpus-gatekeeper --time --exe --generations --poll \
           --heartbeat --sbatch-args; do
  bash "$LAUNCH" --dry-run --run-dir "$RUN" --config "$CFG" --exe "$EXE" $opt > /dev/null 2> "$WORK/err"
  rc=$?
  [ $rc -eq 2 ] || fail "$opt without a value: exit $rc, expected 2"
  grep -q -- "$opt needs a value" "$WORK/err" || fail "$opt without a value: $(cat "$WORK/err")"
done
bash "$LAUNCH" --run-dir --dry-run > /dev/null 2> "$WORK/err"
grep -q -- "--run-dir needs a value, not the option '--dry-run'" "$WORK/err" || fail "--run-dir --dry-run: $(cat "$WORK/err")"

# Numbers.
bad() {  # bad OPTION VALUE MESSAGE
  bash "$LAUNCH" --dry-run --run-dir "$RUN" --config "$CFG" --exe "$EXE" "$1" "$2" > /dev/null 2> "$WORK/err"
  rc=$?
  [ $rc -eq 2 ] || fail "$1 $2: exit $rc, expected 2"
  grep -q -- "$3" "$WORK/err" || fail "$1 $2: $(cat "$WORK/err")"
}
bad --poll abc "--poll must be a number of seconds from 0.1 to 3600, not 'abc'"
bad --poll -1 "--poll must be a number"
bad --poll 0 "--poll must be a number"
bad --heartbeat 1e3 "--heartbeat must be a number"
bad --workers 0 "--workers must be a whole number >= 1, not '0'"
bad --workers abc "--workers must be a whole number"
bad --gpus -1 "--gpus must be a whole number >= 0"
bad --generations 0 "--generations must be a whole number >= 1"
bad --cpus-trainer 2.5 "--cpus-trainer must be a whole number"
bad --bogus x "unknown option '--bogus'"
bash "$LAUNCH" --dry-run --run-dir "$WORK/a,b" --config "$CFG" --exe "$EXE" > /dev/null 2> "$WORK/err"
grep -q "comma" "$WORK/err" || fail "a run directory with a comma: $(cat "$WORK/err")"
[ -e "$RUN" ] && fail "a failed launch created $RUN"
echo "PASS"
