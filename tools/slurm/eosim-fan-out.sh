#!/usr/bin/env bash
# Runs an eosim suite on Slurm: a job array with one shard of the suite per array task, and the
# merge as a second job that starts once every task has ended, whatever their exit codes
# (docs/fan-out.md). Run it on the login node, from a folder every node sees.
#
#   tools/slurm/eosim-fan-out.sh SHARDS RESULTS_DIR SUITE [eosim suite options...]
#   e.g. tools/slurm/eosim-fan-out.sh 4 /shared/eosim/nightly scenarios/default.suite.json --seeds 1..1000
#
# RESULTS_DIR: on storage every node sees. Task I writes RESULTS_DIR/shard-I-of-N.jsonl (and .log);
# the merge writes merged.jsonl, junit.xml, report/index.html and merge.log there.
# EOSIM: the eosim binary, on that storage too (default: build/cli/eosim here).
# EOSIM_CPUS_PER_TASK: CPUs per task (default 1; eosim starts one worker per CPU it may use).
# EOSIM_ARRAY: the array indices to run (default 1-SHARDS); EOSIM_ARRAY=3 runs task 3 again, which
#   resumes from its results file (--resume), and a new merge after it.
# Further sbatch options through sbatch's own variables (SBATCH_PARTITION, SBATCH_TIMELIMIT,
# SBATCH_ACCOUNT, ...). Prints "array JOBID merge JOBID". The merge's exit code is the verdict: a
# shard skips the "sometimes" coverage check (another shard's seeds may reach it), and a task with a
# failing run exits 1, so the merge depends on the array with afterany, not afterok.
set -euo pipefail

if (($# < 3)); then
    sed -n '2,19s/^# \{0,1\}//p' "$0" >&2
    exit 2
fi
if ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
    echo "eosim-fan-out.sh: SHARDS: expected a positive whole number, found \"$1\"" >&2
    exit 2
fi
# What the tasks read: sbatch exports this environment to them (--export=ALL, its default).
export EOSIM_SHARDS=$1
export EOSIM_RESULTS
EOSIM_RESULTS=$(realpath -m -- "$2")
export EOSIM_SUITE=$3
shift 3
export EOSIM_OPTIONS="$*"  # split on spaces again in the task: options without spaces in them
export EOSIM=${EOSIM:-$PWD/build/cli/eosim}
if [[ ! -x $EOSIM ]]; then
    echo "eosim-fan-out.sh: no eosim binary at $EOSIM (build it, or set EOSIM)" >&2
    exit 2
fi
mkdir -p "$EOSIM_RESULTS"

# Single quotes: ${SLURM_ARRAY_TASK_ID} and the rest expand in each task, not here. --shard counts
# from 1, as --array=1-N does.
array=$(sbatch --parsable --job-name=eosim-shard --array="${EOSIM_ARRAY:-1-$EOSIM_SHARDS}" \
    --cpus-per-task="${EOSIM_CPUS_PER_TASK:-1}" --output="$EOSIM_RESULTS/shard-%a-of-$EOSIM_SHARDS.log" \
    --wrap='exec "$EOSIM" suite "$EOSIM_SUITE" $EOSIM_OPTIONS --shard "${SLURM_ARRAY_TASK_ID}/${EOSIM_SHARDS}" --resume --results "$EOSIM_RESULTS/shard-${SLURM_ARRAY_TASK_ID}-of-${EOSIM_SHARDS}.jsonl"')
array=${array%%;*}  # "JOBID;CLUSTER" on a multi-cluster site

merge=$(sbatch --parsable --job-name=eosim-merge --dependency="afterany:$array" --cpus-per-task=1 \
    --output="$EOSIM_RESULTS/merge.log" \
    --wrap='exec "$EOSIM" merge "$EOSIM_RESULTS"/shard-*-of-"$EOSIM_SHARDS".jsonl --results "$EOSIM_RESULTS/merged.jsonl" --junit "$EOSIM_RESULTS/junit.xml" --report "$EOSIM_RESULTS/report"')
merge=${merge%%;*}
echo "array $array merge $merge"
