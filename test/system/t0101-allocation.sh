#!/usr/bin/env bash
# `torcrun allocation` on the real binary, each run under `env -i` with a chosen environment: the
# first node of Torc #249's 2-node x 4-GPU allocation (8 GPUs in all, 4 per node), a per-node worker
# on n2 (as recorded on Slurm 22.05, docs/TORC-COMPATIBILITY.md §7 (b): exactly its own node's 4),
# no Slurm at all (the machine as measured), and malformed input (exit 2, the variable named).
set -euo pipefail
torcrun=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
# field EXPR: evaluates a Python expression over the JSON on stdin, bound to d.
field() { python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }
expect() {  # expect NAME ACTUAL WANTED
    [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
}

first_node=(SLURM_JOB_ID=249 SLURM_JOB_NUM_NODES=2 SLURM_JOB_GPUS=0,1,2,3
            CUDA_VISIBLE_DEVICES=0,1,2,3 SLURMD_NODENAME=n1 'SLURM_JOB_NODELIST=n[1-2]'
            'SLURM_JOB_CPUS_PER_NODE=8(x2)' SLURM_NODEID=0)

out=$(env -i "${first_node[@]}" "$torcrun" allocation --json)
expect "#249 total GPUs" "$(field "d['totals']['gpus']" <<<"$out")" 8
expect "#249 GPUs per node" "$(field "[n['gpus'] for n in d['nodes']]" <<<"$out")" "[4, 4]"
expect "#249 n1 ids" "$(field "d['nodes'][0]['gpu_ids']" <<<"$out")" "['0', '1', '2', '3']"
expect "#249 n1 ids are devices" "$(field "d['nodes'][0]['gpu_ids_are_device_ids']" <<<"$out")" True
expect "#249 n2 ids by Slurm" "$(field "d['nodes'][1]['gpu_ids_are_device_ids']" <<<"$out")" False
expect "#249 scope" "$(field "d['scope']" <<<"$out")" allocation
expect "#249 auto mode" "$(field "d['mode']['chosen']" <<<"$out")" slurm
expect "#249 slurm pool" "$(field "d['mode']['pool']" <<<"$out")" "['n1', 'n2']"

out=$(env -i "${first_node[@]}" "$torcrun" allocation --json --mode direct)
expect "#249 direct pool" "$(field "d['mode']['pool']" <<<"$out")" "['n1']"
idle="only n1 is used; n2 stays idle: start one worker per node"
idle+=" (torcrun slurm-script --per-node-workers) or use --mode slurm"
expect "#249 direct warning" "$(field "d['warnings'][0]" <<<"$out")" "$idle"

text=$(env -i "${first_node[@]}" "$torcrun" allocation)
memory=$(field "d['nodes'][0]['memory']" <<<"$out")
bytes=$(field "d['nodes'][0]['memory_bytes']" <<<"$out")
grep -qxF "  n1 (local): 8 CPUs, $memory ($bytes bytes), GPUs: 0,1,2,3" <<<"$text" \
    || fail "text form, n1 line: $text"
grep -qx '  n2: 8 CPUs, .* GPUs: 4 (ids assigned by Slurm)' <<<"$text" \
    || fail "text form, n2 line: $text"
grep -qxF "nodes: 2, 16 CPUs, $(field "d['totals']['memory']" <<<"$out"), 8 GPUs" <<<"$text" \
    || fail "text form, totals: $text"

# (b) of docs/TORC-COMPATIBILITY.md §7, the worker step on n2 (with the allocation's variables it
# inherits).
worker=(SLURM_CLUSTER_NAME=lab SLURM_JOB_ID=6 SLURM_JOBID=6 SLURM_JOB_NAME=interactive
        'SLURM_JOB_NODELIST=n[1-2]' SLURM_JOB_NUM_NODES=2 SLURM_JOB_PARTITION=debug
        SLURM_SUBMIT_HOST=vm CUDA_VISIBLE_DEVICES=0,1,2,3 GPU_DEVICE_ORDINAL=0,1,2,3
        ROCR_VISIBLE_DEVICES=0,1,2,3 ZE_AFFINITY_MASK=0,1,2,3 SLURMD_NODENAME=n2
        SLURM_CPUS_ON_NODE=8 SLURM_CPUS_PER_TASK=8 SLURM_DISTRIBUTION=cyclic SLURM_GPUS_ON_NODE=4
        SLURM_GPUS_PER_NODE=4 SLURM_GTIDS=1 'SLURM_JOB_CPUS_PER_NODE=8(x2)'
        'SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0=8(x2)' SLURM_JOB_UID=0 SLURM_JOB_USER=root
        SLURM_JOB_GID=0 SLURM_LAUNCH_NODE_IPADDR=127.0.0.1 SLURM_LOCALID=0 SLURM_NODEID=1
        SLURM_PROCID=1 SLURM_TASK_PID=25425 SLURM_MEM_PER_NODE=4000 SLURM_NNODES=2
        'SLURM_NODELIST=n[1-2]' SLURM_NPROCS=2 SLURM_NTASKS=2 SLURM_NTASKS_PER_NODE=1
        SLURM_SRUN_COMM_HOST=127.0.0.1 SLURM_SRUN_COMM_PORT=45285 SLURM_STEP_LAUNCHER_PORT=45285
        SLURM_STEPID=0 SLURM_STEP_ID=0 SLURM_STEP_GPUS=0,1,2,3 'SLURM_STEP_NODELIST=n[1-2]'
        SLURM_STEP_NUM_NODES=2 SLURM_STEP_NUM_TASKS=2 'SLURM_STEP_TASKS_PER_NODE=1(x2)'
        'SLURM_TASKS_PER_NODE=1(x2)' SLURM_TOPOLOGY_ADDR=n2 SLURM_TOPOLOGY_ADDR_PATTERN=node
        SLURM_UMASK=0022)

out=$(env -i "${worker[@]}" "$torcrun" allocation --json)
expect "worker scope" "$(field "d['scope']" <<<"$out")" node_task
expect "worker nodes" "$(field "[n['name'] for n in d['nodes']]" <<<"$out")" "['n2']"
expect "worker ids" "$(field "d['nodes'][0]['gpu_ids']" <<<"$out")" "['0', '1', '2', '3']"
expect "worker GPUs" "$(field "d['totals']['gpus']" <<<"$out")" 4
expect "worker CPUs" "$(field "d['nodes'][0]['cpus']" <<<"$out")" 8
expect "worker memory" "$(field "d['nodes'][0]['memory_bytes']" <<<"$out")" $((4000 * 1024 * 1024))
expect "worker mode" "$(field "(d['mode']['chosen'], d['mode']['pool'])" <<<"$out")" \
    "('direct', ['n2'])"
expect "worker warnings" "$(field "d['warnings']" <<<"$out")" "[]"

# Outside Slurm: the machine, as measured by the shell.
out=$(env -i "$torcrun" allocation --json)
expect "machine scope" "$(field "(d['scope'], d['in_slurm'])" <<<"$out")" "('machine', False)"
expect "machine CPUs" "$(field "d['nodes'][0]['cpus']" <<<"$out")" \
    "$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')"
expect "machine memory" "$(field "d['nodes'][0]['memory_bytes']" <<<"$out")" \
    "$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) * 1024))"
expect "machine name" "$(field "d['nodes'][0]['name']" <<<"$out")" \
    "$(python3 -c 'import socket; print(socket.gethostname())')"
devices=$(python3 -c 'import os, re
found = [int(f[6:]) for f in os.listdir("/dev") if re.fullmatch(r"nvidia[0-9]+", f)]
print([str(n) for n in sorted(found)])')
expect "machine GPUs" "$(field "d['nodes'][0]['gpu_ids']" <<<"$out")" "$devices"
out=$(env -i CUDA_VISIBLE_DEVICES= "$torcrun" allocation --json)
expect "empty CUDA_VISIBLE_DEVICES" "$(field "d['nodes'][0]['gpu_ids']" <<<"$out")" "[]"

# Refusals and malformed input: exit 2 with the reason on stderr.
refuse() {  # refuse NAME MESSAGE ENV... -- ARGS...
    local name=$1 message=$2; shift 2
    local vars=()
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    set +e
    err=$(env -i "${vars[@]}" "$torcrun" allocation "$@" 2>&1 >/dev/null); rc=$?
    set -e
    expect "$name: exit status" "$rc" 2
    expect "$name: message" "$err" "torcrun allocation: $message"
}
refuse "malformed nodelist" 'SLURM_JOB_NODELIST: "n[1-" has an unbalanced bracket' \
    SLURM_JOB_ID=1 'SLURM_JOB_NODELIST=n[1-' --
refuse "malformed CPU counts" \
    'SLURM_JOB_CPUS_PER_NODE: "8(x)" has a malformed item "8(x)" (expected N or N(xR))' \
    SLURM_JOB_ID=1 'SLURM_JOB_NODELIST=n[1-2]' 'SLURM_JOB_CPUS_PER_NODE=8(x)' --
refuse "slurm mode outside Slurm" \
    'mode: "slurm" needs a Slurm allocation, and SLURM_JOB_ID is not set' -- --mode slurm
refuse "unknown mode" 'mode: "fast" is not auto, direct or slurm' -- --mode fast
refuse "unknown option" "unrecognised option '--frobnicate'" -- --frobnicate

usage='usage: torcrun allocation [--json] [--mode auto|direct|slurm]'
"$torcrun" allocation --help | grep -qxF "$usage" || fail "--help prints no usage"
echo ok
