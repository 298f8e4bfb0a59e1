#!/usr/bin/env bash
# Runs the Slurm recipe of docs/fan-out.md for real: starts a one-node Slurm cluster on localhost
# (munged, slurmctld, slurmd; every file in a temporary folder, ports 6817/6818), submits
# tools/slurm/eosim-fan-out.sh (a job array of SHARDS shards and the merge after it), waits, and
# checks:
#   - the merge's exit code (its verdict) and its summary, runs and trace hashes equal those of the
#     same suite run unsharded here;
#   - each task started one worker: Slurm's task/affinity gives a one-CPU task one CPU;
#   - a task run again after its results file was cut (EOSIM_ARRAY=I, as the doc says to resume a
#     failed task) runs only the missing runs, and the merge after it gives the same verdict;
#   - the Kubernetes recipe's shard and merge commands, run here with JOB_COMPLETION_INDEX 0..N-1
#     (no cluster), give the same verdict and runs;
#   - a merge of all shards but one fails (the check can fail);
#   - docs/fan-out.md shows tools/slurm/eosim-fan-out.sh as it is.
# Stops everything it started (trap), and removes the folder unless the check failed.
#
#   tools/slurm/fan-out-check.sh            (./build.sh fan-out-check installs what it needs first)
#
# Needs root (slurmd launches the jobs), slurmctld, slurmd, slurm-client, munge and jq, and
# build/cli/eosim. EOSIM_CHECK_SHARDS (default 4), EOSIM_CHECK_SEEDS (default 1..20): the suite,
# scenarios/default.suite.json over those seeds.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

readonly SHARDS=${EOSIM_CHECK_SHARDS:-4}
readonly SEEDS=${EOSIM_CHECK_SEEDS:-1..20}
readonly SUITE=scenarios/default.suite.json
readonly EOSIM_BINARY=$PWD/build/cli/eosim
readonly WAIT_SECONDS=1800

say() { echo "fan-out-check: $*"; }
fail() {
    echo "fan-out-check: FAILED: $*" >&2
    exit 1
}

if ((EUID != 0)); then
    say "needs root (slurmd launches the jobs); run it with sudo"
    exit 2
fi
for program in munged mungekey slurmctld slurmd sbatch scontrol sinfo jq; do
    command -v "$program" >/dev/null || { say "$program is not installed (./build.sh fan-out-check installs it)"; exit 2; }
