#!/usr/bin/env bash
# GPUs without NVML (issue 27; this machine has no NVIDIA driver, and TORCRUN_NVML_LIBRARY names a
# missing file so that a machine with one behaves the same): `torcrun allocation` keeps the UUID
# and MIG ids of CUDA_VISIBLE_DEVICES as the pool's ids and says why it lists no device;
# `torcrun run` of two GPU jobs (each echoes the CUDA_VISIBLE_DEVICES it got) and a CPU job says
# once that GPU use is not measured and nothing else changes: the jobs complete, `torcrun jobs`
# shows the GPU columns with "-" for what was not measured and the UUIDs each job held, --json
# has null figures, and the report (opened in headless Chromium: no console message) says no
# GPU readings are at hand and shows "-" in each attempt's GPU cell. The measured path is
# proved by the io tests (a fake libnvidia-ml.so.1) and on a GPU by scripts/gpu-proof.sh, whose
# path without a GPU is checked here: exit 3 with one plain line.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
trap 'kill_servers; rm -rf "$tmp"' EXIT
cd "$tmp"
unset TORC_API_URL
export TORCRUN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
export CUDA_VISIBLE_DEVICES=GPU-8f3a0000-aaaa,MIG-5c1d0000-bbbb
unset SLURM_JOB_ID SLURM_JOBID

out=$("$torcrun" allocation --json)
python3 - "$out" <<'PY' || fail "allocation --json: $out"
import json, sys
d = json.loads(sys.argv[1])
node = d["nodes"][0]
assert node["gpu_ids"] == ["GPU-8f3a0000-aaaa", "MIG-5c1d0000-bbbb"], node["gpu_ids"]
assert node["gpu_ids_are_device_ids"] is True
g = d["gpu_devices"]
assert g["devices"] == [], g
assert g["note"] == "NVML: /nonexistent/libnvidia-ml.so.1: cannot open shared object file: No such file or directory", g
PY
"$torcrun" allocation | grep -qx 'gpu devices (NVML): 0 (NVML: /nonexistent/libnvidia-ml.so.1: cannot open shared object file: No such file or directory)' ||
    fail "allocation text: $("$torcrun" allocation)"

cat >"$tmp/wf.json" <<'SPEC'
{"name": "gpus unmeasured",
 "resource_requirements": [
   {"name": "g1", "num_cpus": 1, "num_gpus": 1, "num_nodes": 1, "memory": "1m", "runtime": "PT1M"},
   {"name": "c1", "num_cpus": 1, "num_gpus": 0, "num_nodes": 1, "memory": "1m", "runtime": "PT1M"}],
 "jobs": [
   {"name": "gpu_a", "command": "echo cvd=$CUDA_VISIBLE_DEVICES; sleep 0.3", "resource_requirements": "g1"},
   {"name": "gpu_b", "command": "echo cvd=$CUDA_VISIBLE_DEVICES; sleep 0.3", "resource_requirements": "g1"},
   {"name": "cpu", "command": "true", "resource_requirements": "c1"}]}
SPEC
timeout 120 "$torcrun" run "$tmp/wf.json" --output-dir "$tmp/D" >"$tmp/run.out" 2>"$tmp/run.err" ||
    fail "run: $(cat "$tmp/run.err")"
[ "$(grep -c 'gpu: GPU use is not measured' "$tmp/D/worker.log")" = 1 ] ||
    fail "the missing NVML said once: $(grep gpu: "$tmp/D/worker.log" || true)"

table=$("$torcrun" jobs 1 --output-dir "$tmp/D")
echo "$table" | head -1 | grep -qE 'GPUS +PEAK_RSS +PEAK_CPU +GPU_UTIL +GPU_MEM +CPUS +LOGS' ||
    fail "jobs headings: $table"
python3 - "$tmp/D" "$("$torcrun" jobs 1 --output-dir "$tmp/D" --json)" "$table" <<'PY' || fail "jobs (above)"
import glob, json, sys
d, rows, table = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
held = set()
for r in rows:
    assert r["status"] == "completed", r
    assert r["peak_gpu_percent"] is None and r["avg_gpu_percent"] is None, r
    assert r["peak_gpu_memory_bytes"] is None and r["bound_cpus"] is None, r
    if r["name"].startswith("gpu_"):
        out = open(glob.glob(f"{d}/job_stdio/job_wf1_j{r['id']}_r*_a1.o")[0]).read().strip()
        assert r["gpu_ids"] == [out[4:]], (r["gpu_ids"], out)
        held.add(out[4:])
        line = next(l for l in table.splitlines() if f" {r['name']} " in l)
        cells = line.split()
        at = cells.index(out[4:])
        # GPUS, PEAK_RSS (two words: "1.0 MiB" or "-"), PEAK_CPU, GPU_UTIL, GPU_MEM, CPUS
        rest = cells[at + 1:]
        rss = 2 if rest[0] != "-" else 1
        assert rest[rss + 1:rss + 4] == ["-", "-", "-"], line
assert held == {"GPU-8f3a0000-aaaa", "MIG-5c1d0000-bbbb"} or len(held) == 1, held
PY

if ! command -v chromium >/dev/null; then
    source "$(dirname "$0")/../../scripts/lib.sh"
    ensure_packages chromium >/dev/null 2>&1 || true
fi
page="$tmp/D/report.html"
grep -q 'No GPU readings are at hand' "$page" || fail "report note"
if command -v chromium >/dev/null; then
    timeout 120 chromium --headless --disable-gpu --no-sandbox --enable-logging=stderr --v=0 \
        --user-data-dir="$tmp/chrome-profile" --dump-dom "file://$page" >"$tmp/dom.html" 2>"$tmp/dom.err" ||
        fail "chromium --dump-dom: $(tail -5 "$tmp/dom.err")"
    ! grep -E ':CONSOLE[:(]' "$tmp/dom.err" || fail "console messages on the report"
    python3 - "$tmp/dom.html" <<'PY' || fail "report DOM (above)"
import re, sys
dom = open(sys.argv[1]).read()
assert dom.count('class="usage gpus"') == 1, "no GPU chart"
assert 'class="measured"' not in dom.split('class="usage gpus"')[1].split("</svg>")[0], "a measured GPU line without readings"
assert "GPU use (peak / avg, memory)" in dom
assert 'class="gpu-series"' not in dom
PY
else
    echo "note: chromium is not installed; the report was checked as text only"
fi

# The device proof's path without a GPU: said plainly, exit 3, nothing run, no traceback.
if ! command -v nvidia-smi >/dev/null; then
    rc=0
    msg=$(bash "$(dirname "$0")/../../scripts/gpu-proof.sh" --out "$tmp/proof" 2>&1) || rc=$?
    [ "$rc" = 3 ] && [ "$msg" = "gpu-proof: no NVIDIA GPU on this machine: nvidia-smi is not installed; nothing was run" ] ||
        fail "gpu-proof.sh without a GPU: exit $rc '$msg'"
    [ ! -e "$tmp/proof" ] || fail "gpu-proof.sh wrote $tmp/proof without a GPU"
fi
echo "ok"
