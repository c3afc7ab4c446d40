#!/usr/bin/env bash
# Completions and claims in one exchange (complete_and_claim_jobs) through a faulty network: the
# fault proxy (test/support/fault_proxy.py) between a real worker and a real server drops the
# replies of the first 8 exchanges after the server committed them and of 5 % of all requests,
# resets 1 % of the connections before the request arrives, and sends 10 % of the exchanges to
# the server twice (a retry whose first answer was lost on the way: the worker gets the second
# answer). The workflow: 300 independent jobs and a chain of 20 (each link released by the
# completion that goes with the claim that takes it). Every job appends its name to one file.
# Afterwards every job is completed on the server with one completed result, each name is in the
# file exactly once, no job was fenced off, and the worker's claims and completions went as
# exchanges: a lost exchange is sent again under the same key (the completions answered as
# repeats, the claim with the first answer's jobs), so nothing is lost, run twice or stranded.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

start_server "$tmp/db"
python3 - "$tmp/jobs.json" "$tmp/ran.txt" <<'PY'
import json, sys
path, ran = sys.argv[1:]
jobs = [{"name": f"j{i:04d}", "command": f"echo j{i:04d} >> {ran}"} for i in range(300)]
for i in range(20):
    job = {"name": f"c{i:02d}", "command": f"echo c{i:02d} >> {ran}"}
    if i:
        job["depends_on"] = [f"c{i - 1:02d}"]
    jobs.append(job)
json.dump({"name": "exchange-faults", "jobs": jobs}, open(path, "w"))
PY
submit_spec "$tmp/jobs.json"

start_fault_proxy --drop 0.05 --reset 0.01 --seed "${TORCRUN_FAULT_SEED:-11}" \
    --drop-match complete_and_claim_jobs --drop-count 8 \
    --twice 0.1 --twice-match complete_and_claim_jobs

start=$SECONDS
rc=0
timeout 300 "$torcrun" worker "$wf" --url "http://127.0.0.1:$proxy_port/torc-service/v1" \
    --output-dir "$tmp/out" --mode direct --long-poll 1 --poll-interval 0.5 \
    --set limits.idle_timeout_seconds=20 --set resources.cpus=4 \
    --set poll.min_interval_seconds=0.05 2>"$tmp/worker.log" || rc=$?
took=$((SECONDS - start))
stop_fault_proxy
[ "$rc" = 0 ] || fail "worker exit $rc: $(tail -20 "$tmp/worker.log")"

exchanges_dropped=$(grep -c '^dropped the reply.*complete_and_claim_jobs' "$tmp/proxy.log" || true)
twice=$(grep -c '^sent twice.*complete_and_claim_jobs' "$tmp/proxy.log" || true)
[ "$exchanges_dropped" -ge 8 ] || fail "only $exchanges_dropped exchange replies dropped: $(tail -3 "$tmp/proxy.log")"
[ "$twice" -ge 1 ] || fail "no exchange reached the server twice: $(tail -3 "$tmp/proxy.log")"

left=$(job_statuses | tr ' ' '\n' | grep -v '=completed$' || true)
[ -z "$left" ] || fail "not completed: $(echo "$left" | head -20)"
ran=$(python3 - "$tmp/ran.txt" <<'PY'
import collections, sys
names = collections.Counter(open(sys.argv[1]).read().split())
want = {f"j{i:04d}" for i in range(300)} | {f"c{i:02d}" for i in range(20)}
twice = sorted(k for k, v in names.items() if v > 1)
missing = sorted(want - set(names))
print(f"{sum(names.values())} runs of {len(names)} jobs; twice: {twice[:10]}; never: {missing[:10]}")
PY
)
[ "$ran" = "320 runs of 320 jobs; twice: []; never: []" ] || fail "executions: $ran"
# the chain ran in order
[ "$(grep '^c' "$tmp/ran.txt" | tr '\n' ' ')" = "$(printf 'c%02d ' $(seq 0 19))" ] ||
    fail "the chain ran out of order: $(grep '^c' "$tmp/ran.txt" | tr '\n' ' ')"
curl -fsS "$base/results?workflow_id=$wf&all_runs=true&limit=10000" | python3 -c '
import collections, json, sys
done = collections.Counter(r["job_id"] for r in json.load(sys.stdin)["items"] if r["status"] == "completed")
if len(done) != 320 or set(done.values()) != {1}:
    sys.exit(f"completed results: {len(done)} jobs, counts {sorted(set(done.values()))}")
' || fail "results"
grep -q 'not this worker' "$tmp/worker.log" && fail "a job was fenced off: $(grep 'not this worker' "$tmp/worker.log" | head -3)"
sent=$(grep -c 'complete_and_claim_jobs' "$tmp/proxy.log" || true)
stop_server
echo "ok (320 jobs in ${took} s, each run once; $exchanges_dropped exchange replies dropped, $twice exchanges sent twice)"
