#!/usr/bin/env bash
# A real Slurm 22.05 cluster on this one machine, for the Slurm tests and for trying torcrun:
# a private munged, slurmctld, one slurmd per emulated node (Debian builds Slurm with
# --enable-multiple-slurmd) and fake GPUs through gres.conf. No systemd and nothing in /etc:
# configs, state and logs live in $TORCRUN_SLURM_DIR (default <repo>/.slurm-cluster); clients
# find the cluster through SLURM_CONF, which <dir>/env.sh exports. `down` stops only the
# processes `up` started. Why each setting is needed is said beside it below.
#
#   scripts/slurm-cluster.sh up       start (idempotent: a healthy cluster is left alone)
#   scripts/slurm-cluster.sh down     cancel jobs, stop our daemons, keep the logs
#   scripts/slurm-cluster.sh status   sinfo; non-zero when the cluster is not up
#   source .slurm-cluster/env.sh      then sinfo, srun, salloc, sbatch as usual
#
# Tunables (environment): TORCRUN_SLURM_DIR, TORCRUN_SLURM_NODES (2), TORCRUN_SLURM_GPUS (4 per
# node), TORCRUN_SLURM_CPUS (8 per node), TORCRUN_SLURM_MEM (8000 MB per node),
# TORCRUN_SLURM_CTLD_PORT (first free of 16817, 16917, ...; slurmds use the ports after it),
# TORCRUN_SLURM_TASK_PLUGIN (task/none), TORCRUN_SLURM_PROCTRACK (proctrack/linuxproc),
# TORCRUN_SLURM_CGROUP=1 (task/cgroup + proctrack/cgroup + ConstrainDevices: fenced fake GPUs),
# TORCRUN_SLURM_EXTRA_CONF (lines appended to slurm.conf), TORCRUN_SLURM_ETC_HOSTS=1 (node
# names in /etc/hosts, removed by down), TORCRUN_SLURM_FRESH=1 (restart even when healthy),
# TORCRUN_SLURM_TIMEOUT (seconds to wait for idle nodes, 60), TORCRUN_SLURM_CGROUP_PLUGIN
# (cgroup/v1, or cgroup/v2 on a host with only the unified hierarchy).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dir=${TORCRUN_SLURM_DIR:-$TORCRUN_ROOT/.slurm-cluster}
nodes=${TORCRUN_SLURM_NODES:-2}
gpus=${TORCRUN_SLURM_GPUS:-4}
cpus=${TORCRUN_SLURM_CPUS:-8}
mem=${TORCRUN_SLURM_MEM:-8000}
task_plugin=${TORCRUN_SLURM_TASK_PLUGIN:-task/none}
proctrack=${TORCRUN_SLURM_PROCTRACK:-proctrack/linuxproc}
constrain_devices=no
if [ "${TORCRUN_SLURM_CGROUP:-0}" = 1 ]; then
    task_plugin=task/cgroup proctrack=proctrack/cgroup constrain_devices=yes
fi
conf=$dir/etc/slurm.conf
export SLURM_CONF=$conf
t0=$EPOCHREALTIME

say() { printf '[slurm-cluster %s %5.2fs] %s\n' "$phase" "$(elapsed)" "$*" >&2; }
die() { say "error: $*"; exit 1; }
elapsed() { awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }
alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
node_names() { seq -f 'n%g' 1 "$nodes"; }

# ours PID: PID is still a process we started (its command line names our folder), not a
# reused PID.
ours() {
    alive "$1" || return 1
    case "$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)" in *"$dir"*) return 0 ;; esac
    return 1
}

# port_free PORT: nothing listens on 127.0.0.1:PORT.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# choose_ports: the controller port and the slurmd ports after it. Several clusters (other
# worktrees, a packaged Slurm on 6817) can share the machine, so an unset port means the first
# free block; a restart reuses the block the last `up` chose.
choose_ports() {
    if [ -n "${TORCRUN_SLURM_CTLD_PORT:-}" ]; then
        ctld_port=$TORCRUN_SLURM_CTLD_PORT
        return 0
    fi
    local base p ok
    for base in $(cat "$dir/ports" 2>/dev/null) $(seq 16817 100 19817); do
        ok=1
        for p in $(seq "$base" $((base + nodes))); do port_free "$p" || { ok=0; break; }; done
        [ $ok = 1 ] && { ctld_port=$base; return 0; }
    done
    die "no free block of $((nodes + 1)) ports between 16817 and 19917 (set TORCRUN_SLURM_CTLD_PORT)"
}

