#!/usr/bin/env bash
# A Torc user's setup: Prism's validating proxy (`prism proxy --errors`) over one of Torc's
# contract documents in front of `torcrun server`, and `torcrun submit` and `torcrun worker` with
# their default settings, pointed at the proxy. For each document (v0.10's and 0.23's):
# - the workflow runs to its end, under one compute node;
# - Prism finds no violation: no request it refused, no response that breaks the document;
# - the only requests outside the document are the first use of an extension endpoint the
#   document lacks (submit's reserve_job_ids, which starts streamed creation; the worker's
#   heartbeat; batch_complete_jobs under v0.10; complete_and_claim_jobs where a completion meets
#   a claim), answered 404 by Prism, once each: submit then sends Torc's batches, and the worker
#   turns that extension off for the session (before, each 404 of the heartbeat registered a
#   fresh compute node: 10,000 of them in two minutes);
# - a bounded number of requests.
set -euo pipefail
torcrun=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
source "$(dirname "$0")/prism_lib.sh"
trap 'stop_prism; worker_test_cleanup' EXIT
find_prism

cat >"$tmp/diamond.json" <<'SPEC'
{"name": "prism-default", "jobs": [
  {"name": "pre", "command": "echo pre"},
  {"name": "w1", "command": "echo w1", "depends_on": ["pre"]},
  {"name": "w2", "command": "echo w2", "depends_on": ["pre"]},
  {"name": "post", "command": "echo post", "depends_on": ["w1", "w2"]}
]}
SPEC

for doc in torc-openapi-v0.10.0-prism.yaml torc-openapi-v0.23.0-prism.yaml; do
    contract=$root/test/data/$doc
    start_server "$tmp/db.$doc"
    server=$base
    start_prism "$contract" "$server"
    prism_url=$base
    wf=$("$torcrun" submit --url "$prism_url" "$tmp/diamond.json" 2>"$tmp/submit.err") ||
        fail "$doc: submit through Prism: $(cat "$tmp/submit.err") $(grep -i 'error\|violation' "$tmp/prism.log" | head)"
    rc=0
    timeout 120 "$torcrun" worker "$wf" --url "$prism_url" --output-dir "$tmp/out.$doc" \
        2>"$tmp/worker.$doc.log" || rc=$?
    [ "$rc" = 0 ] || fail "$doc: worker exit $rc: $(tail -20 "$tmp/worker.$doc.log")"
    base=$server
    [ "$(job_statuses)" = "post=completed pre=completed w1=completed w2=completed" ] ||
        fail "$doc: statuses: $(job_statuses)"
    expect GET "/compute_nodes?workflow_id=$wf" "" 200
    [ "$(field "$body" 'len(d["items"])')" = 1 ] || fail "$doc: compute nodes: $body"
    stop_prism
    mv "$tmp/prism.log" "$tmp/prism.$doc.log"
    python3 - "$tmp/prism.$doc.log" "$doc" <<'PY' || fail "$doc: Prism's log (above)"
import re, sys
log, doc = sys.argv[1], sys.argv[2]
requests, outside, bad = 0, {}, []
request = None
for line in open(log):
    if m := re.search(r"\[HTTP SERVER\] (\w+ \S+) .*Request received", line):
        request = m.group(1)
        requests += 1
    if "NO_PATH_MATCHED_ERROR" in line:
        route = re.sub(r"/\d+", "/{id}", request or "?")
        outside[route] = outside.get(route, 0) + 1
    elif re.search(r"[Vv]iolation|did not pass|terminated with error", line):
        bad.append(f"{request}: {line.strip()}")
# complete_and_claim_jobs: in no Torc document; the worker tries it once, where a completion
# meets a claim, then sends them apart
allowed = {"post /compute_nodes/{id}/heartbeat",
           "post /workflows/{id}/complete_and_claim_jobs/{id}",
           "post /workflows/{id}/reserve_job_ids"}
if "v0.10" in doc:
    allowed.add("post /workflows/{id}/batch_complete_jobs")
for route, n in outside.items():
    if route not in allowed or n > 1:
        bad.append(f"{n} requests outside the document: {route}")
if requests > 80:
    bad.append(f"{requests} requests")
print(f"{doc}: {requests} requests, outside the document: {outside or 'none'}")
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
    grep -q "reserve_job_ids (4 jobs) answered 404: the jobs go batch after batch" "$tmp/submit.err" ||
        fail "$doc: submit did not say it sent Torc's batches: $(cat "$tmp/submit.err")"
    grep -q "worker: the server has no heartbeat endpoint" "$tmp/worker.$doc.log" ||
        fail "$doc: no warning on the heartbeat: $(grep -i heartbeat "$tmp/worker.$doc.log")"
    stop_server
done
echo ok
