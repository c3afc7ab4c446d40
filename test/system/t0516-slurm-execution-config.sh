#!/usr/bin/env bash
# The slurm-mode keys of a workflow's execution_config on the real cluster, seen through the
# step: mode slurm chosen by the workflow (a one-node allocation would be direct otherwise),
# srun_termination_signal as the step's --signal, enable_cpu_bind false as --cpu-bind=none (the
# step's SLURM_CPU_BIND says none), sigkill_headroom_seconds 120 taken off the step's time limit
# (a 5-minute allocation gives 2-minute steps, as Slurm's own step record shows); then
# enable_cpu_bind true leaves the binding to Slurm.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
slurm_use_cluster
slurm_worker_setup

# No termination keys in the file: the workflow's values apply.
cat >"$tmp/wc.json" <<EOF
{"server": {"url": "$base"}, "output_dir": "$tmp/out",
 "poll": {"interval_seconds": 0.5, "long_poll_seconds": 1}, "limits": {"idle_timeout_seconds": 10},
 "attempt_directory": "always"}
EOF
probe='scontrol show step "$SLURM_JOB_ID.$SLURM_STEP_ID" | grep -o "TimeLimit=[^ ]*"; echo "CPU_BIND=${SLURM_CPU_BIND:-unset}"'
spec() {
    python3 - "$tmp/spec.json" "$probe" "$1" <<'PY'
import json, sys
json.dump({"name": "slurm-keys",
           "execution_config": {"mode": "slurm", "srun_termination_signal": "USR2@30",
                                "sigkill_headroom_seconds": 120,
                                "enable_cpu_bind": sys.argv[3] == "true"},
           "resource_requirements": [{"name": "one", "num_cpus": 1, "num_gpus": 0, "num_nodes": 1,
                                      "memory": "100m", "runtime": "PT1M"}],
           "jobs": [{"name": "probe", "command": sys.argv[2], "resource_requirements": "one"}]},
          open(sys.argv[1], "w"))
PY
}

run_case() {
    spec "$1"
    submit_workflow "$tmp/spec.json"
    # The end time before the first claim (this cluster's Slurm sets no SLURM_JOB_END_TIME, and
    # a job claimed before the worker's own squeue lookup answers would get no --time).
    cat >"$tmp/batch.sh" <<EOF
#!/bin/bash
export SLURM_JOB_END_TIME=\$(date -d "\$(squeue -h -j "\$SLURM_JOB_ID" -o %e)" +%s)
exec $torcrun worker $wf --config $tmp/wc.json
EOF
    slurm_batch_wait 120 -N1 --time=5 -o "$tmp/$1.log" "$tmp/batch.sh" ||
        fail "cpu_bind $1: the allocation failed: $(tail -30 "$tmp/$1.log")"
    [ "$(job_status_counts)" = "completed 1" ] ||
        fail "cpu_bind $1: statuses $(job_status_counts): $(tail -30 "$tmp/$1.log")"
    dir=$(echo "$tmp"/out/jobs/wf"$wf"_j*/r*_a1)
    grep -q "mode=slurm" "$tmp/$1.log" || fail "cpu_bind $1: not slurm mode: $(head -20 "$tmp/$1.log")"
}

run_case false
cmd=$(cat "$dir/command.txt")
[[ "$cmd" == *" --signal=USR2@30 "* ]] || fail "no --signal: $cmd"
[[ "$cmd" == *" --cpu-bind=none "* ]] || fail "no --cpu-bind=none: $cmd"
[[ "$cmd" == *" --time=2 "* ]] || fail "the headroom is not off --time: $cmd"
grep -qx "TimeLimit=00:02:00" "$dir/stdout" || fail "the step's time limit: $(cat "$dir/stdout")"
grep -q "^CPU_BIND=.*none" "$dir/stdout" || fail "the step's binding: $(cat "$dir/stdout")"
echo "enable_cpu_bind false: $(tr '\n' ' ' <"$dir/stdout")"

run_case true
cmd=$(cat "$dir/command.txt")
[[ "$cmd" != *"--cpu-bind"* ]] || fail "enable_cpu_bind true still passes --cpu-bind: $cmd"
[[ "$cmd" == *" --signal=USR2@30 "* ]] || fail "no --signal: $cmd"
echo "enable_cpu_bind true: $(tr '\n' ' ' <"$dir/stdout")"
no_step_waited "$tmp/out"
echo ok