settings() {
    echo "nodes=$nodes gpus=$gpus cpus=$cpus mem=$mem task=$task_plugin" \
         "proctrack=$proctrack constrain=$constrain_devices cgroup=${TORCRUN_SLURM_CGROUP_PLUGIN:-}" \
         "extra=${TORCRUN_SLURM_EXTRA_CONF:-}"
}

# healthy: every daemon we recorded runs, the settings match and every node answers idle,
# mixed or allocated.
healthy() {
    [ -d "$dir/pids" ] && [ "$(cat "$dir/pids/settings" 2>/dev/null)" = "$(settings)" ] || return 1
    local name
    for name in munged slurmctld $(node_names | sed 's/^/slurmd./'); do
        ours "$(cat "$dir/pids/$name.pid" 2>/dev/null)" || return 1
    done
    local up
    up=$(timeout 10 sinfo -h -N -o '%t' 2>/dev/null | grep -c -E '^(idle|mix|alloc)$' || true)
    [ "$up" -ge "$nodes" ]
}

# ---------------------------------------------------------------- up

# install_packages: Slurm, munge and libpmix2 (mpi/pmix dlopen()s it, no package depends on it,
# and a slurmd started without it fails every later launch), plus Open MPI for the MPI tests.
# Without systemd the maintainer scripts would start the packaged daemons: a policy-rc.d that
# denies it is put in place for the install when the machine has none.
install_packages() {
    local policy=/usr/sbin/policy-rc.d made_policy=0 rc=0
    if [ ! -e "$policy" ] && [ "$(id -u)" -eq 0 ]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && made_policy=1
    fi
    ensure_packages "${TORCRUN_SLURM_PACKAGES[@]}" || rc=$?
    [ $made_policy = 1 ] && rm -f "$policy"
    [ $rc = 0 ] || die "could not install ${TORCRUN_SLURM_PACKAGES[*]}"
}

# link_daemons: libslurm's run_in_daemon() compares argv[0] with "slurmctld", "slurmd" and
# "slurmstepd"; started as slurmctld-wlm, slurmctld silently drops Gres= from the node lines.
# The -wlm builds are named explicitly because slurm-wlm-emulator hijacks the alternatives.
link_daemons() {
    mkdir -p "$dir/bin"
    local name path
    for name in slurmctld slurmd slurmstepd; do
        path=/usr/sbin/$name-wlm
        [ -x "$path" ] || path=/usr/sbin/$name
        [ -x "$path" ] || die "$name: not found in /usr/sbin (is slurm-wlm installed?)"
        ln -sfn "$path" "$dir/bin/$name"
    done
}

# others_can_enter PATH: every folder from / down to PATH has o+x.
others_can_enter() {
    local path=$1 mode
    while [ -n "$path" ] && [ "$path" != / ]; do
        mode=$(stat -c %A "$path") || return 1
        case ${mode:9:1} in x | t) ;; *) return 1 ;; esac
        path=$(dirname "$path")
    done
}

# choose_munge_dir: munged refuses a socket unless every folder above it has o+x ("Socket is
# inaccessible: execute permissions for all required"), and a checkout may lie in a private
# folder (mktemp -d makes 0700 ones): then the socket goes to a folder of ours in /tmp.
choose_munge_dir() {
    munge_dir=$dir/munge
    others_can_enter "$dir" && return 0
    munge_dir=/tmp/torcrun-slurm-munge.$(printf '%s' "$dir" | cksum | cut -d' ' -f1)
    say "$dir is not searchable by others: munge's socket goes to $munge_dir"
}

