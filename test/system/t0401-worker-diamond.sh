#!/usr/bin/env bash
# `torcrun worker` runs a diamond workflow to the end against a real `torcrun server`: every job
# completed, each attempt has its stdout, stderr (job_stdio/) and its command, environment and
# result in the worker's record (job_records/) and no directory of its own, the worker's first lines
# state the allocation, the mode and the pool, exit 0.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

start_server "$tmp/db"
cat >"$tmp/diamond.json" <<'SPEC'
{"name": "diamond", "jobs": [
  {"name": "pre", "command": "echo pre-out"},
  {"name": "w1", "command": "echo w1-out", "depends_on": ["pre"]},
  {"name": "w2", "command": "echo w2-out; echo w2-err >&2", "depends_on": ["pre"]},
  {"name": "post", "command": "echo post-out", "depends_on": ["w1", "w2"]}
]}
SPEC
submit_spec "$tmp/diamond.json"

rc=0
timeout 60 "$torcrun" worker "$wf" $(worker_args) 2>"$tmp/worker.log" || rc=$?
[ "$rc" = 0 ] || fail "worker exit $rc: $(cat "$tmp/worker.log")"
[ "$(job_statuses)" = "post=completed pre=completed w1=completed w2=completed" ] ||
    fail "statuses: $(job_statuses)"

for job in pre w1 w2 post; do
    dir=$(attempt_dir "$job" 1)
    for f in stdout command.txt environment.txt result.json; do
        [ -f "$dir/$f" ] || fail "$job: no $f in $dir: $(ls "$dir")"
    done
    grep -qx "$job-out" "$dir/stdout" || fail "$job stdout: $(cat "$dir/stdout")"
    [ "$(field "$(cat "$dir/result.json")" '[d["status"], d["return_code"], d["attempt_id"]]')" = \
        '["completed", 0, 1]' ] || fail "$job result.json: $(cat "$dir/result.json")"
done
grep -qx "w2-err" "$(attempt_dir w2 1)/stderr" || fail "w2 stderr"
# Every job completed: two stdio files each, their other facts in the worker's record, and no
# attempt directory.
[ ! -e "$tmp/out/jobs" ] || fail "attempt directories for completed jobs: $(find "$tmp/out/jobs")"
[ "$(ls "$tmp/out/job_stdio" | wc -l)" = 8 ] || fail "stdio files: $(ls "$tmp/out/job_stdio")"
[ "$(ls "$tmp/out/job_records" | wc -l)" = 1 ] || fail "records: $(ls "$tmp/out/job_records")"

head -1 "$tmp/worker.log" | grep -q '^info worker: allocation slurm_job=none scope=machine nodes=1$' ||
    fail "first line: $(head -3 "$tmp/worker.log")"
grep -q '^info worker: mode mode=direct ' "$tmp/worker.log" || fail "no mode line: $(cat "$tmp/worker.log")"
grep -q '^info worker: pool node=' "$tmp/worker.log" || fail "no pool line: $(cat "$tmp/worker.log")"
grep -qE '^info worker: stopped exit_code=0 cpu_user_seconds=[0-9.]+ cpu_system_seconds=[0-9.]+$' "$tmp/worker.log" || fail "no stop line: $(cat "$tmp/worker.log")"
stop_server
echo ok
