#!/usr/bin/env bash
# SIGTERM to a worker running 50 jobs (resources.cpus=64, so all 50 fit): 20 exec a sleep
# (SIGTERM ends them: 143), 15 fork two grandchildren and wait (the group signal ends all of
# them: 143), 15 ignore SIGTERM and fork grandchildren that inherit the ignored signal (only the
# SIGKILL after the grace ends them: 137). With a grace of 3 s the worker exits 0 within
# 3 + 5 s, every job is `terminated` on the server with its return code, and no process of any
# job is left: none with the job's sleep duration on its command line, none with the marker
# variable (set in the worker's environment, inherited by every job process) in /proc/PID/environ.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

marker=t0703-$$-$RANDOM
nap=298.$RANDOM  # a duration no other process on this machine sleeps

start_server "$tmp/db"
python3 - "$tmp/many.json" "$nap" <<'PY'
import json, sys
path, nap = sys.argv[1], sys.argv[2]
kinds = ([("polite", f"exec sleep {nap}")] * 20 +
         [("forks", f"sleep {nap} & sleep {nap} & wait")] * 15 +
         [("stubborn", f"trap '' TERM; sleep {nap} & sleep {nap} & wait; sleep {nap}")] * 15)
jobs = [{"name": f"{kind}{i:02d}", "command": command} for i, (kind, command) in enumerate(kinds)]
json.dump({"name": "many", "jobs": jobs}, open(path, "w"))
PY
submit_spec "$tmp/many.json"

TORCRUN_TEST_MARKER=$marker "$torcrun" worker "$wf" $(worker_args) --grace 3 \
    --set resources.cpus=64 2>"$tmp/worker.log" &
worker_pid=$!
wait_running 50 30
# Every stubborn job has installed its trap once its two sleeps are up: 20 + 15 x 2 + 15 x 2.
for _ in $(seq 1 100); do
    [ "$(pgrep -fc "^sleep $nap\$")" = 80 ] && break
    sleep 0.1
done
[ "$(pgrep -fc "^sleep $nap\$")" = 80 ] || fail "sleeps up: $(pgrep -fc "^sleep $nap\$"), expected 80"

# The detector sees them all: 20 sleeps, 30 bash with 60 sleeps under them.
seen=$(job_processes | wc -l)
[ "$seen" = 110 ] || fail "job processes seen before SIGTERM: $seen, expected 110: $(job_processes)"

start=$(date +%s.%N)
kill -TERM "$worker_pid"
rc=0
wait "$worker_pid" || rc=$?
worker_pid=""
elapsed=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$start" "$(date +%s.%N)")
[ "$rc" = 0 ] || fail "worker exit $rc: $(tail -20 "$tmp/worker.log")"
python3 -c "import sys; sys.exit(float(sys.argv[1]) > 8)" "$elapsed" ||
    fail "the worker took $elapsed s to stop (grace 3 s + 5 s)"

outcome=$("$torcrun" jobs --url "$base" "$wf" --json | python3 -c '
import collections, json, sys
got = collections.Counter((j["name"].rstrip("0123456789"), j["status"], j["return_code"])
                          for j in json.load(sys.stdin))
print(" ".join(f"{k[0]}:{k[1]}:{k[2]}={n}" for k, n in sorted(got.items())))')
[ "$outcome" = "forks:terminated:143=15 polite:terminated:143=20 stubborn:terminated:137=15" ] ||
    fail "statuses and return codes: $outcome"
left=$(job_processes)
[ -z "$left" ] || fail "job processes left: $left"
stop_server
echo "ok (stopped in $elapsed s)"
