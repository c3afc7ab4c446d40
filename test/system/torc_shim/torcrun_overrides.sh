# shellcheck shell=bash
# Sourced after Torc's slurm-tests/lib/workflow.sh (and so after test_framework.sh) in the
# overlay t0525 builds: what Torc's harness reads straight from Torc's own files is read through
# torcrun instead, and the assertions with no torcrun counterpart are recorded SKIP, by name,
# instead of PASS or FAIL. Torc's files themselves stay as Torc ships them.

# get_job_stdout / get_job_stderr WF_ID JOB_ID: Torc's read
# torc_output/job_stdio/job_wf<W>_j<J>_r<R>_a<A>.o of the latest attempt; torcrun's worker
# writes the same file under its own output directory, which `torcrun logs` finds and prints
# (the latest attempt of the latest run, as Torc's helper picks).
get_job_stdout() {
    "$TORCRUN_BIN" logs --url "$TORC_API_URL" "$1" "$2" 2>/dev/null || true
}
get_job_stderr() {
    "$TORCRUN_BIN" logs --url "$TORC_API_URL" "$1" "$2" --stderr 2>/dev/null || true
}

# The assertions with no torcrun counterpart, as "message pattern|what torcrun shows instead".
# A PASS or FAIL whose message matches a pattern is recorded as SKIP with the reason; the same
# list stands in docs/TORC-COMPATIBILITY.md §6.5.
torcrun_skips=(
    "parse-logs|torc slurm parse-logs: Slurm's own lines are in the job's stderr (torcrun logs WF JOB --stderr), the verdict in its result (137 failed, 152 terminated)"
    "logs analyze|torc logs analyze: the same lines in torcrun logs --stderr and the verdict in torcrun jobs"
    "sacct|torc slurm sacct: the lab has no slurmdbd; torcrun keeps Slurm's verdict in the result and the step's stderr"
    "slurm stats|torc slurm stats: no slurmdbd; torcrun jobs shows each job's node, peak memory and CPU"
    "resource_metrics|Torc's per-job SQLite time series (resource_metrics_*.db): torcrun keeps the peak and average in the result (asserted above), shown by torcrun jobs and torcrun report"
    "check-resources|torc workflows check-resources: torcrun jobs shows each job's peak memory beside its return code"
    # multi_node_parallel reads each job's node from `hostname` in its stdout; the lab's nodes are
    # one machine, so every job prints the same name. t0525 checks instead that torcrun jobs
    # names at least 2 distinct Slurm nodes for the workflow's jobs.
    "distinct nodes (got|the lab's nodes share one host, so hostname is the same on each; t0525 checks torcrun jobs' Slurm node of each job instead (at least 2 distinct)"
    # sync_status: Torc's test expects the jobs of an externally scancel'ed allocation to be left
    # running on the server, for sync-status to fail with -128. torcrun's worker outlives the scancel
    # long enough to report each job terminated with its own code (143, Slurm's "CANCELLED AT"
    # line in its stderr): nothing is left for sync-status (t0524(c) shows it failing the jobs
    # of a worker killed with kill -9, -128).
    "sync-status detected orphaned|torcrun's worker reports its jobs terminated 143 after the external scancel; sync-status finds no orphan (t0524(c): a killed worker's jobs, -128)"
    "at least 1 job has status 'failed'|the jobs are terminated, rc 143, reported by torcrun's worker (see above)"
    "at least 1 job has return code -128|no orphan to fail with -128 (see above)"
)

# torcrun_skip_reason MESSAGE: the reason when MESSAGE is one of the skipped assertions.
torcrun_skip_reason() {
    local entry
    for entry in "${torcrun_skips[@]}"; do
        if [[ "$1" == *"${entry%%|*}"* ]]; then
            echo "${entry#*|}"
            return 0
        fi
    done
    return 1
}

eval "torc_pass_original() $(declare -f _pass | tail -n +2)"
eval "torc_fail_original() $(declare -f _fail | tail -n +2)"
_pass() {
    local reason
    if reason=$(torcrun_skip_reason "$1"); then _skip "$1 [torcrun: $reason]"; return; fi
    torc_pass_original "$@"
}
_fail() {
    local reason
    if reason=$(torcrun_skip_reason "$1"); then _skip "$1 [torcrun: $reason]"; return; fi
    torc_fail_original "$@"
}
