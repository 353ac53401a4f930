#!/bin/bash
# Submits a run's roles to Slurm in one line: the gatekeeper, then the trainer and a job array
# of self-play workers that start once the gatekeeper has started (--dependency=after:GK), all
# over one run directory that every node mounts (docs/SCALING.md). A value-net run
# (run.learner: value-net) has no trainer or gatekeeper: `run` (run.sbatch, with the CPUs of
# --cpus-gatekeeper) trains and gates, and the array's workers play its teacher games.
#   tools/slurm/launch.sh --run-dir /shared/runs/r1 --config configs/quickstart.yaml --workers 16 --gpus 1
#   tools/slurm/launch.sh --run-dir /shared/runs/v1 --config configs/ship-8x10-value-net.yaml --workers 16
# Options (defaults in brackets):
#   --run-dir DIR        run directory on a shared filesystem (required)
#   --config FILE        run config (required the first time; later the run directory's copy)
#   --workers N          self-play workers: array tasks 1..N [2]
#   --partition P        partition of every job [the cluster's default]
#   --train-partition P  partition of the trainer (e.g. the GPU one) [--partition]
#   --gpus N             GPUs of the trainer (--gres=gpu:N; set train.device: cuda) [0]
#   --worker-gpus N      GPUs of each self-play worker (set service.device: cuda) [0]
#   --cpus-per-worker C  CPUs of each self-play worker (selfplay.concurrent_games and
#                        service.workers should fit them) [2]
#   --cpus-trainer C     CPUs of the trainer [2]; --cpus-gatekeeper C [2] (a value-net run: `run`'s)
#   --time T             time limit of every job (Slurm's format, e.g. 2-00:00:00) [the partition's]
#   --exe PATH           the papersoccer executable, visible on every node [papersoccer on PATH,
#                        else build/papersoccer]
#   --generations N      overrides run.generations for every role
#   --poll S             seconds between looks at the run directory while waiting [1]
#   --heartbeat S        seconds between heartbeats of each role's claim (RUNDIR/claims/; a
#                        requeued role on another node takes a dead one's claim over after 3) [30]
#   --sbatch-args "..."  more sbatch options for every job (e.g. "--account=lab --qos=long")
#   --dry-run            print the sbatch commands (quoted for a shell, to stderr) instead of
#                        running them; creates nothing
# Prints the job ids; logs go to RUNDIR/slurm/<job name>-<job id>[_<task>].out.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
run_dir="" config="" workers=2 partition="" train_partition="" gpus=0 worker_gpus=0
cpus_worker=2 cpus_trainer=2 cpus_gatekeeper=2 time_limit="" exe="" generations="" poll="" heartbeat=""
extra="" dry=0
die() { echo "launch.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --dry-run) dry=1; shift; continue ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --run-dir|--config|--workers|--partition|--train-partition|--gpus|--worker-gpus|--cpus-per-worker|\
    --cpus-trainer|--cpus-gatekeeper|--time|--exe|--generations|--poll|--heartbeat|--sbatch-args)
      [ $# -ge 2 ] || die "$1 needs a value (--help lists the options)"
      # Only --sbatch-args takes values that look like options.
      case $1:$2 in --sbatch-args:*) ;; *:--*) die "$1 needs a value, not the option '$2'" ;; esac ;;
    *) die "unknown option '$1' (--help lists them)" ;;
  esac
  case $1 in
    --run-dir) run_dir=$2 ;;
    --config) config=$2 ;;
    --workers) workers=$2 ;;
    --partition) partition=$2 ;;
    --train-partition) train_partition=$2 ;;
    --gpus) gpus=$2 ;;
    --worker-gpus) worker_gpus=$2 ;;
    --cpus-per-worker) cpus_worker=$2 ;;
    --cpus-trainer) cpus_trainer=$2 ;;
    --cpus-gatekeeper) cpus_gatekeeper=$2 ;;
    --time) time_limit=$2 ;;
    --exe) exe=$2 ;;
    --generations) generations=$2 ;;
    --poll) poll=$2 ;;
    --heartbeat) heartbeat=$2 ;;
    --sbatch-args) extra=$2 ;;
  esac
  shift 2
