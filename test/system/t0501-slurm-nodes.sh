#!/usr/bin/env bash
# The test cluster is what the Slurm tests assume: every emulated node idle in the default
# partition, with its fake GPUs as gres (gpu:4 each by default) and its CPUs.
set -euo pipefail
source "$(dirname "$0")/slurm_lib.sh"
slurm_use_cluster

want=""
for i in $(seq 1 "$TORCRUN_SLURM_NODES"); do
    want+="n$i debug* idle gpu:$TORCRUN_SLURM_GPUS $TORCRUN_SLURM_CPUS"$'\n'
done
got=$(sinfo -h -N -o '%N %P %t %G %c' | sort)$'\n'
[ "$got" = "$want" ] || slurm_fail "sinfo: got
$got
expected
$want"

gres=$(scontrol -o show node n1 | tr ' ' '\n' | grep '^Gres=')
[ "$gres" = "Gres=gpu:$TORCRUN_SLURM_GPUS" ] || slurm_fail "scontrol show node n1: $gres"
echo "ok: $TORCRUN_SLURM_NODES nodes idle, gpu:$TORCRUN_SLURM_GPUS each"