prepare_folders() {
    rm -rf "$dir/spool" "$dir/pids" "$dir/log" "$dir/munge" "$dir/tmp"
    mkdir -p "$dir/etc" "$dir/spool/ctld" "$dir/pids" "$dir/log" "$dir/dev"
    local node
    for node in $(node_names); do mkdir -p "$dir/spool/d/$node" "$dir/tmp/$node"; done
    choose_munge_dir
    rm -rf "$munge_dir"
    mkdir -p "$munge_dir"
    chmod 711 "$munge_dir"
    echo "$munge_dir" >"$dir/munge-dir"
    [ -s "$dir/etc/munge.key" ] || dd if=/dev/urandom of="$dir/etc/munge.key" bs=1024 count=1 2>/dev/null
    chmod 600 "$dir/etc/munge.key"
    # fake GPUs: NVIDIA's character devices (major 195), plain files where mknod is denied
    local i
    for i in $(seq 0 $((gpus - 1))); do
        [ -e "$dir/dev/nvidia$i" ] || mknod -m 666 "$dir/dev/nvidia$i" c 195 "$i" 2>/dev/null \
            || : >"$dir/dev/nvidia$i"
    done
}

write_slurm_conf() {
    cat >"$conf" <<EOF
# Written by scripts/slurm-cluster.sh; rewritten at every start.
ClusterName=torcrun
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$((ctld_port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_dir/munge.socket
StateSaveLocation=$dir/spool/ctld
SlurmdSpoolDir=$dir/spool/d/%n
# Per node: mpi/pmix creates spmix_appdir_<uid>_<job>.<step> here, and in a shared folder the
# second co-located slurmstepd fails with "File exists".
TmpFS=$dir/tmp/%n
SlurmctldPidFile=$dir/log/slurmctld.pidfile
SlurmdPidFile=$dir/log/slurmd.%n.pidfile
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
ProctrackType=$proctrack
TaskPlugin=$task_plugin
# Memory is enforced as a site does: the linux gatherer samples each step's tasks every 2 s and
# OverMemoryKill kills a step whose tasks exceed its --mem (Slurm's OUT_OF_MEMORY, exit 137).
# (cgroup's ConstrainRAMSpace works here too, under TORCRUN_SLURM_CGROUP=1, but slurmd refuses
# it beside OverMemoryKill: "Jobs memory is being constrained by both TaskPlugin cgroup and
# JobAcctGather plugin".)
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=2
JobAcctGatherParams=OverMemoryKill
# No slurmdbd: AccountingStorageTRES=gres/gpu would be fatal, so GPUs are not in TRES.
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=5
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# The nodes are bigger than the machine: do not drain them for it.
SlurmdParameters=config_overrides
GresTypes=gpu
ReturnToService=2
MpiDefault=none
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
# The slurmds share one host: no message forwarding between them.
TreeWidth=65533
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
InactiveLimit=0
KillWait=5
MinJobAge=300
DefMemPerCPU=$((mem / cpus))
NodeName=n[1-$nodes] NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((ctld_port + 1))-$((ctld_port + nodes)) CPUs=$cpus Boards=1 SocketsPerBoard=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=$mem Gres=gpu:$gpus State=UNKNOWN
PartitionName=debug Nodes=n[1-$nodes] Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
${TORCRUN_SLURM_EXTRA_CONF:-}
EOF
}

write_configs() {
    write_slurm_conf
    cat >"$dir/etc/gres.conf" <<EOF
AutoDetect=off
NodeName=n[1-$nodes] Name=gpu File=$dir/dev/nvidia[0-$((gpus - 1))]
EOF
    # 22.05 has no CgroupPlugin=disabled; the plugin loads and stays unused unless a cgroup task
    # or proctrack plugin is configured. v2 where /sys/fs/cgroup is the unified hierarchy alone.
    local cgroup_plugin=cgroup/v1
    [ -f /sys/fs/cgroup/cgroup.controllers ] && cgroup_plugin=cgroup/v2
    cat >"$dir/etc/cgroup.conf" <<EOF
CgroupPlugin=${TORCRUN_SLURM_CGROUP_PLUGIN:-$cgroup_plugin}
CgroupAutomount=no
ConstrainDevices=$constrain_devices
EOF
    : >"$dir/etc/plugstack.conf"
    cat >"$dir/env.sh" <<EOF
# Written by scripts/slurm-cluster.sh: source it to use the cluster in $dir.
export SLURM_CONF=$conf
export TORCRUN_SLURM_DIR=$dir
export TORCRUN_SLURM_NODES=$nodes
export TORCRUN_SLURM_GPUS=$gpus
export TORCRUN_SLURM_CPUS=$cpus
EOF
    echo "$ctld_port" >"$dir/ports"
    if [ "${TORCRUN_SLURM_ETC_HOSTS:-0}" = 1 ] && ! grep -q "# torcrun-slurm $dir\$" /etc/hosts; then
        echo "127.0.0.1 $(node_names | tr '\n' ' ')# torcrun-slurm $dir" >>/etc/hosts
    fi
}

# start_munged: our own munged on our own socket and key (a system munged is left alone).
# It daemonizes itself; its PID comes from its pid file.
start_munged() {
    local socket=$munge_dir/munge.socket
    munged --socket="$socket" --key-file="$dir/etc/munge.key" --pid-file="$munge_dir/munged.pid" \
        --log-file="$dir/log/munged.log" --seed-file="$munge_dir/munged.seed" --num-threads=4 \
        </dev/null >"$dir/log/munged.out" 2>&1 || die "munged did not start: $(cat "$dir/log/munged.out")"
    cp "$munge_dir/munged.pid" "$dir/pids/munged.pid"
    for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.05; done
    munge -S "$socket" -n </dev/null | unmunge -S "$socket" >/dev/null \
        || die "munged at $socket does not answer; see $dir/log/munged.log"
}

start_daemons() {
    start_munged
    setsid "$dir/bin/slurmctld" -D -f "$conf" </dev/null >"$dir/log/slurmctld.out" 2>&1 &
    echo $! >"$dir/pids/slurmctld.pid"
    local node
    for node in $(node_names); do
        setsid "$dir/bin/slurmd" -D -f "$conf" -N "$node" -d "$dir/bin/slurmstepd" \
            </dev/null >"$dir/log/slurmd.$node.out" 2>&1 &
        echo $! >"$dir/pids/slurmd.$node.pid"
    done
    settings >"$dir/pids/settings"
}

# log_tails: the last lines of every daemon log, for a failure message.
log_tails() {
    local f
    for f in "$dir"/log/*; do
        [ -s "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }
    done
    return 0
}

wait_idle() {
    local deadline=$((SECONDS + ${TORCRUN_SLURM_TIMEOUT:-60})) pidfile idle
    while :; do
        for pidfile in "$dir"/pids/*.pid; do
            # alive, not ours: a daemon forked a moment ago may not have exec'd its command yet
            alive "$(cat "$pidfile")" || { log_tails >&2; die "$(basename "$pidfile" .pid) died; logs in $dir/log"; }
        done
        idle=$(timeout 10 sinfo -h -N -o '%t' 2>/dev/null | grep -c '^idle$' || true)
        [ "$idle" -ge "$nodes" ] && return 0
        if [ $SECONDS -ge $deadline ]; then
            sinfo -N -l >&2 || true
            log_tails >&2
            die "nodes not idle after ${TORCRUN_SLURM_TIMEOUT:-60} s; logs in $dir/log"
        fi
        sleep 0.2
    done
}

cluster_up() {
    if [ "${TORCRUN_SLURM_FRESH:-0}" != 1 ] && healthy; then
        say "already up: source $dir/env.sh"
        return 0
    fi
    [ -d "$dir/pids" ] && (phase=down; cluster_down)
    install_packages
    link_daemons
    mkdir -p "$dir"
    choose_ports
    prepare_folders
    write_configs
    start_daemons
    say "munged, slurmctld and $nodes slurmd started (port $ctld_port); waiting for idle nodes"
    wait_idle
    say "up: $(sinfo -h -N -o '%N:%t:%G' | sort -u | tr '\n' ' ')"
    echo "source $dir/env.sh"
}

# ---------------------------------------------------------------- down

cancel_jobs() {
    ours "$(cat "$dir/pids/slurmctld.pid" 2>/dev/null)" || return 0
    local jobs
    jobs=$(timeout 10 squeue -h -o %i 2>/dev/null | tr '\n' ' ' || true)
    [ -n "${jobs// /}" ] || return 0
    say "cancelling jobs: $jobs"
    # shellcheck disable=SC2086 # one argument per job id
    timeout 10 scancel $jobs 2>/dev/null || true
    for _ in $(seq 50); do
        [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null || true)" ] && return 0
        sleep 0.2
    done
}

# stop_recorded: TERM every daemon we recorded at once, KILL those alive after 10 s.
stop_recorded() {
    local pidfile pid pids=()
    for pidfile in "$dir"/pids/*.pid; do
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        ours "$pid" && kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
    done
    local left
    for _ in $(seq 100); do
        left=()
        for pid in "${pids[@]}"; do alive "$pid" && left+=("$pid"); done
        [ ${#left[@]} -eq 0 ] && return 0
        sleep 0.1
    done
    say "killing ${left[*]} (alive 10 s after TERM)"
    kill -KILL "${left[@]}" 2>/dev/null || true
}

# kill_leftovers: slurmstepd and tasks our slurmds spawned that outlived them. They carry our
# SLURM_CONF and SLURMD_NODENAME; a user's salloc shell has no SLURMD_NODENAME and is spared.
kill_leftovers() {
    local proc pid environ
    for proc in /proc/[0-9]*; do
        pid=${proc#/proc/}
        [ "$pid" = $$ ] && continue
        environ=$({ tr '\0' '\n' <"$proc/environ"; } 2>/dev/null) || continue
        grep -qxF "SLURM_CONF=$conf" <<<"$environ" || continue
        if [ "$(cat "$proc/comm" 2>/dev/null)" = slurmstepd ] || grep -q '^SLURMD_NODENAME=' <<<"$environ"; then
            kill -KILL "$pid" 2>/dev/null && say "killed leftover $(cat "$proc/comm" 2>/dev/null) $pid"
        fi
    done
    return 0
}

# clean_host: cgroup mode leaves empty slurm_<node> trees; ETC_HOSTS=1 left a line in /etc/hosts.
clean_host() {
    local node cg
    for node in $(node_names); do
        for cg in /sys/fs/cgroup/*/slurm_"$node"; do
            [ -d "$cg" ] && find "$cg" -depth -type d -exec rmdir {} \; 2>/dev/null
        done
    done
    if grep -q "# torcrun-slurm $dir\$" /etc/hosts 2>/dev/null; then
        # rewritten in place, not replaced: /etc/hosts is often a bind mount in containers
        local kept
        kept=$(grep -v "# torcrun-slurm $dir\$" /etc/hosts)
        printf '%s\n' "$kept" >/etc/hosts
    fi
    return 0
}

cluster_down() {
    if [ ! -d "$dir/pids" ]; then
        say "not up ($dir/pids missing)"
        return 0
    fi
    # the node count the cluster was started with, for clean_host
    nodes=$(sed -n 's/^NodeName=n\[1-\([0-9]*\)\].*/\1/p' "$conf" 2>/dev/null || echo "$nodes")
    cancel_jobs
    stop_recorded
    kill_leftovers
    clean_host
    local munge_dir
    munge_dir=$(cat "$dir/munge-dir" 2>/dev/null || true)
    case "$munge_dir" in /tmp/torcrun-slurm-munge.*) rm -rf "$munge_dir" ;; esac
    rm -rf "$dir/pids"
    say "down (logs stay in $dir/log)"
}

# ---------------------------------------------------------------- status

cluster_status() {
    if [ ! -d "$dir/pids" ]; then
        say "not up ($dir/pids missing)"
        return 1
    fi
    local pidfile state=0
    for pidfile in "$dir"/pids/*.pid; do
        if ours "$(cat "$pidfile")"; then
            echo "$(basename "$pidfile" .pid): pid $(cat "$pidfile")"
        else
            echo "$(basename "$pidfile" .pid): not running"
            state=1
        fi
    done
    timeout 10 sinfo -N -o '%N %P %t %c %m %G' || state=1
    [ $state = 0 ] && healthy || { say "not up: see $dir/log"; return 1; }
    echo "source $dir/env.sh"
}

main() {
    phase=${1:-}
    case "$phase" in
        up) cluster_up ;;
        down) cluster_down ;;
        status) cluster_status ;;
        *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
    esac
}

main "$@"