done
[ -n "$run_dir" ] || die "--run-dir DIR is required"
whole() {  # whole() OPTION VALUE MIN: a whole number >= MIN
  case $2 in ''|*[!0-9]*) die "$1 must be a whole number >= $3, not '$2'" ;; esac
  [ "$2" -ge "$3" ] || die "$1 must be a whole number >= $3, not '$2'"
}
seconds() {  # seconds OPTION VALUE: a number of seconds in [0.1, 3600], as the roles take
  echo "$2" | grep -Eq '^([0-9]+([.][0-9]*)?|[.][0-9]+)$' &&
    awk -v s="$2" 'BEGIN { exit !(s >= 0.1 && s <= 3600) }' ||
    die "$1 must be a number of seconds from 0.1 to 3600, not '$2'"
}
whole --workers "$workers" 1
whole --gpus "$gpus" 0
whole --worker-gpus "$worker_gpus" 0
whole --cpus-per-worker "$cpus_worker" 1
whole --cpus-trainer "$cpus_trainer" 1
whole --cpus-gatekeeper "$cpus_gatekeeper" 1
[ -z "$generations" ] || whole --generations "$generations" 1
[ -z "$poll" ] || seconds --poll "$poll"
[ -z "$heartbeat" ] || seconds --heartbeat "$heartbeat"
if [ -z "$exe" ]; then
  exe=$(command -v papersoccer || true)
  [ -n "$exe" ] || exe="$here/../../build/papersoccer"
fi
[ -x "$exe" ] || die "no executable at '$exe' (give --exe PATH)"
exe=$(realpath -m "$exe")
run_dir=$(realpath -m "$run_dir")  # absolute without creating anything (--dry-run creates nothing)
if [ -n "$config" ]; then
  [ -f "$config" ] || die "no config file '$config'"
  config=$(realpath -m "$config")
elif [ ! -f "$run_dir/config.yaml" ]; then
  die "--config FILE is required: $run_dir has no config.yaml yet"
fi
# sbatch --export separates its variables by commas.
for p in "$exe" "$run_dir" "$config"; do
  case $p in *,*) die "'$p': a path with a comma cannot pass through sbatch --export" ;; esac
done
# The learner, from the config (comments left out).
shared_config=${config:-$run_dir/config.yaml}
value_net=0
sed 's/#.*//' "$shared_config" | grep -Eq "learner:[[:space:]]*[\"']?value-net" && value_net=1
args=""
run_args=""
[ -n "$generations" ] && args="$args --generations $generations" && run_args="--generations $generations"
[ -n "$poll" ] && args="$args --poll $poll"
[ -n "$heartbeat" ] && args="$args --heartbeat $heartbeat"
env="ALL,PS_EXE=$exe,PS_RUN_DIR=$run_dir,PS_CONFIG=$config,PS_ARGS=$args,PS_RUN_ARGS=$run_args"
common=(--parsable --output="$run_dir/slurm/%x-%j.out" --export="$env")
[ -n "$time_limit" ] && common+=(--time="$time_limit")
[ -n "$partition" ] && common+=(--partition="$partition")
# shellcheck disable=SC2206
[ -n "$extra" ] && common+=($extra)
[ "$dry" = 1 ] || mkdir -p "$run_dir/slurm"
submit() {  # submit ROLE SBATCH-ARGS...: prints the job id; with --dry-run the command,
            # quoted for a shell, to stderr, and a stand-in id
  local role=$1
  shift
  if [ "$dry" = 1 ]; then
    { printf 'sbatch'; printf ' %q' "$@"; printf '\n'; } >&2
    echo "dry-run-$role"
  else
    sbatch "$@"
  fi
}
worker_opts=(--array=1-"$workers" --cpus-per-task="$cpus_worker" --output="$run_dir/slurm/%x-%A_%a.out")
[ "$worker_gpus" -gt 0 ] && worker_opts+=(--gres=gpu:"$worker_gpus")
if [ "$value_net" = 1 ]; then
  rn=$(submit run "${common[@]}" --cpus-per-task="$cpus_gatekeeper" "$here/run.sbatch")
  rn=${rn%%;*}
  sp=$(submit selfplay "${common[@]}" "${worker_opts[@]}" --dependency=after:"$rn" "$here/selfplay.sbatch")
  sp=${sp%%;*}
  echo "run $rn"
  echo "selfplay $sp (array 1-$workers)"
  exit 0
fi
gk=$(submit gatekeeper "${common[@]}" --cpus-per-task="$cpus_gatekeeper" "$here/gatekeeper.sbatch")
gk=${gk%%;*}
train_opts=(--cpus-per-task="$cpus_trainer" --dependency=after:"$gk")
[ -n "$train_partition" ] && train_opts+=(--partition="$train_partition")
[ "$gpus" -gt 0 ] && train_opts+=(--gres=gpu:"$gpus")
tr=$(submit trainer "${common[@]}" "${train_opts[@]}" "$here/train.sbatch")
tr=${tr%%;*}
sp=$(submit selfplay "${common[@]}" "${worker_opts[@]}" --dependency=after:"$gk" "$here/selfplay.sbatch")
sp=${sp%%;*}
echo "gatekeeper $gk"
echo "trainer $tr"
echo "selfplay $sp (array 1-$workers)"
