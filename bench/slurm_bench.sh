# B6 (sourced by run.sh after lib.sh; only when TORCRUN_SLURM_ENV names the cluster's env file):
# in one allocation of every node of the project's Slurm cluster, $slurm_jobs `true` jobs
# through `torcrun worker --mode slurm` (one `srun --exact` step per job) against a bare loop
# of the same steps, `srun --exact -n1 -c1 --mem=1M true`, kept at the allocation's CPU count
# in flight by xargs -P: the concurrency the worker reaches with one-CPU jobs. The two tools
# take turns inside the allocation, the order alternating between repetitions.

slurm_job_name=torcrun-bench-$$

# slurm_ready: sources the env file and checks the cluster answers.
slurm_ready() {
    [ -f "$TORCRUN_SLURM_ENV" ] || bench_fail "TORCRUN_SLURM_ENV: no file $TORCRUN_SLURM_ENV"
    # shellcheck disable=SC1090
    source "$TORCRUN_SLURM_ENV"
    command -v salloc >/dev/null || bench_fail "slurm: salloc is not installed"
    timeout 10 sinfo -h >/dev/null 2>&1 || bench_fail "slurm: the cluster at $SLURM_CONF does not answer"
    slurm_cpus=$((TORCRUN_SLURM_NODES * TORCRUN_SLURM_CPUS))
}

# The commands run inside the allocation (bash -c): $1 the tool, then its arguments.
slurm_tool_script='
set -euo pipefail
tool=$1; shift
case $tool in
bare) seq 1 "$1" | xargs -P"$2" -I{} srun --exact -n1 -N1 -c1 --mem=1M true ;;
torcrun) exec "$1" worker "$2" --url "$3" --mode slurm --output-dir "$4" ;;
esac'

# slurm_timed TOOL REP ARGS...: one tool in a fresh allocation of every node; the time counts
# from the first command inside the allocation, so queueing for it is not counted.
slurm_timed() {
    local tool=$1 rep=$2; shift 2
    local dir=$work/slurm-$tool-$rep rc=0 t0 t1
    mkdir -p "$dir"
    timeout -k 5 600 salloc --job-name="$slurm_job_name" -N"$TORCRUN_SLURM_NODES" --exclusive \
        --time=10 bash -c 'echo "$EPOCHREALTIME" >"$0/t0"; bash -c "$1" inner "${@:2}";
            rc=$?; echo "$EPOCHREALTIME" >"$0/t1"; exit $rc' \
        "$dir" "$slurm_tool_script" "$tool" "$@" >"$dir/out.log" 2>&1 || rc=$?
    [ $rc = 0 ] || bench_fail "slurm $tool #$rep: exit $rc: $(tail -20 "$dir/out.log")"
    t0=$(cat "$dir/t0") t1=$(cat "$dir/t1")
    local wall
    wall=$(elapsed "$t0" "$t1")
    record slurm "$tool" "$rep" wall_s "$wall"
    record slurm "$tool" "$rep" jobs_per_s "$(ratio "$slurm_jobs" "$wall")"
    bench_log "slurm $tool #$rep: $slurm_jobs jobs in $wall s"
}

slurm_bare() { slurm_timed bare "$1" "$slurm_jobs" "$slurm_cpus"; }

slurm_torcrun() {
    local dir=$work/slurm-server-$1 spec
    spec=$(spec_of independent "$slurm_jobs" true)
    start_server "$dir"
    submit "$spec"
    slurm_timed torcrun "$1" "$torcrun" "$wf" "$base" "$dir/out"
    [ "$(completed_count)" = "$slurm_jobs" ] || bench_fail "slurm: the worker left jobs undone"
    stop_server
    rm -rf "$dir"
}

# slurm_bench REP: B6.
slurm_bench() {
    local tools=(torcrun bare) tool
    (( $1 % 2 == 0 )) && tools=(bare torcrun)
    for tool in "${tools[@]}"; do slurm_"$tool" "$1"; done
}