done
[[ -x $EOSIM_BINARY ]] || { say "no $EOSIM_BINARY (./build.sh fan-out-check builds it)"; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/eosim-slurm.XXXXXX")
chmod 755 "$work"  # munged wants every folder above its socket searchable by all
daemons=()
jobs_submitted=()
merge_job=
passed=0

stop_everything() {
    if ((${#jobs_submitted[@]} > 0)); then scancel "${jobs_submitted[@]}" 2>/dev/null || true; fi
    local pid
    for pid in "${daemons[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${daemons[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    if ((passed)); then rm -rf "$work"; else echo "fan-out-check: the cluster's files and logs are in $work" >&2; fi
}
trap stop_everything EXIT

# A daemon in the foreground, in the background, remembered for stop_everything.
start_daemon() {
    local log=$1
    shift
    "$@" >"$work/$log" 2>&1 &
    daemons+=($!)
}

write_slurm_conf() {
    mkdir -p "$work/ctld" "$work/spool"
    cat >"$work/slurm.conf" <<EOF
ClusterName=eosimcheck
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
AuthInfo=socket=$work/munge.socket
CredType=cred/munge
StateSaveLocation=$work/ctld
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
MinJobAge=3600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc)
PartitionName=check Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
}

start_cluster() {
    mungekey --create --keyfile="$work/munge.key"
    start_daemon munged.out munged --foreground --key-file="$work/munge.key" --socket="$work/munge.socket" \
        --pid-file="$work/munged.pid" --log-file="$work/munged.log" --seed-file="$work/munged.seed"
    write_slurm_conf
    export SLURM_CONF=$work/slurm.conf
    for _ in $(seq 100); do [[ -S $work/munge.socket ]] && break; sleep 0.1; done
    start_daemon slurmctld.out slurmctld -D -i
    start_daemon slurmd.out slurmd -D -N localhost
    for _ in $(seq 120); do
        [[ $(sinfo --noheader --nodes=localhost --format=%t 2>/dev/null) == idle ]] && return
        sleep 0.5
    done
    tail -n 20 "$work"/*.out >&2
    fail "the one-node cluster did not come up within 60 s"
}

# The state and exit code of a job ("COMPLETED 0"), once it has ended.
wait_for_job() {
    local job=$1 line state
    for _ in $(seq $((WAIT_SECONDS * 2))); do
        line=$(scontrol show job "$job" --oneliner)
        state=$(sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' <<<"$line")
        case $state in
            PENDING | RUNNING | CONFIGURING | COMPLETING | REQUEUED | RESIZING | SUSPENDED) sleep 0.5 ;;
            *) echo "$state $(sed -n 's/.* ExitCode=\([0-9]*\):.*/\1/p' <<<"$line")"; return ;;
        esac
    done
    fail "job $job did not end within $WAIT_SECONDS s"
}

# tools/slurm/eosim-fan-out.sh as the doc runs it; sets merge_job.
submit() {
    local ids array_job
    ids=$(EOSIM=$EOSIM_BINARY tools/slurm/eosim-fan-out.sh "$SHARDS" "$work/results" "$SUITE" --seeds "$SEEDS")
    say "submitted: $ids"
    read -r _ array_job _ merge_job <<<"$ids"
    jobs_submitted+=("$array_job" "$merge_job")
}

# scenario, seed, status and trace hash of every run of a results file, sorted.
runs_of() { jq -c 'select(.scenario) | [.scenario, .seed, .status, .trace_hash]' "$1" | sort; }
# A summary.json without the wall times, which differ from run to run.
summary_of() { jq -S 'del(.. | .wall_seconds?)' "$1"; }

# The merge of job $1 ended with the unsharded run's verdict, summary and runs.
check_merge() {
    local merge=$1 expected_code=$2 result
    result=$(wait_for_job "$merge")
    say "merge job $merge: $result (unsharded: exit code $expected_code)"
    [[ $result == "COMPLETED 0" || $result == "FAILED "* ]] || fail "the merge job ended $result; see $work/results/merge.log"
    [[ ${result#* } == "$expected_code" ]] || fail "the merge's exit code ${result#* } differs from the unsharded run's $expected_code"
    diff <(runs_of "$work/results/merged.jsonl") <(runs_of "$work/whole.jsonl") >&2 ||
        fail "the merged runs differ from the unsharded run's"
    diff <(summary_of "$work/results/report/summary.json") <(summary_of "$work/whole/summary.json") >&2 ||
        fail "the merged summary differs from the unsharded run's"
}

# The Kubernetes recipe's commands (docs/fan-out.md: the shards' script and the merge's), run here
# under /bin/sh as the Indexed Job runs them: JOB_COMPLETION_INDEX 0..N-1, eosim on the PATH, the
# repository as the working folder, a local folder as /results, the check's seeds for the doc's.
# Each shard must exit 0 (exit 1, failing runs, is mapped to 0: the merge has the verdict), and the
# merge must give the unsharded run's exit code and runs.
check_kubernetes_commands() {
    local expected_code=$1 shard merge total i code=0
    total=$(sed -n 's/^  completions: \([0-9]*\)$/\1/p' docs/fan-out.md)
    shard=$(awk '/^            - \|$/ {on = 1; next} on && /^          resources:/ {exit} on' docs/fan-out.md | sed 's/^              //')
    merge=$(sed -n 's/^            - \(eosim merge .*\)$/\1/p' docs/fan-out.md)
    [[ -n $total && -n $shard && -n $merge ]] || fail "docs/fan-out.md: the Kubernetes shard or merge command is not where this check looks"
    shard=$(sed "s#/results/#$work/k8s/#g; s#--seeds 1\.\.1000#--seeds $SEEDS#" <<<"$shard")
    merge=${merge//\/results\//$work/k8s/}
    [[ $shard == *"--seeds $SEEDS"* ]] || fail "docs/fan-out.md: the Kubernetes shard command has no --seeds 1..1000 to replace"
    mkdir -p "$work/k8s"
    for ((i = 0; i < total; i++)); do
        JOB_COMPLETION_INDEX=$i PATH=$(dirname "$EOSIM_BINARY"):$PATH sh -c "$shard" >"$work/k8s/index-$i.log" 2>&1 ||
            fail "the Kubernetes shard command failed for index $i; see $work/k8s/index-$i.log"
    done
    PATH=$(dirname "$EOSIM_BINARY"):$PATH sh -c "$merge" >"$work/k8s/merge.log" 2>&1 || code=$?
    ((code == expected_code)) || fail "the Kubernetes merge exited $code, the unsharded run $expected_code"
    diff <(runs_of "$work/k8s/merged.jsonl") <(runs_of "$work/whole.jsonl") >&2 ||
        fail "the Kubernetes recipe's merged runs differ from the unsharded run's"
}

# The script docs/fan-out.md shows is the one this check submits.
check_doc() {
    diff <(sed -n '/^<!-- fan-out-check: /,/^```$/p' docs/fan-out.md | sed '1,2d;$d') tools/slurm/eosim-fan-out.sh >&2 ||
        fail "docs/fan-out.md's Slurm script differs from tools/slurm/eosim-fan-out.sh"
}

main() {
    local start=$SECONDS phase
    check_doc
    say "starting a one-node Slurm cluster in $work"
    start_cluster
    say "cluster up in $((SECONDS - start)) s: $(sinfo --noheader --format='%P %D node, %c CPUs, %t')"

    phase=$SECONDS
    submit
    local unsharded_code=0
    "$EOSIM_BINARY" suite "$SUITE" --seeds "$SEEDS" --progress none --results "$work/whole.jsonl" --report "$work/whole" \
        >"$work/whole.log" 2>&1 || unsharded_code=$?
    ((unsharded_code <= 1)) || fail "the unsharded run exited $unsharded_code; see $work/whole.log"
    check_merge "$merge_job" "$unsharded_code"
    say "array of $SHARDS shards + merge, and the same suite unsharded: $((SECONDS - phase)) s"
    local i
    for ((i = 1; i <= SHARDS; i++)); do
        grep -q "; 1 worker (CPU affinity: 1 of $(nproc) CPUs)" "$work/results/shard-$i-of-$SHARDS.log" ||
            fail "task $i did not start exactly one worker: $(head -n 1 "$work/results/shard-$i-of-$SHARDS.log")"
    done
    say "every task started 1 worker (CPU affinity)"

    # A task that failed half-way: its results file cut after the first run, run again.
    phase=$SECONDS
    local shard_file=$work/results/shard-2-of-$SHARDS.jsonl
    head -n 2 "$shard_file" >"$work/cut.jsonl" && mv "$work/cut.jsonl" "$shard_file"
    EOSIM_ARRAY=2 submit
    check_merge "$merge_job" "$unsharded_code"
    grep -q "; 1 already done, " "$work/results/shard-2-of-$SHARDS.log" || fail "task 2 did not resume from its results file"
    say "task 2 resumed ($(grep -o '1 already done, [0-9]* to run' "$work/results/shard-2-of-$SHARDS.log")) and merged again: $((SECONDS - phase)) s"

    phase=$SECONDS
    check_kubernetes_commands "$unsharded_code"
    say "the Kubernetes recipe's shard and merge commands, run here: same verdict and runs ($((SECONDS - phase)) s)"

    # The negative control: without one shard's file the merge fails, its runs errors in the JUnit.
    local code=0 others=()
    for ((i = 1; i <= SHARDS; i++)); do ((i == 2)) || others+=("$work/results/shard-$i-of-$SHARDS.jsonl"); done
    "$EOSIM_BINARY" merge "${others[@]}" --junit "$work/partial.xml" >/dev/null 2>"$work/partial.err" || code=$?
    ((code == 1)) && grep -q "no result: shard 2/$SHARDS was not merged" "$work/partial.xml" ||
        fail "a merge without shard 2 exited $code and its JUnit does not name the missing shard"
    say "a merge without shard 2 fails: $(cat "$work/partial.err")"
    passed=1
    say "passed in $((SECONDS - start)) s"
}

main
