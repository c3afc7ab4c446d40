# Shared by the Slurm system tests (sourced): use the cluster of scripts/slurm-cluster.sh, run
# commands inside allocations with a timeout, wait for jobs, and fail loudly with the tails of
# the daemons' logs. A missing or broken cluster fails the test; it never skips it.
# The cluster comes from $TORCRUN_SLURM_ENV (scripts/test.sh sets it), else the default folder.
# Every job a test starts is named $slurm_job_name, and the EXIT trap cancels what is left.

slurm_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
slurm_env_file=${TORCRUN_SLURM_ENV:-$slurm_repo/.slurm-cluster/env.sh}
slurm_job_name=torcrun-test-$(basename "$0" .sh)

fail() { echo "FAIL: $*" >&2; exit 1; }

# slurm_fail MESSAGE: fails with the last lines of slurmctld's and every slurmd's log.
slurm_fail() {
    echo "FAIL: $*" >&2
    local f
    for f in "${TORCRUN_SLURM_DIR:-/nonexistent}"/log/slurmctld.log "${TORCRUN_SLURM_DIR:-/nonexistent}"/log/slurmd.*.log; do
        [ -f "$f" ] && { echo "--- tail $f" >&2; tail -n 20 "$f" >&2; }
    done
    exit 1
}

slurm_cleanup() {
    command -v scancel >/dev/null && timeout 10 scancel --name="$slurm_job_name" 2>/dev/null
    [ -n "${tmp:-}" ] && rm -rf "$tmp"
    return 0
}

# slurm_use_cluster: sources the env file, checks that the cluster answers and is idle, makes
# $tmp and arms the EXIT trap.
slurm_use_cluster() {
    [ -f "$slurm_env_file" ] || fail "no Slurm cluster: $slurm_env_file is missing" \
        "(scripts/test.sh starts one; by hand: scripts/slurm-cluster.sh up)"
    # shellcheck disable=SC1090
    source "$slurm_env_file"
    command -v sinfo >/dev/null || fail "no Slurm cluster: sinfo is not installed"
    timeout 10 sinfo -h >/dev/null 2>&1 || slurm_fail "sinfo: the cluster at $SLURM_CONF does not answer"
    tmp=$(mktemp -d)
    trap slurm_cleanup EXIT
    slurm_wait_jobs_done 30
}

# slurm_in_allocation SECONDS SALLOC_ARGS... -- COMMAND...: COMMAND in a new allocation,
# killed (and the allocation released) after SECONDS.
slurm_in_allocation() {
    local seconds=$1 args=() rc=0; shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
    shift
    timeout -k 5 "$seconds" salloc --job-name="$slurm_job_name" "${args[@]}" "$@" || rc=$?
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        slurm_fail "salloc ${args[*]} $*: still running after $seconds s"
    fi
    return $rc
}

# slurm_batch_wait SECONDS SBATCH_ARGS...: sbatch --wait, killed after SECONDS.
slurm_batch_wait() {
    local seconds=$1 rc=0; shift
    timeout -k 5 "$seconds" sbatch --wait --job-name="$slurm_job_name" "$@" || rc=$?
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        slurm_fail "sbatch --wait $*: still running after $seconds s"
    fi
    return $rc
}

# slurm_submit SBATCH_ARGS...: prints the new job's id.
slurm_submit() {
    sbatch --parsable --job-name="$slurm_job_name" "$@" || slurm_fail "sbatch $* failed"
}

# slurm_job_field JOBID FIELD: one field of `scontrol show job` (finished jobs stay 300 s).
slurm_job_field() {
    scontrol -o show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# slurm_wait_job_state JOBID STATE SECONDS
slurm_wait_job_state() {
    local deadline=$((SECONDS + $3)) state
    while :; do
        state=$(slurm_job_field "$1" JobState)
        [ "$state" = "$2" ] && return 0
        [ $SECONDS -lt $deadline ] || slurm_fail "job $1: state $state after $3 s, expected $2"
        sleep 0.2
    done
}

# slurm_wait_jobs_done SECONDS: no job of the cluster is pending, running or completing.
slurm_wait_jobs_done() {
    local deadline=$((SECONDS + $1)) left
    while :; do
        left=$(squeue -h -o '%i %j %T' 2>/dev/null)
        [ -z "$left" ] && return 0
        [ $SECONDS -lt $deadline ] || slurm_fail "jobs still in the queue after $1 s: $left"
        sleep 0.2
    done
}

# slurm_wait_file PATH SECONDS: PATH exists and is not empty.
slurm_wait_file() {
    local deadline=$((SECONDS + $2))
    until [ -s "$1" ]; do
        [ $SECONDS -lt $deadline ] || slurm_fail "$1 not written after $2 s"
        sleep 0.1
    done
}
