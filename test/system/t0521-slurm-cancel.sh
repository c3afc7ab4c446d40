#!/usr/bin/env bash
# `torcrun cancel` on the real cluster (issue 13 §4): `torcrun submit` puts two 1-node
# allocations into Slurm, their workers start the workflow's two long jobs, and the cancel marks
# the workflow and both jobs canceled, scancels every allocation of it still in Slurm (one stdout
# line each, Slurm's own job ids), and leaves nothing in Slurm: the jobs' processes are
# gone before they could record, and no allocation record stays pending or active.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
submitted_allocations_setup

cat >"$tmp/spec.json5" <<EOF
{
  name: 'cancel-me',
  resource_requirements: [
    {name: 'one', num_cpus: 1, num_gpus: 0, num_nodes: 1, memory: '100m', runtime: 'PT2M'},
  ],
  slurm_schedulers: [{name: 'one_node', account: 'test', nodes: 1, walltime: '00:05:00'}],
  actions: [
    {trigger_type: 'on_workflow_start', action_type: 'schedule_nodes', scheduler: 'one_node',
     scheduler_type: 'slurm', num_allocations: 2},
  ],
  jobs: [
    {name: 'long1', command: '$tmp/record.sh 240', resource_requirements: 'one'},
    {name: 'long2', command: '$tmp/record.sh 240', resource_requirements: 'one'},
  ],
}
EOF
wf=$("$torcrun" submit --skip-checks --url "$base" --config "$tmp/worker.json" \
    --output-dir "$tmp/out" "$tmp/spec.json5" 2>"$tmp/submit.err") ||
    fail "submit: $(cat "$tmp/submit.err")"
deadline=$((SECONDS + 120))
until [ "$(job_status_counts)" = "running 2" ]; do
    [ $SECONDS -lt $deadline ] ||
        slurm_fail "jobs $(job_status_counts) after 120 s: $(tail -n 20 "$tmp"/out/slurm_output_wf*.e)"
    sleep 0.5
done
allocations=$(workflow_allocations | awk '{print $1}' | sort)
[ -n "$allocations" ] || fail "no allocation in Slurm while its jobs run"

"$torcrun" cancel "$wf" --url "$base" >"$tmp/cancel.out" 2>"$tmp/cancel.err" ||
    fail "cancel: $(cat "$tmp/cancel.out" "$tmp/cancel.err")"
[ ! -s "$tmp/cancel.err" ] || fail "cancel stderr: $(cat "$tmp/cancel.err")"
[ "$(head -n1 "$tmp/cancel.out")" = \
    "workflow $wf canceled: 2 pending or running jobs canceled; their workers stop them" ] ||
    fail "cancel: $(cat "$tmp/cancel.out")"
canceled=$(sed -n "s/^Slurm job \([0-9]*\) scancel'ed (allocation record [0-9]*: canceled)$/\1/p" \
    "$tmp/cancel.out" | sort)
[ "$canceled" = "$allocations" ] || fail "scancel'ed '$canceled', expected '$allocations'"

deadline=$((SECONDS + 60))
while [ -n "$(workflow_allocations)" ]; do
    [ $SECONDS -lt $deadline ] || slurm_fail "still in Slurm 60 s after the cancel: $(workflow_allocations)"
    sleep 0.5
done
[ "$(job_status_counts)" = "canceled 2" ] || fail "jobs after the cancel: $(job_status_counts)"
[ -z "$(ls "$tmp/rec")" ] || fail "a canceled job ran to its end: $(ls "$tmp/rec")"
out=$("$torcrun" status "$wf" --url "$base" --json)
[ "$(field "$out" '[d["is_canceled"], d["is_complete"]]')" = '[true, true]' ] || fail "status: $out"
# The worker that exits after the cancel may mark its record complete, as Torc's CLI does.
records=$(curl -sf "$base/scheduled_compute_nodes?workflow_id=$wf")
python3 -c 'import json, sys
items = json.loads(sys.argv[1])["items"]
assert len(items) == 2 and all(r["status"] in ("canceled", "complete") for r in items), items' \
    "$records" || fail "records: $records"
echo ok
