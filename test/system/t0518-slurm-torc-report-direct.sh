#!/usr/bin/env bash
# The Torc report's allocation, written as a Torc user writes it today: a YAML spec with
# execution_config {mode: direct}, a slurm_scheduler of 2 nodes x 4 GPUs, an on_workflow_start
# schedule_nodes action with start_one_worker_per_node and 16 single-GPU jobs. `torcrun submit`
# alone makes one allocation with one worker per node; all 16 jobs complete; no (node, GPU) is
# held by two jobs at once; no PMI_*, PMIX_* or SLURM_STEP_* variable reaches a job; the
# allocation ends when the work is done and its record is complete.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
submitted_allocations_setup gpus

torc_report_spec "$tmp/spec.yaml" direct
submit_allocations "$tmp/spec.yaml"
scripts=("$tmp"/out/torcrun_wf"$wf"_two_gpu_nodes_a0_*.sh)
[ "${#scripts[@]}" = 1 ] && [ -f "${scripts[0]}" ] || fail "scripts: ${scripts[*]}"
grep -q -- 'srun --ntasks-per-node=1' "${scripts[0]}" || fail "not one worker per node: $(cat "${scripts[0]}")"
[ "$(slurm_job_field "$job" NodeList)" = "n[1-2]" ] || fail "allocation nodes: $(slurm_job_field "$job" NodeList)"
[ "$(job_status_counts)" = "completed 16" ] ||
    fail "statuses $(job_status_counts): $(tail -30 "$tmp"/out/slurm_output_wf"$wf"_sl"$job".e)"
check_records "Torc report, direct mode" 16 8 "n1 n2"
no_worker_step_variables
[ "$(allocation_record_status)" = complete ] || fail "allocation record: $(allocation_record_status)"
echo ok
