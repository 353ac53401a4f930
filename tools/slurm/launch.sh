#!/bin/bash
# Submits a run's roles to Slurm in one line: the gatekeeper, then the trainer and a job array
# of self-play workers that start once the gatekeeper has started (--dependency=after:GK), all
# over one run directory that every node mounts (docs/SCALING.md).
#   tools/slurm/launch.sh --run-dir /shared/runs/r1 --config configs/quickstart.yaml --workers 16 --gpus 1
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
#   --cpus-trainer C     CPUs of the trainer [2]; --cpus-gatekeeper C [2]
#   --time T             time limit of every job (Slurm's format, e.g. 2-00:00:00) [the partition's]
#   --exe PATH           the papersoccer executable, visible on every node [papersoccer on PATH,
#                        else build/papersoccer]
#   --generations N      overrides run.generations for every role
#   --poll S             seconds between looks at the run directory while waiting [1]
#   --sbatch-args "..."  more sbatch options for every job (e.g. "--account=lab --qos=long")
#   --dry-run            print the sbatch commands instead of running them
# Prints the job ids; logs go to RUNDIR/slurm/<job name>-<job id>[_<task>].out.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
run_dir="" config="" workers=2 partition="" train_partition="" gpus=0 worker_gpus=0
cpus_worker=2 cpus_trainer=2 cpus_gatekeeper=2 time_limit="" exe="" generations="" poll=""
extra="" dry=0
die() { echo "launch.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --run-dir) run_dir=$2; shift ;;
    --config) config=$2; shift ;;
    --workers) workers=$2; shift ;;
    --partition) partition=$2; shift ;;
    --train-partition) train_partition=$2; shift ;;
    --gpus) gpus=$2; shift ;;
    --worker-gpus) worker_gpus=$2; shift ;;
    --cpus-per-worker) cpus_worker=$2; shift ;;
    --cpus-trainer) cpus_trainer=$2; shift ;;
    --cpus-gatekeeper) cpus_gatekeeper=$2; shift ;;
    --time) time_limit=$2; shift ;;
    --exe) exe=$2; shift ;;
    --generations) generations=$2; shift ;;
    --poll) poll=$2; shift ;;
    --sbatch-args) extra=$2; shift ;;
    --dry-run) dry=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (--help lists them)" ;;
  esac
  shift
done
[ -n "$run_dir" ] || die "--run-dir DIR is required"
for n in workers gpus worker_gpus cpus_worker cpus_trainer cpus_gatekeeper; do
  case ${!n} in ''|*[!0-9]*) die "--${n//_/-} must be a whole number, not '${!n}'" ;; esac
done
[ "$workers" -ge 1 ] || die "--workers must be >= 1"
if [ -z "$exe" ]; then
  exe=$(command -v papersoccer || true)
  [ -n "$exe" ] || exe="$here/../../build/papersoccer"
fi
[ -x "$exe" ] || die "no executable at '$exe' (give --exe PATH)"
exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")
mkdir -p "$run_dir/slurm"
run_dir=$(cd "$run_dir" && pwd)
if [ -n "$config" ]; then
  [ -f "$config" ] || die "no config file '$config'"
  config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")
elif [ ! -f "$run_dir/config.yaml" ]; then
  die "--config FILE is required: $run_dir has no config.yaml yet"
fi
args=""
[ -n "$generations" ] && args="$args --generations $generations"
[ -n "$poll" ] && args="$args --poll $poll"
env="ALL,PS_EXE=$exe,PS_RUN_DIR=$run_dir,PS_CONFIG=$config,PS_ARGS=$args"
common=(--parsable --output="$run_dir/slurm/%x-%j.out" --export="$env")
[ -n "$time_limit" ] && common+=(--time="$time_limit")
[ -n "$partition" ] && common+=(--partition="$partition")
# shellcheck disable=SC2206
[ -n "$extra" ] && common+=($extra)
submit() {
  if [ "$dry" = 1 ]; then
    echo "sbatch $*" >&2
    echo "DRYRUN$RANDOM"
  else
    sbatch "$@"
  fi
}
gk=$(submit "${common[@]}" --cpus-per-task="$cpus_gatekeeper" "$here/gatekeeper.sbatch")
gk=${gk%%;*}
train_opts=(--cpus-per-task="$cpus_trainer" --dependency=after:"$gk")
[ -n "$train_partition" ] && train_opts+=(--partition="$train_partition")
[ "$gpus" -gt 0 ] && train_opts+=(--gres=gpu:"$gpus")
tr=$(submit "${common[@]}" "${train_opts[@]}" "$here/train.sbatch")
tr=${tr%%;*}
worker_opts=(--array=1-"$workers" --cpus-per-task="$cpus_worker" --dependency=after:"$gk"
             --output="$run_dir/slurm/%x-%A_%a.out")
[ "$worker_gpus" -gt 0 ] && worker_opts+=(--gres=gpu:"$worker_gpus")
sp=$(submit "${common[@]}" "${worker_opts[@]}" "$here/selfplay.sbatch")
sp=${sp%%;*}
echo "gatekeeper $gk"
echo "trainer $tr"
echo "selfplay $sp (array 1-$workers)"
