#!/usr/bin/env bash
# Issue 25, recovery (Torc's watch_recover_oom Slurm test): a job that asks for 200m and touches
# 300 MB is killed by Slurm's memory limit in its step (jobacct_gather OverMemoryKill), fails with
# 137; `torcrun submit --auto-schedule --recover --memory-multiplier 2` gives it a new resource
# requirement of 400m, runs it again in a new allocation, and it completes: two attempts, 137
# then 0, the new requirement recorded, two allocations in the history. Then a job that runs past
# its one-minute runtime (152) runs again with two minutes and completes.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
submitted_allocations_setup
sed -i 's/"idle_timeout_seconds": 30/"idle_timeout_seconds": 4/' "$tmp/worker.json"
grep -q '^JobAcctGatherParams=OverMemoryKill' "$TORCRUN_SLURM_DIR/etc/slurm.conf" ||
    fail "the cluster does not enforce memory: restart it (scripts/slurm-cluster.sh down; up)"

cat >"$tmp/hog.py" <<'EOF'
import time
x = bytearray(300 * 1024 * 1024)
for i in range(0, len(x), 4096):
    x[i] = 1
time.sleep(6)
EOF
cat >"$tmp/spec.json" <<EOF
{"name": "oom", "resource_requirements": [{"name": "small", "num_cpus": 1, "memory": "200m", "runtime": "PT1M"}],
 "jobs": [{"name": "hog", "command": "python3 $tmp/hog.py", "resource_requirements": "small"}]}
EOF
rc=0
timeout 150 "$torcrun" submit --url "$base" --config "$tmp/worker.json" --output-dir "$tmp/out" \
    --auto-schedule --recover --memory-multiplier 2 --max-retries 2 -p 1 "$tmp/spec.json" \
    >"$tmp/submit.out" 2>"$tmp/submit.err" || rc=$?
[ $rc = 0 ] || fail "submit --auto-schedule --recover exited $rc: $(tail -30 "$tmp/submit.err")"
wf=$(cat "$tmp/submit.out")
grep -qF 'recover: job 1 "hog" (rc 137): out of memory; memory 200m -> 400m (new resource requirement "small_recovered_j1_1"); run again (recovery 1 of 2)' "$tmp/submit.err" ||
    fail "no recovery said: $(cat "$tmp/submit.err")"
[ "$(job_status_counts)" = "completed 1" ] || fail "statuses $(job_status_counts)"
curl -sf "$base/results?workflow_id=$wf&all_runs=true" | python3 -c '
import json, sys
rcs = [r["return_code"] for r in sorted(json.load(sys.stdin)["items"], key=lambda r: r["id"])]
assert rcs == [137, 0], rcs' || fail "results: $(curl -sf "$base/results?workflow_id=$wf&all_runs=true")"
job=$(curl -sf "$base/jobs/1")
rr=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["resource_requirements_id"])' "$job")
curl -sf "$base/resource_requirements/$rr" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["name"] == "small_recovered_j1_1" and r["memory"] == "400m", r' ||
    fail "requirement: $(curl -sf "$base/resource_requirements/$rr")"
grep -h 'exceeded memory limit' "$tmp"/out/jobs/*/*/stderr* >/dev/null 2>&1 ||
    grep -rq 'exceeded memory limit' "$tmp/out" || fail "no Slurm OOM line anywhere under the output"
"$torcrun" allocations --url "$base" "$wf" --json | python3 -c '
import json, sys
rows = json.load(sys.stdin)
assert len(rows) == 2 and all(r["state"] == "done" and r["made_for"] == "1" for r in rows), rows
assert rows[1]["shape"] == "1 node, 00:02:06, debug", rows' ||
    fail "allocations: $("$torcrun" allocations --url "$base" "$wf")"
wait_workflow_allocations 30 "completed 1"

# -- a job that ran out of time (its step's --time, the job's runtime of one minute): 152, then
# again with twice the runtime; the second attempt finds the first's mark and ends at once.
cat >"$tmp/slow.json" <<EOF
{"name": "timeout", "resource_requirements": [{"name": "short", "num_cpus": 1, "memory": "100m", "runtime": "PT1M"}],
 "jobs": [{"name": "slow", "command": "if [ -e $tmp/slow.mark ]; then exit 0; fi; touch $tmp/slow.mark; sleep 150", "resource_requirements": "short"}]}
EOF
rc=0
timeout 170 "$torcrun" submit --url "$base" --config "$tmp/worker.json" --output-dir "$tmp/out" \
    --auto-schedule --recover --runtime-multiplier 2 --max-retries 1 -p 1 "$tmp/slow.json" \
    >"$tmp/slow.out" 2>"$tmp/slow.err" || rc=$?
[ $rc = 0 ] || fail "the timeout recovery exited $rc: $(tail -30 "$tmp/slow.err")"
wf=$(cat "$tmp/slow.out")
grep -qF 'recover: job 2 "slow" (rc 152): out of time; runtime 60 s -> 120 s (new resource requirement "short_recovered_j2_1"); run again (recovery 1 of 1)' "$tmp/slow.err" ||
    fail "no timeout recovery said: $(cat "$tmp/slow.err")"
[ "$(job_status_counts)" = "completed 1" ] || fail "statuses $(job_status_counts)"
"$torcrun" allocations --url "$base" "$wf" --json | python3 -c '
import json, sys
rows = json.load(sys.stdin)
assert len(rows) == 2 and rows[1]["shape"] == "1 node, 00:03:12, debug", rows' ||
    fail "allocations: $("$torcrun" allocations --url "$base" "$wf")"
echo ok
