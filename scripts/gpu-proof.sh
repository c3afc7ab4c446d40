#!/usr/bin/env bash
# The real-GPU proof of issue 27, for a machine with an NVIDIA GPU (made for one H200, 16 cores,
# no network, under 5 minutes): what the driver says beside what torcrun says, then a run of GPU
# jobs that load their GPU and idle jobs that hold one and do nothing, and whether torcrun's jobs
# table and report tell them apart. Everything goes into one folder, to be copied into
# bench/results/.
#
#   scripts/gpu-proof.sh [--out DIR] [--torcrun PATH] [--seconds N]
#
# DIR: default $OUT/gpu-proof when $OUT is set (the device machine's result folder), else
# bench/results/<date>-gpu-proof. PATH: a torcrun binary; default build/src/torcrun, built
# (cmake + ninja, torcrun only) when it is missing or does not run. N: how long each job holds its
# GPU (default 15). Carrying a torcrun built elsewhere (the device tool's `carry:
# ["build/src/torcrun"]`, 15 MB) skips the build when the machine has its libraries.
#
# How the GPU is loaded, with what the machine has, first found: a tiny CUDA program when nvcc
# exists; PyTorch when python3 imports torch with CUDA; else a small C program built with the C
# compiler that drives the GPU through the driver's own libcuda.so.1 (cuModuleLoadData of a PTX
# spin kernel, JIT-compiled by the driver: no toolkit needed). When none works the busy jobs stay
# idle, and SUMMARY.txt says so.
#
# Exit: 0 the proof ran and every job was measured, the busy ones told from the idle ones (when
# nothing could load the GPU: SUMMARY.txt says so); 1 it ran and that failed, or a step failed
# (SUMMARY.txt says which); 2 bad usage; 3 no NVIDIA GPU here (said on stderr, nothing run).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

out=""
torcrun=""
seconds=15
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=$2; shift 2 ;;
        --torcrun) torcrun=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
        *) echo "gpu-proof: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$seconds" in ''|*[!0-9]*) echo "gpu-proof: --seconds must be a whole number" >&2; exit 2 ;; esac

# 1. Is there a GPU at all? Said plainly, before anything is built.
if ! command -v nvidia-smi >/dev/null 2>&1; then
    echo "gpu-proof: no NVIDIA GPU on this machine: nvidia-smi is not installed; nothing was run" >&2
    exit 3
fi
if ! smi_list=$(nvidia-smi -L 2>&1) || ! grep -q '^GPU ' <<<"$smi_list"; then
    echo "gpu-proof: no NVIDIA GPU on this machine: nvidia-smi -L says: $smi_list" >&2
    exit 3
fi

if [ -z "$out" ]; then
    if [ -n "${OUT:-}" ]; then out="$OUT/gpu-proof"; else out="bench/results/$(date -u +%Y-%m-%d)-gpu-proof"; fi
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
summary="$out/SUMMARY.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
started=$(date +%s)
say "gpu-proof $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) CPUs"
say "output: $out"

# 2. The driver's view.
echo "$smi_list" >"$out/nvidia-smi-L.txt"
nvidia-smi topo -m >"$out/nvidia-smi-topo.txt" 2>&1 || true
nvidia-smi --query-gpu=index,uuid,name,memory.total,pci.bus_id,mig.mode.current,persistence_mode \
    --format=csv >"$out/nvidia-smi-query.csv" 2>&1 || true
