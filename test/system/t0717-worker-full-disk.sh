#!/usr/bin/env bash
# No black-hole worker. A worker whose output directory is on a full disk (a 4 MiB tmpfs, filled)
# cannot make its jobs' attempt files: it hands each job it could not start back, claims nothing
# more, says why (the path and the error) and exits 5 - no job counts as failed for the worker's
# own disk, and a second worker with a healthy directory then runs all 16. A job whose own command
# writes to the full disk and exits 1 stays the job's failure. Mounting needs root (CI is root).
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
full=$tmp/full
cleanup() {
    mountpoint -q "$full" && umount "$full"
    worker_test_cleanup
}
trap cleanup EXIT

mkdir -p "$full"
mount -t tmpfs -o size=4m tmpfs "$full" ||
    fail "cannot mount a tmpfs at $full (this test needs root)"
mkdir -p "$full/out"
dd if=/dev/zero of="$full/filler" bs=64k 2>/dev/null || true  # until the disk is full
[ "$(df --output=avail -k "$full" | tail -1 | tr -d ' ')" -le 64 ] || fail "the tmpfs is not full"

start_server "$tmp/db"
python3 -c '
import json
print(json.dumps({"name": "full-disk", "jobs": [
    {"name": "j%02d" % i, "command": "echo %d" % i} for i in range(16)]}))' >"$tmp/spec.json"
submit_spec "$tmp/spec.json"

rc=0
timeout 60 "$torcrun" worker "$wf" --url "$base" --output-dir "$full/out" --mode direct \
    --set resources.cpus=4 2>"$tmp/full.log" || rc=$?
[ "$rc" = 5 ] || fail "worker on a full disk: exit $rc, expected 5: $(tail -30 "$tmp/full.log")"
grep -q "worker: stops claiming: it cannot start jobs (spawn: .*$full/out.*No space left on device)" \
    "$tmp/full.log" || fail "no line naming the path and the error: $(grep -i 'error\|spawn' "$tmp/full.log" | head)"
statuses=$(job_statuses)
[[ $statuses != *failed* ]] || fail "jobs failed for the worker's full disk: $statuses"
returned=$(grep -c 'handed back: this worker cannot start jobs' "$tmp/full.log" || true)
[ "$returned" -ge 1 ] || fail "no job handed back: $(tail -20 "$tmp/full.log")"
echo "worker on a full disk: exit 5, $returned jobs handed back, none failed"

rc=0
timeout 60 "$torcrun" worker "$wf" $(worker_args) --set resources.cpus=4 \
    --set limits.idle_timeout_seconds=3 2>"$tmp/good.log" || rc=$?
[ "$rc" = 0 ] || fail "second worker: exit $rc: $(tail -20 "$tmp/good.log")"
[ "$(job_statuses | tr ' ' '\n' | grep -c '=completed$')" = 16 ] ||
    fail "after the healthy worker: $(job_statuses)"

# The job's own full disk: its command fails, the job fails, the worker goes on (exit 0).
cat >"$tmp/own.json" <<SPEC
{"name": "own", "jobs": [{"name": "writer", "command": "head -c 1048576 /dev/zero >$full/more"},
                          {"name": "other", "command": "echo other"}]}
SPEC
submit_spec "$tmp/own.json"
rc=0
timeout 60 "$torcrun" worker "$wf" $(worker_args) --set limits.idle_timeout_seconds=3 \
    2>"$tmp/own.log" || rc=$?
[ "$rc" = 0 ] || fail "worker with a job writing to a full disk: exit $rc: $(tail -20 "$tmp/own.log")"
[ "$(job_statuses)" = "other=completed writer=failed" ] || fail "own failure: $(job_statuses)"
echo "ok"
