#!/usr/bin/env bash
# Issue 22 item 4 on the real cluster: a slurm-mode job's usage is its step's as Slurm's job
# accounting measures it (sstat), not srun's, and its node is the step's. A step that holds 300
# MiB shows a peak of that size; a CPU-bound step shows the CPU share it reports of itself; each
# job's node in `torcrun jobs` (table and --json) and in the report is the Slurm node it ran on
# (SLURMD_NODENAME), not the worker's host. Steps too short for a reading have no figures, and
# the cluster's missing accounting storage (no slurmdbd) is one log line, not one per job.
# (b) Issue 22's small item: a worker that starts with under a minute of the allocation left
# claims a job (Torc's claim window) but its step would get no whole minute of --time: the job
# goes back to ready, as Torc reverts it, not failed with 126, and the worker claims no more.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
submitted_allocations_setup

cat >"$tmp/mem.py" <<'EOF'
import os, sys, time
block = bytearray(300 * 1024 * 1024)
for i in range(0, len(block), 4096): block[i] = 1
time.sleep(14)
hwm = [l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM")][0]
open(sys.argv[1], "w").write(f"{os.environ['SLURMD_NODENAME']} {int(hwm) * 1024}\n")
EOF
cat >"$tmp/cpu.py" <<'EOF'
import os, sys, time
start = time.time()
while time.time() - start < 16: pass
t = os.times()
open(sys.argv[1], "w").write(
    f"{os.environ['SLURMD_NODENAME']} {t.user + t.system} {time.time() - start}\n")
EOF
python3 - "$tmp/spec.json" "$tmp" <<'PY'
import json, sys
t = sys.argv[2]
# Five CPUs each: the two long jobs cannot share a node of eight.
json.dump({"name": "step-usage", "jobs_sort_method": "none",
           "resource_requirements": [
               {"name": "five", "num_cpus": 5, "num_gpus": 0, "num_nodes": 1, "memory": "1g",
                "runtime": "PT2M"},
               {"name": "one", "num_cpus": 1, "num_gpus": 0, "num_nodes": 1, "memory": "100m",
                "runtime": "PT1M"}],
           "jobs": [{"name": "mem", "command": f"python3 {t}/mem.py {t}/mem.txt",
                     "resource_requirements": "five"},
                    {"name": "cpu", "command": f"python3 {t}/cpu.py {t}/cpu.txt",
                     "resource_requirements": "five"},
                    {"name": "quick1", "command": "true", "resource_requirements": "one"},
                    {"name": "quick2", "command": "true", "resource_requirements": "one"}]},
          open(sys.argv[1], "w"))
PY
submit_workflow "$tmp/spec.json"
slurm_batch_wait 240 -N2 --exclusive --time=4 -o "$tmp/alloc.log" --wrap \
    "exec $torcrun worker $wf --mode slurm --config $tmp/worker.json" ||
    fail "the allocation failed: $(tail -30 "$tmp/alloc.log")"
[ "$(job_status_counts)" = "completed 4" ] || fail "jobs $(job_status_counts): $(tail -30 "$tmp/alloc.log")"
"$torcrun" jobs --url "$base" "$wf" --json >"$tmp/jobs.json"
"$torcrun" jobs --url "$base" "$wf" >"$tmp/jobs.txt"
"$torcrun" report --url "$base" "$wf" --html "$tmp/report.html" >/dev/null
python3 - "$tmp" <<'PY' || fail "figures: $(cat "$tmp/jobs.json") $(cat "$tmp/mem.txt" "$tmp/cpu.txt") $(tail -30 "$tmp/alloc.log")"
import json, re, socket, sys
t = sys.argv[1]
jobs = {j["name"]: j for j in json.load(open(f"{t}/jobs.json"))}
mem_node, hwm = open(f"{t}/mem.txt").read().split()
cpu_node, cpu_s, wall_s = open(f"{t}/cpu.txt").read().split()
hwm, cpu_s, wall_s = int(hwm), float(cpu_s), float(wall_s)
mib = 1024 * 1024
m, c = jobs["mem"], jobs["cpu"]
print(f"mem: node {m['node']} (step on {mem_node}), peak {m['peak_memory_bytes'] / mib:.1f} MiB "
      f"(VmHWM {hwm / mib:.1f} MiB), avg {m['avg_memory_bytes'] / mib:.1f} MiB")
share = cpu_s / wall_s * 100
print(f"cpu: node {c['node']} (step on {cpu_node}), peak {c['peak_cpu_percent']:.1f} %, "
      f"avg {c['avg_cpu_percent']:.1f} % (its own share {share:.1f} %: {cpu_s:.1f} s in {wall_s:.1f} s)")
# The step's own node, each job on its own node, none of them the worker's host.
assert m["node"] == mem_node and c["node"] == cpu_node and mem_node != cpu_node, "nodes"
assert socket.gethostname() not in (m["node"], c["node"])
# 300 MiB held: Slurm's figure within 15 % of the process's own high-water mark.
assert abs(m["peak_memory_bytes"] - hwm) <= 0.15 * hwm, "peak memory"
assert m["avg_memory_bytes"] >= 150 * mib, "average memory"
# Busy the whole time: Slurm's average near the CPU share the process measured of itself (the
# machine may be busy: the share, not 100 %, is the truth); srun alone reads below 1 %.
assert share / 2 <= c["avg_cpu_percent"] <= share * 1.5 + 10, "average CPU"
assert c["peak_cpu_percent"] >= c["avg_cpu_percent"] and c["peak_cpu_percent"] <= share * 2 + 20
# Too short for one reading, and no accounting storage: no figures rather than srun's.
for q in ("quick1", "quick2"):
    assert jobs[q]["peak_memory_bytes"] is None and jobs[q]["node"] in ("n1", "n2"), q
table = open(f"{t}/jobs.txt").read()
assert re.search(rf"\bmem\b.*\b{mem_node}\b", table), table
html = open(f"{t}/report.html").read()
assert f"on {mem_node} (a step of" in html and f"on {cpu_node} (a step of" in html, "report"
PY
# The worker logs to stderr: the allocation's output.
[ "$(grep -c "Slurm keeps no accounting" "$tmp/alloc.log")" = 1 ] ||
    fail "the missing accounting storage was not said once: $(grep "accounting\|sstat\|sacct" "$tmp/alloc.log")"
! grep "sstat gives no usage" "$tmp/alloc.log" || fail "sstat failed"
grep "Slurm keeps no accounting" "$tmp/alloc.log"

# (b) 1 minute, the worker started after 5 s: about 55 s left, the headroom 0 (grace 5 s,
# drain buffer 5 s), so no step can get its minute.
python3 - "$tmp/late.json" <<'PY'
import json, sys
json.dump({"name": "late", "resource_requirements": [
               {"name": "one", "num_cpus": 1, "num_gpus": 0, "num_nodes": 1, "memory": "100m",
                "runtime": "PT1M"}],
           "jobs": [{"name": "late", "command": "true", "resource_requirements": "one"}]},
          open(sys.argv[1], "w"))
PY
submit_workflow "$tmp/late.json"
slurm_batch_wait 200 -N1 --time=1 -o "$tmp/late.log" --wrap \
    "sleep 5; exec $torcrun worker $wf --mode slurm --config $tmp/worker.json" ||
    fail "(b): the allocation failed: $(tail -30 "$tmp/late.log")"
[ "$(job_status_counts)" = "ready 1" ] || fail "(b): jobs $(job_status_counts): $(tail -30 "$tmp/late.log")"
[ "$(curl -sf "$base/results?workflow_id=$wf" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["items"]))')" = 0 ] ||
    fail "(b): a result was recorded: $(tail -30 "$tmp/late.log")"
grep -q "handed back: .* s left in the allocation: under one minute of srun --time" "$tmp/late.log" &&
    grep -q "stops claiming" "$tmp/late.log" || fail "(b): $(tail -30 "$tmp/late.log")"
# Claimed again, the ready job would come back here and be handed back again and again.
[ "$(grep -c "handed back" "$tmp/late.log")" = 1 ] || fail "(b): claimed again: $(cat "$tmp/late.log")"
grep "handed back" "$tmp/late.log"
echo "ok"
