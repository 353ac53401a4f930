#!/bin/bash
# The roles through the Slurm batch scripts (tools/slurm/) on a real single-node Slurm cluster
# that this test brings up on localhost (Debian's slurmctld, slurmd and munge: tools/setup_slurm.sh;
# the test skips, exit 77, without them or without root). A tiny run: gatekeeper, trainer, two
# self-play workers (a job array); worker 2 is cancelled with scancel after it has stored a few
# games. Checks: the run finishes (state.json), a network is promoted and best.model loads,
# every game each worker reported stored is in the data, every chunk reads back.
#   slurm_localhost.sh EXE WORKDIR
# Cluster: slurm.conf written here (ProctrackType=proctrack/linuxproc, TaskPlugin=task/none, no
# accounting, AuthInfo=socket=<munge socket here>, ports 16817/16818), SLURM_CONF exported for
# the clients, `slurmd -D -N <node>`, readiness polled with sinfo; the daemons are stopped by
# their PIDs at the end, whatever happens.
set -u
EXE=$1
WORK=$2
SRC=$(cd "$(dirname "$0")/../.." && pwd)
skip() { echo "SKIP: $*"; exit 77; }
for c in munged slurmctld slurmd sbatch sinfo squeue scancel; do
  command -v $c > /dev/null 2>&1 || skip "$c not installed (tools/setup_slurm.sh installs Debian's Slurm and munge)"
done
[ "$(id -u)" = 0 ] || skip "needs root (munged and slurmd run as root here)"

rm -rf "$WORK"
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
# munge wants private folders it owns (socket folder mode 755); a fresh one under /tmp
# (short socket path) holds the key, socket, pid, log and seed.
M=$(mktemp -d /tmp/ps-munge.XXXXXX)
chmod 755 "$M"
S="$WORK/slurm"
mkdir -p "$S/spool" "$S/state"
NODE=$(hostname -s)
pids=""
cleanup() {
  for p in $pids; do kill "$p" 2> /dev/null; done
  sleep 1
  for p in $pids; do kill -9 "$p" 2> /dev/null; done
  [ -f "$M/munged.pid" ] && kill "$(cat "$M/munged.pid")" 2> /dev/null
  rm -rf "$M"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in "$S"/*.log "$WORK"/run/slurm/*.out; do [ -f "$f" ] && { echo "--- $f"; tail -8 "$f"; }; done
  exit 1
}

dd if=/dev/urandom of="$M/munge.key" bs=1024 count=1 2> /dev/null
chmod 400 "$M/munge.key"
munged --force --socket="$M/sock" --key-file="$M/munge.key" --pid-file="$M/munged.pid" \
  --log-file="$M/munged.log" --seed-file="$M/munged.seed" || fail "munged did not start"

cat > "$S/slurm.conf" <<CONF
ClusterName=pstest
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$M/sock
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
KillWait=10
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
CONF
export SLURM_CONF="$S/slurm.conf"
slurmctld -D -i > "$S/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -N "$NODE" > "$S/slurmd.out" 2>&1 &
pids="$pids $!"
t=0
until sinfo -h -o %T 2> /dev/null | grep -q idle; do
  t=$((t + 1))
  [ $t -gt 300 ] && fail "the cluster did not come up in 30 s: $(sinfo 2>&1 | tail -2)"
  sleep 0.1
done
echo "cluster up in $((t / 10)).$((t % 10)) s"

RUN="$WORK/run"
CFG="$WORK/tiny.yaml"
cat > "$CFG" <<YAML
run: {name: slurm, generations: 2, pitch: 6x8}
service: {max_batch: 8, batch_timeout_us: 0, workers: 1, torch_threads: 1}
selfplay: {games: 6, concurrent_games: 2, visits: 8, cheap_visits: 4, games_per_chunk: 2}
train: {net: {preset: tiny}, threads: 1, batch_size: 16, steps: 30, rows_per_sample: 4, checkpoint_interval: 10, log_interval: 10, window: {min_samples: 50}}
evaluate: {games: 2, final_games: 2, visits: 8, openings: 1, opening_turns: 1, concurrency: 1}
YAML
out=$("$SRC/tools/slurm/launch.sh" --run-dir "$RUN" --config "$CFG" --workers 2 --exe "$EXE" \
  --cpus-per-worker 1 --cpus-trainer 1 --cpus-gatekeeper 1 --poll 0.2) || fail "launch.sh: $out"
echo "$out"
sp=$(echo "$out" | sed -n 's/^selfplay \([0-9]*\).*/\1/p')
gk=$(echo "$out" | sed -n 's/^gatekeeper \([0-9]*\)/\1/p')
W2="$RUN/slurm/ps-selfplay-${sp}_2.out"
t=0
until [ "$(grep -c 'stored in' "$W2" 2> /dev/null)" -ge 3 ] 2> /dev/null; do
  t=$((t + 1))
  [ $t -gt 1200 ] && fail "worker 2 stored no 3 games in 120 s"
  sleep 0.1
done
scancel "${sp}_2" || fail "scancel"
echo "cancelled worker 2 (job ${sp}_2) after it reported $(grep -c 'stored in' "$W2") games stored"
t=0
while squeue -h -j "$gk" 2> /dev/null | grep -q .; do
  t=$((t + 1))
  [ $t -gt 3000 ] && fail "the gatekeeper job did not finish in 300 s"
  sleep 0.1
done
t=0
while squeue -h 2> /dev/null | grep -q .; do  # the trainer and worker 1 end by themselves
  t=$((t + 1))
  [ $t -gt 600 ] && fail "jobs left after the gatekeeper finished: $(squeue -h)"
  sleep 0.1
done
grep -q '"phase": *"finished"' "$RUN/state.json" || fail "state.json: $(cat "$RUN/state.json")"
grep -q '"best": *"gen-0000"' "$RUN/state.json" && fail "no network was promoted"
"$EXE" export "$RUN/best.model" "$WORK/check.model" > /dev/null 2>&1 || fail "best.model does not load"
records() { cat "$RUN"/data/gen*-"$1"-*.tsv 2> /dev/null | grep -c .; }
for w in 1 2; do
  f="$RUN/slurm/ps-selfplay-${sp}_$w.out"
  reported=$(grep -c 'stored in' "$f")
  stored=$(records w$w)
  echo "worker $w: $reported games reported, $stored stored"
  [ "$stored" -ge "$reported" ] || fail "worker $w lost stored games"
  [ "$stored" -le $((reported + 2)) ] || fail "worker $w: more games stored than played"
done
grep -q "the run is finished" "$RUN/slurm/ps-selfplay-${sp}_1.out" || fail "worker 1 did not see the run finish"
sed 's/steps: 30,/steps: 1,/' "$CFG" > "$WORK/check.yaml"
"$EXE" train "$WORK/check.yaml" --data "$RUN/data" --out "$WORK/check.ckpt" > "$WORK/check.log" 2>&1 ||
  fail "the data does not read back: $(tail -3 "$WORK/check.log")"
echo "PASS"
