#!/usr/bin/env bash
# The worker against Torc v0.10's contract (test/data/torc-openapi-v0.10.0-prism.yaml) with
# server.use_extensions=false, since the contract does not describe torcrun's extensions:
# 1. Prism's mock (static examples): the worker registers, reads the workflow, claims, and exits
#    0; Prism finds no request of the worker's invalid. One exception, checked narrowly: the mock
#    answers GET /compute_nodes/{id} with the example `scheduler: 4`, itself a violation of the
#    contract (Prism logs it for the response), and the deactivating PUT puts that model back
#    as Torc's runner does, so that property alone may fail there.
# 2. Prism's validating proxy (`prism proxy --errors`) in front of `torcrun server`: a diamond
#    workflow runs to the end; Prism logs no violation, request or response.
# Prism comes from build/prism (scripts/test.sh installs it; TORCRUN_PRISM names another); a
# missing Prism or Node fails this test, it never skips.
set -euo pipefail
torcrun=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
contract=$root/test/data/torc-openapi-v0.10.0-prism.yaml
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
source "$(dirname "$0")/prism_lib.sh"
trap 'stop_prism; kill_servers; rm -rf "$tmp"' EXIT
find_prism

contract_worker() {  # contract_worker URL WORKFLOW LOG: the worker, plain Torc calls only
    timeout 60 "$torcrun" worker "$2" --url "$1" --output-dir "$tmp/out" --mode direct \
        --poll-interval 0.5 --set server.use_extensions=false --set resources.cpus=4 \
        --set limits.idle_timeout_seconds=5 2>"$3"
}

# 1. The mock.
launch_prism "$tmp/mock.log" mock "$contract"
rc=0
contract_worker "$prism_url" 1 "$tmp/mock-worker.log" || rc=$?
stop_prism || true
[ "$rc" = 0 ] || fail "worker against the mock: exit $rc: $(tail -20 "$tmp/mock-worker.log")"
for call in 'post /compute_nodes ' 'get /workflows/1 ' 'post /workflows/1/claim_jobs_based_on_resources/4 ' \
    'put /compute_nodes/'; do
    grep -q "\\[HTTP SERVER\\] $call" "$tmp/mock.log" ||
        fail "the worker did not call $call on the mock: $(grep 'HTTP SERVER' "$tmp/mock.log" | head -20)"
done
grep -qE '^info worker: stopped exit_code=0 cpu_user_seconds=[0-9.]+ cpu_system_seconds=[0-9.]+$' "$tmp/mock-worker.log" || fail "no stop line: $(cat "$tmp/mock-worker.log")"
python3 - "$tmp/mock.log" <<'PY' || fail "request violations against the mock (above)"
import re, sys
bad, echoed = [], False
request = None
for line in open(sys.argv[1]):
    if m := re.search(r"\[HTTP SERVER\] (\w+ \S+)", line):
        request = m.group(1)
    if "Violation: response.body.scheduler " in line:
        echoed = True  # the mock's own example breaks the contract here
    if "Request body property" in line or "Request terminated with error" in line \
            or "Request did not pass" in line:
        allowed = echoed and request.startswith("put /compute_nodes/") and (
            "property scheduler must be object" in line or "Request terminated" in line
            or "Request did not pass" in line)
        if not allowed:
            bad.append(f"{request}: {line.strip()}")
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY

# 2. The validating proxy in front of torcrun's server.
start_server "$tmp/db"
cat >"$tmp/diamond.json" <<'SPEC'
{"name": "contract", "jobs": [
  {"name": "pre", "command": "echo pre"},
  {"name": "w1", "command": "echo w1", "depends_on": ["pre"]},
  {"name": "w2", "command": "echo w2; exit 0", "depends_on": ["pre"]},
  {"name": "post", "command": "echo post", "depends_on": ["w1", "w2"]}
]}
SPEC
submit_spec "$tmp/diamond.json"
launch_prism "$tmp/proxy.log" proxy --errors "$contract" "$base"
rm -rf "$tmp/out"
rc=0
contract_worker "$prism_url" "$wf" "$tmp/proxy-worker.log" || rc=$?
[ "$rc" = 0 ] || fail "worker through the proxy: exit $rc: $(tail -20 "$tmp/proxy-worker.log")"
[ "$(job_statuses)" = "post=completed pre=completed w1=completed w2=completed" ] ||
    fail "statuses: $(job_statuses)"
calls=$(grep -c '\[HTTP SERVER\]' "$tmp/proxy.log" || true)
[ "$calls" -ge 10 ] || fail "only $calls calls through Prism: $(cat "$tmp/proxy.log")"
if grep -qi 'violation\|did not pass\|terminated with error' "$tmp/proxy.log"; then
    fail "Prism found violations: $(grep -i -B3 'violation\|did not pass\|terminated with error' "$tmp/proxy.log" | head -30)"
fi
stop_prism || true
stop_server
echo "ok ($calls worker calls through the validating proxy, no violation)"
