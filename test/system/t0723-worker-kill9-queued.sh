#!/usr/bin/env bash
# `kill -9` of a worker that holds a job in its claim-ahead queue (claimed, started by the claim
# on the server, not yet spawned here): the job is never stranded. A second worker (another
# output directory, so nothing releases the first one's node early) runs what is ready; the
# queued job and the two killed running ones come back when the server's lease for the first
# worker expires (worker_lease_seconds=12), on a new attempt, and every job ends completed
# exactly once: one completed result each, each name once in the file its command appends to.
#
# Two short jobs first give the worker a measured job time, so its claims ask for one job beyond
# its two CPUs; the next jobs run 2.5 s, so the queued one waits (a queued job waits at most a
# quarter of the lease, 3 s).
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

python3 - "$tmp/jobs.json" "$tmp/ran.txt" <<'PY'
import json, sys
path, ran = sys.argv[1:]
jobs = [{"name": f"quick{i}", "command": f"bash -c 'sleep 0.2; echo quick{i} >> {ran}'"}
        for i in range(2)]
jobs += [{"name": f"slow{i}", "command": f"bash -c 'sleep 2.5; echo slow{i} >> {ran}'"}
         for i in range(6)]
json.dump({"name": "queued", "jobs": jobs}, open(path, "w"))
PY

start_server "$tmp/db" --set worker_lease_seconds=12
submit_spec "$tmp/jobs.json"
"$torcrun" worker "$wf" $(worker_args) --log-level debug --set resources.cpus=2 \
    2>"$tmp/worker.log" &
worker_pid=$!
# queued_waiting: the ids of the jobs the worker's log says were queued and never started
queued_waiting() {
    local id
    for id in $(grep -o 'job [0-9]*: queued for free resources' "$tmp/worker.log" | grep -o '[0-9]*' | sort -un); do
        grep -q "job $id: started" "$tmp/worker.log" || echo "$id"
    done
}
for _ in $(seq 1 100); do
    [ -n "$(queued_waiting)" ] && break
    sleep 0.1
done
[ -n "$(queued_waiting)" ] || fail "no job waited in the queue in 10 s: $(tail -20 "$tmp/worker.log")"
sleep 0.3
kill -9 "$worker_pid"
wait "$worker_pid" 2>/dev/null || true
worker_pid=""
killed_at=$SECONDS
# a job still queued at the kill: the killed worker never started it
queued=$(queued_waiting | head -1)
[ -n "$queued" ] || fail "every queued job had started before the kill: $(tail -20 "$tmp/worker.log")"
status=$("$torcrun" jobs --url "$base" "$wf" --json |
    python3 -c 'import json,sys; print([j["status"] for j in json.load(sys.stdin) if j["id"] == int(sys.argv[1])][0])' "$queued")
[ "$status" = running ] || fail "the queued job $queued is $status on the server, expected running (held by the killed worker)"

"$torcrun" worker "$wf" --url "$base" --output-dir "$tmp/out2" --mode direct --long-poll 1 \
    --poll-interval 0.5 --set limits.idle_timeout_seconds=30 --set resources.cpus=2 \
    2>"$tmp/worker2.log" &
worker_pid=$!
rc=0
timeout 90 tail --pid="$worker_pid" -f /dev/null || rc=$?
wait "$worker_pid" || rc=$?
worker_pid=""
[ "$rc" = 0 ] || fail "second worker exit $rc: $(tail -20 "$tmp/worker2.log")"
took=$((SECONDS - killed_at))

want=$(python3 -c 'print(" ".join(sorted([f"quick{i}=completed" for i in range(2)] + [f"slow{i}=completed" for i in range(6)])))')
[ "$(job_statuses)" = "$want" ] || fail "statuses: $(job_statuses)"
sort "$tmp/ran.txt" | uniq -c | awk '$1 != 1 { bad = 1; print "ran " $1 " times: " $2 } END { exit bad }' ||
    fail "a job ran more than once to its end"
[ "$(sort -u "$tmp/ran.txt" | wc -l)" = 8 ] || fail "not every job ran: $(sort "$tmp/ran.txt" | tr '\n' ' ')"
attempt=$(curl -fsS "$base/jobs/$queued" | python3 -c 'import json,sys; print(json.load(sys.stdin)["attempt_id"])')
[ "$attempt" = 2 ] || fail "the queued job $queued is on attempt $attempt, expected 2 (back after the lease)"
grep -q "^info lease: jobs of lost workers moved ready=" "$server_log" ||
    fail "no lease expiry moved the killed worker's jobs: $(tail -5 "$server_log")"
curl -fsS "$base/results?workflow_id=$wf&all_runs=true&limit=1000" | python3 -c '
import collections, json, sys
done = collections.Counter(r["job_id"] for r in json.load(sys.stdin)["items"] if r["status"] == "completed")
if sorted(done.values()) != [1] * 8:
    sys.exit(f"completed results per job: {dict(done)}")
' || fail "results"
echo "ok: job $queued was queued at the kill; all 8 completed once, $took s after it"
