#!/usr/bin/env bash
# A job whose process cannot start for a reason of its own (here: its environment's PATH holds no
# bash) fails its attempt with return code 126 and a log line naming the cause, so its failure
# rule retries it up to max_retries and the run ends; before, it was handed back and claimed
# again by the same worker without end. The other job runs as usual.
# A job that cannot start for the worker's own trouble (its stdout file cannot be made: a
# directory is in its place in the worker's output directory) is not failed: it goes back to ready, the
# worker claims nothing more and exits 5 naming the path, and a worker with another output
# directory runs it.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

start_server "$tmp/db"
cat >"$tmp/spawn.json" <<SPEC
{"name": "spawn-failure",
 "failure_handlers": [{"name": "again", "rules": [{"exit_codes": [126], "max_retries": 2}]}],
 "jobs": [{"name": "good", "command": "echo fine"},
          {"name": "broken", "failure_handler": "again", "command": "echo never",
           "env": {"PATH": "$tmp/nothing-here"}}]}
SPEC
submit_spec "$tmp/spawn.json"
broken=$(job_id broken)

rc=0
start=$SECONDS
timeout 60 "$torcrun" worker "$wf" $(worker_args) 2>"$tmp/worker.log" || rc=$?
[ "$rc" != 124 ] || fail "the worker did not end in 60 s: $(grep -c 'broken\|j'"$broken" "$tmp/worker.log") lines on the job"
[ "$rc" = 0 ] || fail "worker exit $rc: $(cat "$tmp/worker.log")"
(( SECONDS - start < 30 )) || fail "the worker took $((SECONDS - start)) s"
[ "$(job_statuses)" = "broken=failed good=completed" ] ||
    fail "statuses: $(job_statuses): $(cat "$tmp/worker.log")"

# Two attempts, as max_retries says, each failed with 126 and kept on the server.
expect GET "/results?workflow_id=$wf&all_runs=true" "" 200
[ "$(field "$body" 'sorted((r["attempt_id"], r["return_code"], r["status"]) for r in d["items"] if r["job_id"] == '"$broken"')')" = \
    '[[1, 126, "failed"], [2, 126, "failed"]]' ] || fail "results on the server: $body" "$(cat "$tmp/worker.log")"
# The log names the cause, once per attempt; nothing was handed back.
n=$(grep -c "job $broken: failed rc=126 (its process could not start: spawn: \"bash\" was not found in PATH \"$tmp/nothing-here\")" "$tmp/worker.log" || true)
[ "$n" = 2 ] || fail "expected 2 lines naming the cause, got $n: $(cat "$tmp/worker.log")"
! grep -q "handed back" "$tmp/worker.log" || fail "a job was handed back: $(cat "$tmp/worker.log")"
grep -qx fine "$(attempt_dir good 1)/stdout" || fail "good's stdout"

# The worker's own trouble: a directory where the attempt's stdout file goes.
cat >"$tmp/blocked.json" <<'SPEC'
{"name": "blocked", "jobs": [{"name": "blocked", "command": "echo ran"}]}
SPEC
submit_spec "$tmp/blocked.json"
blocked=$(job_id blocked)
mkdir -p "$tmp/out/job_stdio/job_wf${wf}_j${blocked}_r0_a1.o"  # no stdout file can go there
rc=0
timeout 60 "$torcrun" worker "$wf" $(worker_args) 2>"$tmp/blocked.log" || rc=$?
[ "$rc" = 5 ] || fail "worker with a blocked stdout file: exit $rc: $(cat "$tmp/blocked.log")"
grep -q "worker: stops claiming: it cannot start jobs (spawn: stdout \"$tmp/out/job_stdio/job_wf${wf}_j${blocked}_r0_a1.o\": Is a directory)" "$tmp/blocked.log" ||
    fail "no line naming the path: $(cat "$tmp/blocked.log")"
[ "$(job_statuses)" = "blocked=ready" ] || fail "after the worker's own failure: $(job_statuses)"
rc=0
timeout 60 "$torcrun" worker "$wf" --url "$base" --output-dir "$tmp/elsewhere" --mode direct \
    --long-poll 1 --poll-interval 0.5 --set limits.idle_timeout_seconds=20 \
    2>"$tmp/elsewhere.log" || rc=$?
[ "$rc" = 0 ] || fail "worker elsewhere: exit $rc: $(cat "$tmp/elsewhere.log")"
[ "$(job_statuses)" = "blocked=completed" ] || fail "after a healthy worker: $(job_statuses)"
stop_server
echo ok
