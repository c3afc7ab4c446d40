#!/usr/bin/env bash
# SIGTERM to a worker with running jobs: it stops claiming, terminates the jobs (SIGTERM, the
# grace, then SIGKILL for one that ignores SIGTERM), reports each as `terminated` with its
# return code, and exits 0 within grace + 5 s; nothing of the jobs is left running.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

start_server "$tmp/db"
nap=299.$RANDOM  # a duration no other process on this machine sleeps
cat >"$tmp/long.json" <<SPEC
{"name": "long", "jobs": [
  {"name": "polite", "command": "exec sleep $nap"},
  {"name": "stubborn", "command": "trap '' TERM; sleep $nap & wait; sleep $nap"}
]}
SPEC
submit_spec "$tmp/long.json"

"$torcrun" worker "$wf" $(worker_args) --grace 2 --set resources.cpus=4 2>"$tmp/worker.log" &
worker_pid=$!
for _ in $(seq 1 200); do
    [ "$(job_statuses)" = "polite=running stubborn=running" ] && break
    sleep 0.05
done
[ "$(job_statuses)" = "polite=running stubborn=running" ] || fail "not running: $(job_statuses) $(cat "$tmp/worker.log")"
sleep 0.3  # let the stubborn job install its trap
start=$SECONDS
kill -TERM "$worker_pid"
rc=0
wait "$worker_pid" || rc=$?
worker_pid=""
elapsed=$((SECONDS - start))
[ "$rc" = 0 ] || fail "worker exit $rc: $(cat "$tmp/worker.log")"
[ "$elapsed" -le 7 ] || fail "worker took $elapsed s to stop"
[ "$(job_statuses)" = "polite=terminated stubborn=terminated" ] || fail "statuses: $(job_statuses)"
rcs=$("$torcrun" jobs --url "$base" "$wf" --json |
    python3 -c 'import json,sys; print(" ".join(sorted(j["name"] + "=" + str(j["return_code"]) for j in json.load(sys.stdin))))')
[ "$rcs" = "polite=143 stubborn=137" ] || fail "return codes: $rcs"
if pgrep -f "sleep $nap" >/dev/null; then fail "job processes left: $(pgrep -af "sleep $nap")"; fi
stop_server
echo ok
