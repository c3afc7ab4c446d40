#!/usr/bin/env bash
# `torcrun submit` alone on a real 2-node x 4-GPU cluster: a JSON5 spec whose slurm_scheduler asks
# for 2 nodes with 4 GPUs each and whose on_workflow_start schedule_nodes action starts one
# worker per node. Submit makes exactly one allocation (one script, one pending scheduled compute
# node holding its Slurm job id), the two workers run all 16 single-GPU jobs on both nodes, no
# (node, GPU) is held by two jobs at once, and the allocation ends once the work is done. The
# scheduler has serialize_allocations and the workflow srun_mpi: the script joins the singleton
# chain torc-wf<WF>-sched<ID>, its workers' srun gets --mpi=pmi2, and the two workers started
# together get Torc's startup delay for 2 workers (--startup-delay-seconds 2).
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
submitted_allocations_setup gpus

python3 - "$tmp/spec.json5" "$tmp/record.sh" <<'PY'
import json, sys
path, record = sys.argv[1:]
jobs = ",\n".join(
    f"    {{name: 'g{i:02d}', command: {json.dumps(record + ' 3')}, resource_requirements: 'gpu1'}}"
    for i in range(16))
open(path, "w").write(f"""// 16 single-GPU jobs, and one allocation of 2 nodes x 4 GPUs with a worker per node
{{
  name: 'submit-allocations',
  execution_config: {{mode: 'direct', srun_mpi: 'pmi2'}},
  resource_requirements: [
    {{name: 'gpu1', num_cpus: 1, num_gpus: 1, num_nodes: 1, memory: '100m', runtime: 'PT1M'}},
  ],
  slurm_schedulers: [
    {{name: 'two_gpu_nodes', account: 'test', nodes: 2, walltime: '00:05:00', gres: 'gpu:4',
      serialize_allocations: true}},
  ],
  actions: [
    {{trigger_type: 'on_workflow_start', action_type: 'schedule_nodes',
      scheduler: 'two_gpu_nodes', scheduler_type: 'slurm', num_allocations: 1,
      start_one_worker_per_node: true}},
  ],
  jobs: [
{jobs}
  ],
}}
""")
PY

wf=$("$torcrun" submit --skip-checks --url "$base" --config "$tmp/worker.json" \
    --output-dir "$tmp/out" "$tmp/spec.json5" 2>"$tmp/submit.err") ||
    fail "submit: $(cat "$tmp/submit.err")"
[[ "$wf" =~ ^[0-9]+$ ]] || fail "submit stdout is not an id: '$wf'"
grep -q 'warning: the server URL .* is a loopback address' "$tmp/submit.err" ||
    fail "no loopback warning: $(cat "$tmp/submit.err")"
scripts=("$tmp"/out/torcrun_wf"$wf"_two_gpu_nodes_a0_*.sh)
[ "${#scripts[@]}" = 1 ] && [ -f "${scripts[0]}" ] || fail "scripts: ${scripts[*]}"
grep -qx '#SBATCH --nodes=2' "${scripts[0]}" && grep -qx '#SBATCH --gres=gpu:4' "${scripts[0]}" ||
    fail "script options: $(cat "${scripts[0]}")"
grep -q -- 'srun --ntasks-per-node=1 --overlap --mpi=pmi2 ' "${scripts[0]}" ||
    fail "not one worker per node with srun_mpi: $(cat "${scripts[0]}")"
sched=$(curl -sf "$base/slurm_schedulers?workflow_id=$wf" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["items"][0]["id"])') ||
    fail "no slurm_schedulers record"
grep -qx "#SBATCH --job-name=torc-wf$wf-sched$sched" "${scripts[0]}" &&
    grep -qx '#SBATCH --dependency=singleton' "${scripts[0]}" ||
    fail "serialize_allocations: no singleton chain: $(cat "${scripts[0]}")"
grep -q -- ' --startup-delay-seconds 2 &$' "${scripts[0]}" ||
    fail "staggered_start: no startup delay: $(cat "${scripts[0]}")"

# one record, pending or already active, holding the Slurm job id
records=$(curl -sf "$base/scheduled_compute_nodes?workflow_id=$wf")
job=$(python3 -c 'import json, sys
items = json.loads(sys.argv[1])["items"]
assert len(items) == 1, items
r = items[0]
assert r["scheduler_type"] == "slurm" and r["status"] in ("pending", "active", "complete"), r
print(r["scheduler_id"])' "$records") || fail "records: $records"
grep -q "Slurm job $job " "$tmp/submit.err" || fail "submit did not name job $job: $(cat "$tmp/submit.err")"

# the allocation runs the work and ends by itself
deadline=$((SECONDS + 120))
while squeue -h -j "$job" 2>/dev/null | grep -q .; do
    [ $SECONDS -lt $deadline ] || slurm_fail "allocation $job still running after 120 s"
    sleep 0.5
done
[ "$(slurm_job_field "$job" NodeList)" = "n[1-2]" ] || fail "allocation nodes: $(slurm_job_field "$job" NodeList)"
[ "$(job_status_counts)" = "completed 16" ] ||
    fail "statuses $(job_status_counts): $(tail -30 "$tmp"/out/slurm_output_wf"$wf"_sl"$job".e)"
check_records "submit, per-node workers" 16 8 "n1 n2"
[ "$(grep -c 'startup delay: .* s of at most 2\.0* s' "$tmp"/out/slurm_output_wf"$wf"_sl"$job".e)" = 2 ] ||
    fail "the two workers did not each wait a startup delay: $(cat "$tmp"/out/slurm_output_wf"$wf"_sl"$job".e)"
echo ok
