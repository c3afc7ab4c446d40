#!/usr/bin/env bash
# scripts/slurm-cluster.sh itself, on a second cluster of its own (3 nodes x 2 GPUs in a private
# 0700 folder, so munge's socket must go elsewhere) beside the one the other tests use: status
# fails before `up`; `up` takes the next free ports and writes env.sh; a second `up` leaves the healthy cluster alone; `down` stops every
# process it started and leaves the first cluster running. Prints how long up and down took.
set -euo pipefail
source "$(dirname "$0")/slurm_lib.sh"
slurm_use_cluster

script=$slurm_repo/scripts/slurm-cluster.sh
second=$tmp/second
export TORCRUN_SLURM_DIR=$second TORCRUN_SLURM_NODES=3 TORCRUN_SLURM_GPUS=2 TORCRUN_SLURM_CPUS=4
first_conf=$SLURM_CONF
unset TORCRUN_SLURM_CTLD_PORT
trap '"$script" down >/dev/null 2>&1; slurm_cleanup' EXIT

"$script" status >"$tmp/status.out" 2>&1 && slurm_fail "status before up exited 0: $(cat "$tmp/status.out")"

start=$EPOCHREALTIME
"$script" up >"$tmp/up.out" 2>&1 || slurm_fail "up failed: $(cat "$tmp/up.out")"
up_s=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
[ "$(tail -n1 "$tmp/up.out")" = "source $second/env.sh" ] || slurm_fail "up's last line: $(cat "$tmp/up.out")"
munge_dir=$(cat "$second/munge-dir")
case "$munge_dir" in /tmp/torcrun-slurm-munge.*) ;; *) slurm_fail "munge's folder: $munge_dir" ;; esac
grep -qF "is not searchable by others: munge's socket goes to $munge_dir" "$tmp/up.out" \
    || slurm_fail "up did not say where munge's socket went: $(cat "$tmp/up.out")"

# shellcheck disable=SC1091
(
    source "$second/env.sh"
    [ "$SLURM_CONF" = "$second/etc/slurm.conf" ] || fail "env.sh: SLURM_CONF=$SLURM_CONF"
    [ "$SLURM_CONF" != "$first_conf" ] || fail "env.sh names the first cluster"
    port=$(sed -n 's/^SlurmctldPort=//p' "$SLURM_CONF")
    first_port=$(sed -n 's/^SlurmctldPort=//p' "$first_conf")
    [ "$port" != "$first_port" ] || fail "both clusters on port $port"
    got=$(sinfo -h -N -o '%N %t %G' | sort | tr '\n' ,)
    [ "$got" = "n1 idle gpu:2,n2 idle gpu:2,n3 idle gpu:2," ] || fail "second cluster's sinfo: $got"
    tasks=$(timeout 30 srun -N3 bash -c 'echo "$SLURMD_NODENAME"' | sort | tr '\n' ,)
    [ "$tasks" = "n1,n2,n3," ] || fail "srun -N3 on the second cluster: $tasks"
) || slurm_fail "second cluster"

"$script" status >"$tmp/status.out" 2>&1 || slurm_fail "status on a running cluster: $(cat "$tmp/status.out")"
grep -q '^n3 debug\* idle 4 ' "$tmp/status.out" || slurm_fail "status output: $(cat "$tmp/status.out")"

"$script" up >"$tmp/up2.out" 2>&1 || slurm_fail "second up failed: $(cat "$tmp/up2.out")"
grep -q '] already up: source ' "$tmp/up2.out" || slurm_fail "second up restarted: $(cat "$tmp/up2.out")"

pids=$(cat "$second"/pids/*.pid)
start=$EPOCHREALTIME
"$script" down >"$tmp/down.out" 2>&1 || slurm_fail "down failed: $(cat "$tmp/down.out")"
down_s=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
for pid in $pids; do
    kill -0 "$pid" 2>/dev/null && slurm_fail "pid $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline")) alive after down"
done
left=$(grep -l "$second" /proc/[0-9]*/cmdline 2>/dev/null || true)
[ -z "$left" ] || slurm_fail "processes of the second cluster left: $left"
[ -e "$munge_dir" ] && slurm_fail "down left $munge_dir"
"$script" status >"$tmp/status.out" 2>&1 && slurm_fail "status after down exited 0: $(cat "$tmp/status.out")"

timeout 10 sinfo -h -o %t | grep -qx idle || slurm_fail "the first cluster is not idle after the second's down"
echo "ok: second cluster up in ${up_s}s, down in ${down_s}s; the first one still up"