nvidia-smi >"$out/nvidia-smi.txt" 2>&1 || true
lscpu >"$out/lscpu.txt" 2>&1 || true
for d in /sys/bus/pci/devices/*; do
    [ "$(cat "$d/vendor" 2>/dev/null)" = 0x10de ] && [ -e "$d/local_cpulist" ] &&
        echo "$(basename "$d") numa_node=$(cat "$d/numa_node") local_cpulist=$(cat "$d/local_cpulist")"
done >"$out/sysfs-gpus.txt" 2>/dev/null || true
say "GPUs (nvidia-smi -L):"
sed 's/^/  /' "$out/nvidia-smi-L.txt" | tee -a "$summary"

# 3. torcrun, built when needed.
if [ -z "$torcrun" ]; then torcrun="$root/build/src/torcrun"; fi
if ! "$torcrun" version >/dev/null 2>&1; then
    say "building torcrun ($torcrun does not run here)"
    jobs=$(nproc)
    if ! { cmake -S "$root" -B "$root/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release \
               >"$out/build.log" 2>&1 &&
           cmake --build "$root/build-gpu" -j"$jobs" --target torcrun >>"$out/build.log" 2>&1; }; then
        say "FAILED: torcrun did not build (build.log, last lines:)"
        tail -20 "$out/build.log" | tee -a "$summary"
        exit 1
    fi
    torcrun="$root/build-gpu/src/torcrun"
fi
"$torcrun" version >"$out/torcrun-version.txt" 2>&1 || true
say "torcrun: $torcrun ($(head -1 "$out/torcrun-version.txt"))"
"$torcrun" allocation >"$out/allocation.txt" 2>&1 || true
"$torcrun" allocation --json >"$out/allocation.json" 2>"$out/allocation.err" || true
say "torcrun allocation (its GPU part):"
sed -n '/^gpu devices/,$p' "$out/allocation.txt" | sed 's/^/  /' | tee -a "$summary"

# 4. A way to load the GPU.
tools="$out/tools"
mkdir -p "$tools"
loader=""
loader_kind="none"
tried=""
works() {  # works NAME PROGRAM: it loads the GPU for a second (a compiler is not a GPU)
    if timeout 120 "$2" 1 64 >"$tools/try-$1.txt" 2>&1; then return 0; fi
    tried="$tried $1: $(head -c 300 "$tools/try-$1.txt" | tr '\n' ' ');"
    return 1
}
if command -v nvcc >/dev/null 2>&1; then
    cat >"$tools/gpu_load.cu" <<'CU'
// Keeps the visible GPU busy for argv[1] seconds holding argv[2] MiB.
#include <chrono>
#include <cstdio>
#include <cstdlib>
__global__ void spin(float* out, long iters) {
    float x = threadIdx.x;
    for (long i = 0; i < iters; ++i) x = x * 0.9999f + 0.01f;
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
int main(int argc, char** argv) {
    double secs = argc > 1 ? atof(argv[1]) : 10; size_t mib = argc > 2 ? atol(argv[2]) : 1024;
    float *out, *hold;
    if (cudaMalloc(&out, 4096 * 256 * sizeof(float)) != cudaSuccess) { puts("cudaMalloc failed"); return 1; }
    if (cudaMalloc(&hold, mib << 20) != cudaSuccess) { puts("cudaMalloc (hold) failed"); return 1; }
    cudaMemset(hold, 1, mib << 20);
    auto t0 = std::chrono::steady_clock::now();
    long n = 0;
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < secs) {
        spin<<<4096, 256>>>(out, 20000); cudaDeviceSynchronize(); ++n;
    }
    printf("loaded the GPU: %ld kernels in %.1f s, %zu MiB held\n", n, secs, mib);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
CU
    if nvcc -O2 -o "$tools/gpu_load" "$tools/gpu_load.cu" >"$tools/nvcc.log" 2>&1 &&
       works nvcc "$tools/gpu_load"; then
        loader="$tools/gpu_load"; loader_kind="CUDA program (nvcc)"
    fi
fi
if [ -z "$loader" ] && command -v python3 >/dev/null 2>&1 &&
   python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
    cat >"$tools/gpu_load.py" <<'PY'
import sys, time, torch
secs = float(sys.argv[1]) if len(sys.argv) > 1 else 10
mib = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
hold = torch.ones(mib << 18, device="cuda")  # float32: 4 bytes each
a = torch.rand(4096, 4096, device="cuda")
t0, n = time.time(), 0
while time.time() - t0 < secs:
    a = torch.tanh(a @ a); torch.cuda.synchronize(); n += 1
print(f"loaded the GPU: {n} matmuls in {secs:.1f} s, {mib} MiB held")
PY
    printf '#!/bin/sh\nexec python3 %s "$@"\n' "$tools/gpu_load.py" >"$tools/gpu_load_py"
    chmod +x "$tools/gpu_load_py"
    if works torch "$tools/gpu_load_py"; then loader="$tools/gpu_load_py"; loader_kind="PyTorch"; fi
fi
if [ -z "$loader" ] && command -v cc >/dev/null 2>&1; then
    cat >"$tools/gpu_load_driver.c" <<'C'
/* Keeps the visible GPU busy for argv[1] seconds holding argv[2] MiB through the driver API of
   libcuda.so.1 (shipped with the driver), a PTX kernel JIT-compiled by the driver: no toolkit. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
typedef int (*init_t)(unsigned);
typedef int (*dev_get_t)(int*, int);
typedef int (*ctx_create_t)(void**, unsigned, int);
typedef int (*mod_load_t)(void**, const void*);
typedef int (*get_fn_t)(void**, void*, const char*);
typedef int (*alloc_t)(unsigned long long*, size_t);
typedef int (*memset_t)(unsigned long long, unsigned char, size_t);
typedef int (*launch_t)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, void*, void**, void**);
typedef int (*sync_t)(void);
static const char ptx[] =
    ".version 6.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry spin(.param .u64 out, .param .u64 iters)\n{\n"
    "  .reg .u64 %rd<5>;\n  .reg .f32 %f<2>;\n  .reg .pred %p;\n"
    "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [iters];\n"
    "  cvta.to.global.u64 %rd4, %rd1;\n"
    "  mov.u64 %rd3, 0;\n  mov.f32 %f1, 0f3F800000;\n"
    "LOOP:\n  fma.rn.f32 %f1, %f1, 0f3F7FFFFF, 0f3C23D70A;\n"
    "  add.u64 %rd3, %rd3, 1;\n  setp.lt.u64 %p, %rd3, %rd2;\n  @%p bra LOOP;\n"
    "  st.global.f32 [%rd4], %f1;\n  ret;\n}\n";
#define NEED(name, type, var) type var = (type)dlsym(lib, name); if (!var) { printf("no %s\n", name); return 1; }
#define CHECK(call) do { int rc_ = (call); if (rc_) { printf("%s failed: %d\n", #call, rc_); return 1; } } while (0)
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char** argv) {
    double secs = argc > 1 ? atof(argv[1]) : 10; size_t mib = argc > 2 ? (size_t)atol(argv[2]) : 1024;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) { printf("libcuda.so.1: %s\n", dlerror()); return 1; }
    NEED("cuInit", init_t, cu_init) NEED("cuDeviceGet", dev_get_t, dev_get)
    NEED("cuCtxCreate_v2", ctx_create_t, ctx_create) NEED("cuModuleLoadData", mod_load_t, mod_load)
    NEED("cuModuleGetFunction", get_fn_t, get_fn) NEED("cuMemAlloc_v2", alloc_t, mem_alloc)
    NEED("cuMemsetD8_v2", memset_t, mem_set) NEED("cuLaunchKernel", launch_t, launch)
    NEED("cuCtxSynchronize", sync_t, ctx_sync)
    int dev; void *ctx, *mod, *fn; unsigned long long out, hold;
    CHECK(cu_init(0)); CHECK(dev_get(&dev, 0)); CHECK(ctx_create(&ctx, 0, dev));
    CHECK(mod_load(&mod, ptx)); CHECK(get_fn(&fn, mod, "spin"));
    CHECK(mem_alloc(&out, 4096)); CHECK(mem_alloc(&hold, mib << 20)); CHECK(mem_set(hold, 1, mib << 20));
    unsigned long long iters = 200000;
    void* params[] = {&out, &iters};
    double t0 = now(); long n = 0;
    while (now() - t0 < secs) { CHECK(launch(fn, 1024, 1, 1, 256, 1, 1, 0, NULL, params, NULL)); CHECK(ctx_sync()); ++n; }
    printf("loaded the GPU: %ld kernels in %.1f s, %zu MiB held (driver API, PTX)\n", n, secs, mib);
    return 0;
}
C
    if cc -O2 -o "$tools/gpu_load_driver" "$tools/gpu_load_driver.c" -ldl >"$tools/cc.log" 2>&1 &&
       works driver "$tools/gpu_load_driver"; then
        loader="$tools/gpu_load_driver"; loader_kind="C program over libcuda.so.1 (driver API, PTX)"
    fi
fi
say "GPU load: ${loader_kind}${loader:+ ($loader)}"
[ -n "$loader" ] || say "NOTE: nothing here can load the GPU (tried:${tried:- no nvcc, no PyTorch with CUDA, no C compiler}); the busy jobs only hold their GPU"

# 5. The run: busy jobs load their GPU, idle jobs hold one and sleep; GPU jobs bound near their GPUs.
show="echo CUDA_VISIBLE_DEVICES=\$CUDA_VISIBLE_DEVICES; grep Cpus_allowed_list: /proc/self/status"
if [ -n "$loader" ]; then busy_cmd="$show; $loader $seconds 2048"; else busy_cmd="$show; sleep $seconds"; fi
idle_cmd="$show; sleep $seconds"
python3 - "$out/spec.json" "$busy_cmd" "$idle_cmd" <<'PY'
import json, sys
path, busy, idle = sys.argv[1:]
spec = {"name": "gpu proof",
        "resource_monitor": {"enabled": True, "granularity": "summary", "sample_interval_seconds": 1},
        "resource_requirements": [{"name": "one_gpu", "num_cpus": 2, "num_gpus": 1, "num_nodes": 1,
                                   "memory": "2g", "runtime": "PT5M"}],
        "jobs": [{"name": f"{kind}_{i}", "command": cmd, "resource_requirements": "one_gpu"}
                 for i in range(2) for kind, cmd in (("busy", busy), ("idle", idle))]}
json.dump(spec, open(path, "w"), indent=1)
PY
say "run: 2 busy and 2 idle jobs, ${seconds} s each, 1 GPU and 2 CPUs each, gpu.cpu_bind=true"
# nvidia-smi's own readings every second beside torcrun's, to compare.
nvidia-smi --query-gpu=timestamp,index,uuid,utilization.gpu,memory.used --format=csv -l 1 \
    >"$out/nvidia-smi-during-run.csv" 2>&1 &
smi_pid=$!
rc=0
timeout 240 "$torcrun" run "$out/spec.json" --output-dir "$out/run" --set gpu.cpu_bind=true \
    >"$out/run.out" 2>"$out/run.err" || rc=$?
kill "$smi_pid" 2>/dev/null || true
wait "$smi_pid" 2>/dev/null || true
say "torcrun run: exit $rc"
"$torcrun" jobs 1 --output-dir "$out/run" >"$out/jobs.txt" 2>&1 || true
"$torcrun" jobs 1 --output-dir "$out/run" --json >"$out/jobs.json" 2>"$out/jobs.err" || true
cp "$out/run/report.html" "$out/report.html" 2>/dev/null || true
grep -E ' (gpu|runner): ' "$out/run/worker.log" >"$out/worker-gpu-lines.txt" 2>/dev/null || true
for f in "$out"/run/job_stdio/*.o; do [ -e "$f" ] && { echo "== $(basename "$f")"; cat "$f"; }; done \
    >"$out/job-stdout.txt" 2>/dev/null || true
say "torcrun jobs:"
sed 's/^/  /' "$out/jobs.txt" | cut -c1-220 | tee -a "$summary"

# 6. The verdict, from --json.
verdict=0
python3 - "$out/jobs.json" "$loader_kind" <<'PY' | tee -a "$summary" || verdict=1
import json, sys
try:
    rows = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"FAILED: torcrun jobs --json did not read: {e}"); sys.exit(1)
loaded = sys.argv[2] != "none"
fmt = lambda v: "-" if v is None else f"{v:.1f}"
ok = True
for r in rows:
    print(f"  {r['name']}: status={r['status']} gpus={r['gpu_ids']} peak/avg GPU %={fmt(r['peak_gpu_percent'])}/"
          f"{fmt(r['avg_gpu_percent'])} peak GPU memory={r['peak_gpu_memory_bytes']} bound CPUs={r['bound_cpus']}")
    ok &= r["status"] == "completed"
busy = [r for r in rows if r["name"].startswith("busy")]
idle = [r for r in rows if r["name"].startswith("idle")]
measured = all(r["avg_gpu_percent"] is not None for r in busy + idle)
if not measured:
    print("FAILED: some GPU job has no GPU figures (worker-gpu-lines.txt says why)"); sys.exit(1)
if loaded:
    told = min(r["avg_gpu_percent"] for r in busy) > 50 and max(r["avg_gpu_percent"] for r in idle) < 5
    print(("busy and idle told apart: yes" if told else "busy and idle told apart: NO")
          + f" (busy avg >= {min(r['avg_gpu_percent'] for r in busy):.1f} %, idle avg <= {max(r['avg_gpu_percent'] for r in idle):.1f} %)")
    sys.exit(0 if told and ok else 1)
print("nothing could load the GPU: shown are the ids, memory and the idle jobs' figures only")
sys.exit(0 if ok else 1)
PY
if grep -q 'class="gpu-series"' "$out/report.html" 2>/dev/null; then
    say "report: per-attempt GPU charts present ($(grep -o 'class="gpu-series"' "$out/report.html" | wc -l)), $(grep -c 'GPUs measured busy' "$out/report.html") measured-busy line(s)"
else
    say "report: no per-attempt GPU chart"
    verdict=1
fi
if command -v chromium >/dev/null 2>&1 && [ -s "$out/report.html" ]; then
    if timeout 60 chromium --headless --disable-gpu --no-sandbox --enable-logging=stderr --v=0 \
           --user-data-dir="$out/.chrome" --dump-dom "file://$out/report.html" \
           >"$out/report-dom.html" 2>"$out/report-dom.err"; then
        say "report in headless Chromium: $(grep -c ':CONSOLE[:(]' "$out/report-dom.err" || true) console message(s)"
    fi
    rm -rf "$out/.chrome"
fi
say "took $(( $(date +%s) - started )) s"
[ "$rc" = 0 ] || verdict=1
exit "$verdict"
