#!/usr/bin/env bash
# `srun -N<nodes>` runs one task per emulated node, and each task knows its node by
# SLURMD_NODENAME (`hostname` is the same machine everywhere).
set -euo pipefail
source "$(dirname "$0")/slurm_lib.sh"
slurm_use_cluster

n=$TORCRUN_SLURM_NODES
out=$(timeout 30 srun --job-name="$slurm_job_name" -N"$n" -l bash -c 'echo "$SLURMD_NODENAME"' 2>"$tmp/err") \
    || slurm_fail "srun -N$n: exit $?: $(cat "$tmp/err")"
want=""
for i in $(seq 1 "$n"); do want+="$((i - 1)): n$i"$'\n'; done
got=$(sort <<<"$out")$'\n'
[ "$got" = "$want" ] || slurm_fail "srun -N$n -l: got
$got
expected
$want"
echo "ok: one task on each of $n nodes"
