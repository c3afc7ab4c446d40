#!/usr/bin/env bash
# `torcrun slurm-script` on the real binary: the script it writes (absolute paths, the lead from
# the worker configuration, valid bash, the server of --url or else TORC_API_URL), both launch
# shapes, stdout output, option errors (exit
# 2, the option named and its value quoted), and --submit reporting sbatch's own error text when
# sbatch cannot reach a cluster (exit 1).
set -euo pipefail
torcrun=$(readlink -f "$1")
fail() { echo "FAIL: $*" >&2; exit 1; }
has_line() { grep -qxF -- "$2" "$1" || fail "$1 lacks the line '$2'"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
exe=$torcrun

printf '{"termination": {"grace_seconds": 10.5, "drain_buffer_seconds": 20}}\n' >worker.json
path=$("$torcrun" slurm-script 12 --time 2:00:00 --nodes 2 --gpus-per-node 4 --account proj \
    --config worker.json --url http://head:8080/torc-service/v1 --output-dir out)
[ "$path" = "$work/out/torcrun_wf12.sh" ] || fail "printed path: $path"
[ -x "$path" ] || fail "the script is not executable"
bash -n "$path" || fail "the script is not valid bash"
has_line "$path" "#SBATCH --signal=B:USR1@31"
has_line "$path" "#SBATCH --output=$work/out/slurm_output_wf12_sl%j.o"
has_line "$path" "#SBATCH --gpus-per-node=4"
has_line "$path" "exec $exe worker 12 --mode slurm --config $work/worker.json --url http://head:8080/torc-service/v1 --output-dir $work/out"

path=$("$torcrun" slurm-script 12 --time 60 --per-node-workers --torcrun /opt/t/torcrun \
    --script s/per-node.sh --exclusive)
[ "$path" = "s/per-node.sh" ] || fail "printed path: $path"
bash -n "$path" || fail "the per-node script is not valid bash"
has_line "$path" "srun --ntasks-per-node=1 --overlap --mpi=none --kill-on-bad-exit=0 --wait=0 \\"
has_line "$path" "    /opt/t/torcrun worker 12 --mode direct --output-dir $work/torc_output &"
has_line "$path" "mkdir -p $work/torc_output/workers"
has_line "$path" "pids=$work/torc_output/workers/sl\$SLURM_JOB_ID"
has_line "$path" "    bash -c 'echo \$\$ >\"\$0.\$SLURMD_NODENAME.pid\"; exec \"\$@\"' \"\$pids\" \\"
has_line "$path" "        bash -c 'kill -USR1 \"\$(cat \"\$0.\$SLURMD_NODENAME.pid\")\"' \"\$pids\""
has_line "$path" "trap signal_workers USR1"
has_line "$path" "#SBATCH --exclusive"

# TORC_API_URL names the server when --url does not, and --url wins over it.
TORC_API_URL=http://env:9/torc-service/v1 "$torcrun" slurm-script 12 --time 60 --script - \
    --torcrun /t | grep -qx 'exec /t worker 12 --mode slurm --url http://env:9/torc-service/v1 --output-dir '"$work"'/torc_output' \
    || fail "TORC_API_URL is not the script's --url"
TORC_API_URL=http://env:9/torc-service/v1 "$torcrun" slurm-script 12 --time 60 --script - \
    --torcrun /t --url http://flag:9/torc-service/v1 | grep -q -- '--url http://flag:9/torc-service/v1 ' \
    || fail "--url does not win over TORC_API_URL"

"$torcrun" slurm-script 12 --time 60 --script - | grep -qx '#SBATCH --job-name=torcrun_wf12' \
    || fail "--script - does not print the script"

expect_error() {  # expect_error STATUS MESSAGE ARGS...
    local want_status=$1 want=$2 status=0
    shift 2
    err=$("$torcrun" slurm-script "$@" 2>&1 >/dev/null) || status=$?
    [ "$status" = "$want_status" ] || fail "$*: exit $status, expected $want_status ($err)"
    [ "$err" = "torcrun slurm-script: $want" ] || fail "$*: said '$err', expected '$want'"
}
expect_error 2 '--nodes: "0" must be at least 1' 12 --time 60 --nodes 0
expect_error 2 '--time: is required' 12
expect_error 2 '--exclusive: cannot be combined with --cpus-per-task: "4"' \
    12 --time 60 --exclusive --cpus-per-task 4
expect_error 2 '--torcrun: "torcrun" is not an absolute path' 12 --time 60 --torcrun torcrun
expect_error 2 '--time: "1" (60 s) leaves no time before the USR1 warning, which comes 90 s before the end (--signal-lead)' \
    12 --time 1
expect_error 2 'workflow: "x" is not a workflow id' x --time 60
expect_error 2 '--submit: needs a script file, not --script -' 12 --time 60 --script - --submit

# An empty slurm.conf: sbatch fails at once (a missing one makes it retry for 60 s).
: >"$work/empty.conf"
status=0
err=$(SLURM_CONF=$work/empty.conf "$torcrun" slurm-script 12 --time 60 --submit 2>&1) || status=$?
[ "$status" = 1 ] || fail "--submit without a cluster: exit $status ($err)"
grep -qF "torcrun slurm-script: sbatch $work/torc_output/torcrun_wf12.sh: exited with 1: sbatch: " \
    <<<"$err" || fail "--submit without a cluster said: $err"
grep -qF "ClusterName needs to be specified" <<<"$err" || fail "sbatch's reason is missing: $err"
echo "ok"
