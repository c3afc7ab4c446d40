#!/usr/bin/env bash
# In a `salloc -N2 --gpus-per-node=4` allocation, 8 concurrent single-GPU steps (`srun --exact`,
# one node each) get 8 distinct (node, GPU) pairs and all run at once: no step waits. Two flag
# sets do it; the allocation's SLURM_GPUS_PER_NODE leaks into every srun, so a plain `--gpus=1`
# step takes all the node's GPUs (the control case). The allocation asks for one task per GPU:
# without it, it holds one CPU per node, and the steps queue for CPUs instead of GPUs.
set -euo pipefail
source "$(dirname "$0")/slurm_lib.sh"
slurm_use_cluster

nodes=$TORCRUN_SLURM_NODES gpus=$TORCRUN_SLURM_GPUS
alloc=(-N"$nodes" --ntasks-per-node="$gpus" --gpus-per-node="$gpus")

# The step: its node, Slurm's GPU ids for it, CUDA_VISIBLE_DEVICES, and when it ran.
cat >"$tmp/step.sh" <<'STEP'
start=$EPOCHREALTIME
sleep 5
echo "$SLURMD_NODENAME $SLURM_STEP_GPUS ${CUDA_VISIBLE_DEVICES-unset} $start $EPOCHREALTIME"
STEP

# steps.sh OUT PREFIX...: one step per GPU of every node, all at once, each with a timeout.
cat >"$tmp/steps.sh" <<'STEPS'
out=$1; shift
for node in $(scontrol show hostnames "$SLURM_JOB_NODELIST"); do
    for gpu in $(seq 1 "$TORCRUN_SLURM_GPUS"); do
        timeout 30 "$@" -w "$node" bash "$(dirname "$0")/step.sh" \
            >"$out.$node.$gpu.out" 2>"$out.$node.$gpu.err" &
    done
done
wait
STEPS

check_steps() {  # check_steps NAME OUT: 8 single-GPU steps, distinct pairs, all overlapping
    local name=$1 out=$2 f
    for f in "$out".*.err; do
        [ -s "$f" ] && slurm_fail "$name: srun wrote to stderr (a step waited?): $(cat "$f")"
    done
    local lines
    lines=$(cat "$out".*.out)
    [ "$(wc -l <<<"$lines")" = $((nodes * gpus)) ] || slurm_fail "$name: steps that reported: $lines"
    grep -qv '^n[0-9]* [0-9]* ' <<<"$lines" && slurm_fail "$name: a step got not one GPU: $lines"
    local pairs
    pairs=$(cut -d' ' -f1,2 <<<"$lines" | sort -u | wc -l)
    [ "$pairs" = $((nodes * gpus)) ] || slurm_fail "$name: $pairs distinct (node, GPU) pairs: $lines"
    # all ran at once: the last start comes before the first end
    awk -v name="$name" '{ if (NR == 1 || $4 > s) s = $4; if (NR == 1 || $5 < e) e = $5 }
        END { if (s >= e) { printf "%s: steps did not overlap (last start %.2f, first end %.2f)\n",
              name, s, e; exit 1 } }' <<<"$lines" || slurm_fail "$name: a step waited: $lines"
    echo "ok: $name: $(cut -d' ' -f1,2 <<<"$lines" | sort | tr '\n' ',')"
}

# name | step command (the script appends -w NODE)
cases=(
    "gpus-per-node=1|srun --exact -N1 -n1 --gpus-per-node=1"
    "gpus=1 without SLURM_GPUS_PER_NODE|env -u SLURM_GPUS_PER_NODE srun --exact -N1 -n1 --gpus=1"
)
for c in "${cases[@]}"; do
    name=${c%%|*}
    read -ra cmd <<<"${c#*|}"
    out=$tmp/case$RANDOM
    slurm_in_allocation 90 "${alloc[@]}" -- bash "$tmp/steps.sh" "$out" "${cmd[@]}" 2>"$tmp/salloc.err" \
        || slurm_fail "$name: salloc failed: $(cat "$tmp/salloc.err")"
    check_steps "$name" "$out"
    slurm_wait_jobs_done 30
done

# control: the leaked SLURM_GPUS_PER_NODE turns `--gpus=1` into every GPU of the node
all=$(seq -s, 0 $((gpus - 1)))
got=$(slurm_in_allocation 60 "${alloc[@]}" -- srun --exact -N1 -n1 --gpus=1 -w n1 \
    bash -c 'echo "$SLURM_GPUS_PER_NODE $SLURM_STEP_GPUS"' 2>"$tmp/salloc.err") \
    || slurm_fail "control: salloc failed: $(cat "$tmp/salloc.err")"
[ "$got" = "$gpus $all" ] || slurm_fail "control: --gpus=1 with SLURM_GPUS_PER_NODE=$gpus: got '$got'," \
    "expected '$gpus $all'"
echo "ok: control: --gpus=1 with the allocation's SLURM_GPUS_PER_NODE gets GPUs $all"
