#!/usr/bin/env bash
# Jobs that can never fit. `torcrun run` on 2 CPUs and 4g (`--set`): the small job completes, the
# job needing 100000 CPUs and the one needing 5000g are named with what they need and what the
# machine has, and the run exits 1 within seconds instead of waiting. Then `torcrun worker`
# against `torcrun server`, 1 CPU: a job needing 4 CPUs is named at error level and the worker
# exits 3 when it would stop for idleness (another worker's jobs could still release dependents
# that fit), not with the idle exit 0.
set -euo pipefail
torcrun=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

cat >"$tmp/spec.json" <<'SPEC'
{"name": "never-fits",
 "resource_requirements": [
   {"name": "small", "num_cpus": 1, "memory": "10m"},
   {"name": "wide", "num_cpus": 100000, "memory": "10m"},
   {"name": "fat", "num_cpus": 1, "memory": "5000g"}],
 "jobs": [
   {"name": "small", "command": "echo small-out", "resource_requirements": "small"},
   {"name": "wide", "command": "echo never", "resource_requirements": "wide"},
   {"name": "fat", "command": "echo never", "resource_requirements": "fat"}]}
SPEC

# With the default long poll (30 s): the run ends within seconds of the small job, not after a
# parked claim (it took 60 s before the worker read what is ready before parking).
rc=0
start=$SECONDS
timeout 60 "$torcrun" run "$tmp/spec.json" --output-dir "$tmp/run" --progress-interval 0.5 \
    --set resources.cpus=2 --set resources.memory=4g \
    >"$tmp/run.out" 2>"$tmp/run.err" || rc=$?
took=$((SECONDS - start))
[ "$rc" = 1 ] || fail "run: exit $rc, expected 1: $(cat "$tmp/run.out" "$tmp/run.err")"
[ "$took" -le $((15 * ${TORCRUN_TEST_TIME_FACTOR:-1})) ] ||
    fail "run: the never-fitting jobs were named after $took s"
grep -q 'small-out' "$tmp"/run/job_stdio/*_a1.o || fail "the small job did not run"
python3 - "$tmp/run/torcrun.db" <<'PY' || fail "statuses in the database"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = dict(db.execute("SELECT name, status FROM job"))
assert rows.get("small") == 5, rows  # completed (Torc status codes: 2 ready, 5 completed)
assert rows.get("wide") == 2 and rows.get("fat") == 2, rows  # still ready
PY
grep -qF 'torcrun run: can never run: job 2 "wide" needs 100000 CPUs; this allocation has 2 CPUs per node' "$tmp/run.err" ||
    fail "no line for wide: $(cat "$tmp/run.err")"
grep -qF 'torcrun run: can never run: job 3 "fat" needs 5000g of memory; this allocation has 4.0 GiB of memory per node' "$tmp/run.err" ||
    fail "no line for fat: $(cat "$tmp/run.err")"
grep -qF 'torcrun run: stopped: the jobs above can never run on this machine' "$tmp/run.err" ||
    fail "no closing line: $(cat "$tmp/run.err")"


# --- the worker on its own: exit 3 and the error lines -----------------------------------------
start_server "$tmp/db"
cat >"$tmp/wide.json" <<'SPEC'
{"name": "wide",
 "resource_requirements": [{"name": "four", "num_cpus": 4, "memory": "1m"}],
 "jobs": [{"name": "ok", "command": "echo ok"},
          {"name": "wide", "command": "echo never", "resource_requirements": "four"}]}
SPEC
submit_spec "$tmp/wide.json"
rc=0
start=$(date +%s)
timeout 60 "$torcrun" worker "$wf" $(worker_args) --set resources.cpus=1 \
    --set limits.idle_timeout_seconds=3 2>"$tmp/worker.log" || rc=$?
[ "$rc" = 3 ] || fail "worker exit $rc, expected 3: $(cat "$tmp/worker.log")"
[ $(( $(date +%s) - start )) -lt 20 ] || fail "the worker took more than its idle timeout"
! grep -q 'idle for' "$tmp/worker.log" || fail "the worker stopped as idle: $(cat "$tmp/worker.log")"
[ "$(job_statuses)" = "ok=completed wide=ready" ] || fail "statuses: $(job_statuses)"
grep -qF 'err worker: 1 ready job can never run in this allocation; stopping' "$tmp/worker.log" ||
    fail "no summary line: $(cat "$tmp/worker.log")"
grep -qE '^err worker: never fits: job [0-9]+ "wide" needs 4 CPUs; this allocation has 1 CPU per node$' "$tmp/worker.log" ||
    fail "no never-fit line: $(cat "$tmp/worker.log")"
grep -qE '^info worker: stopped exit_code=3 cpu_user_seconds=[0-9.]+ cpu_system_seconds=[0-9.]+$' "$tmp/worker.log" || fail "no stop line: $(cat "$tmp/worker.log")"
stop_server
echo ok
