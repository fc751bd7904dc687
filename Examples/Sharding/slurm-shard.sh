#!/usr/bin/env bash
# One shard of an imagecache-bench run per Slurm array task; `merge` combines them.
#   jobid=$(sbatch --parsable --array=1-8 Examples/Sharding/slurm-shard.sh sweep --policy all)
#   sbatch --dependency=afterok:$jobid --wrap \
#       ".build/release/imagecache-bench merge results/shards/* -o results/merged"
# Run from the project folder (sbatch keeps the submitting folder), after
# `swift build -c release`. The arguments are the run's (default: sweep); every task
# gets the same ones plus --shard i/n, and writes results/shards/<i>.
# Override with IMAGECACHE_BENCH (the executable) and SHARD_RESULTS (the folder).
#SBATCH --job-name=imagecache-bench
#SBATCH --cpus-per-task=2
#SBATCH --time=01:00:00
set -euo pipefail
bench="${IMAGECACHE_BENCH:-.build/release/imagecache-bench}"
: "${SLURM_ARRAY_TASK_ID:?run as an array job: sbatch --array=1-N $0}"
first="${SLURM_ARRAY_TASK_MIN:-1}"
count="${SLURM_ARRAY_TASK_COUNT:?run as an array job: sbatch --array=1-N $0}"
index=$((SLURM_ARRAY_TASK_ID - first + 1))
out="${SHARD_RESULTS:-results/shards}"
mkdir -p "$out"
[ $# -gt 0 ] || set -- sweep
exec "$bench" "$@" --shard "$index/$count" -o "$out/$index"
