#!/usr/bin/env bash
# Smoke run of one fuzz harness: its seed corpus first, then PS_FUZZ_SMOKE_SECONDS (25) of
# fuzzing; new inputs go to a scratch corpus, never into the committed seeds.
#   smoke.sh FUZZER SEED_DIR SCRATCH_DIR
set -euo pipefail
fuzzer=$1 seeds=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch/corpus" "$scratch/artifacts"
exec "$fuzzer" -max_total_time="${PS_FUZZ_SMOKE_SECONDS:-25}" -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$scratch/artifacts/" "$scratch/corpus" "$seeds"
