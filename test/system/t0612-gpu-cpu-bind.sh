#!/usr/bin/env bash
# GPU jobs bound to CPUs in direct mode (issue 27, gpu.cpu_bind) on this machine's CPUs, without
# NVML (the CPUs near each GPU unknown: bound anywhere free, which the worker logs): two GPU jobs
# of one CPU each run side by side and each reads its own affinity (/proc/self/status
# Cpus_allowed_list): one CPU each, not the same one, the CPUs `torcrun jobs` shows (CPUS, and
# bound_cpus in --json); a CPU job is not bound (it sees the worker's whole set); without the
# setting no job is bound. Needs at least 2 CPUs.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
trap 'kill_servers; rm -rf "$tmp"' EXIT
cd "$tmp"
unset TORC_API_URL SLURM_JOB_ID SLURM_JOBID
export TORCRUN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
export CUDA_VISIBLE_DEVICES=0,1
whole=$(grep Cpus_allowed_list: /proc/self/status | awk '{print $2}')
[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs 2 CPUs, this machine has $(nproc)"; exit 0; }

cat >"$tmp/wf.json" <<'SPEC'
{"name": "bound",
 "resource_requirements": [
   {"name": "g1", "num_cpus": 1, "num_gpus": 1, "num_nodes": 1, "memory": "1m", "runtime": "PT1M"},
   {"name": "c1", "num_cpus": 1, "num_gpus": 0, "num_nodes": 1, "memory": "1m", "runtime": "PT1M"}],
 "jobs": [
   {"name": "gpu_a", "command": "grep Cpus_allowed_list: /proc/self/status; sleep 1", "resource_requirements": "g1"},
   {"name": "gpu_b", "command": "grep Cpus_allowed_list: /proc/self/status; sleep 1", "resource_requirements": "g1"},
   {"name": "cpu", "command": "grep Cpus_allowed_list: /proc/self/status", "resource_requirements": "c1"}]}
SPEC

check() {  # check DIR BOUND(yes|no)
    python3 - "$1" "$2" "$whole" "$("$torcrun" jobs 1 --output-dir "$1" --json)" \
        "$("$torcrun" jobs 1 --output-dir "$1")" <<'PY'
import glob, json, sys
d, bound, whole, rows, table = sys.argv[1], sys.argv[2] == "yes", sys.argv[3], json.loads(sys.argv[4]), sys.argv[5]
seen = []
for r in rows:
    assert r["status"] == "completed", r
    out = open(glob.glob(f"{d}/job_stdio/job_wf1_j{r['id']}_r*_a1.o")[0]).read().split()[1]
    if r["name"].startswith("gpu_") and bound:
        assert r["bound_cpus"] == out and "," not in out and "-" not in out, (r, out)
        line = next(l for l in table.splitlines() if f" {r['name']} " in l)
        assert f" {out} " in line, line
        seen.append(out)
    else:
        assert r["bound_cpus"] is None and out == whole, (r, out, whole)
assert len(set(seen)) == len(seen), f"two jobs on one CPU: {seen}"
assert not bound or len(seen) == 2
PY
}

timeout 120 "$torcrun" run "$tmp/wf.json" --output-dir "$tmp/B" --set gpu.cpu_bind=true \
    >"$tmp/run.out" 2>"$tmp/run.err" || fail "run: $(cat "$tmp/run.err")"
check "$tmp/B" yes || fail "bound run (above)"
[ "$(grep -c "runner: GPU job's CPUs not all near its GPUs" "$tmp/B/worker.log")" = 2 ] ||
    fail "the unknown topology logged per job: $(grep runner: "$tmp/B/worker.log")"
grep -q 'the CPUs near its GPUs are not known' "$tmp/B/worker.log" || fail "why not logged"

timeout 120 "$torcrun" run "$tmp/wf.json" --output-dir "$tmp/U" >"$tmp/run.out" 2>"$tmp/run.err" ||
    fail "run: $(cat "$tmp/run.err")"
check "$tmp/U" no || fail "unbound run (above)"
echo ok
