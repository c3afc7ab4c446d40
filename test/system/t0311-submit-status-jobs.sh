#!/usr/bin/env bash
# `torcrun submit`, `status` and `jobs` against a real `torcrun server`: the diamond (ids on
# stdout alone, warnings on stderr, the status and jobs output before and after a completion), a
# parameter sweep, every Torc example spec (jobs and edges as `torcrun spec` plans them), Basic
# auth, a spec error (exit 2 with file:line:col, nothing created), a server-side failure
# (rollback: the workflow is deleted) and the usage errors.
set -euo pipefail
torcrun=$1
examples=$(cd "$(dirname "$0")/../data/torc-examples" && pwd)
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
trap 'kill_servers; rm -rf "$tmp"' EXIT

# A bcrypt hash of "s3cret" (cost 5) for user "bob".
echo 'bob:$2b$05$abcdefghijklmnopqrstuuLK7U1u6pVRmL7L1BBM2aS35PSZnDXlK' >"$tmp/users"
echo s3cret >"$tmp/password"
start_server "$tmp/db" --set auth.htpasswd_file="$tmp/users"
export TORC_API_URL=$base
auth=(--user bob --password-file "$tmp/password")
curl_auth=(-u bob:s3cret)
call() {  # server_lib's call, with credentials
    local args=(-s -o "$tmp/body" -w '%{http_code}' -H 'Expect:' "${curl_auth[@]}" -X "$1" "$base$2")
    [ -n "${3-}" ] && args+=(-H 'Content-Type: application/json' --data-binary "$3")
    code=$(curl "${args[@]}") || fail "curl $1 $2 failed"
    body=$(cat "$tmp/body")
}

# --- the diamond -----------------------------------------------------------------------------
# Its input f1 (/Users/dthom/...) does not exist: -i creates it anyway (t0327 checks the refusal).
wf=$(USER=carol "$torcrun" submit -i "${auth[@]}" "$examples/json/diamond_workflow.json5" 2>"$tmp/err")
[[ "$wf" =~ ^[0-9]+$ ]] || fail "submit stdout is not an id: '$wf'"
grep -qx 'torcrun submit: warning: workflow: the spec'"'"'s user "test_user" is not stored: the workflow belongs to the submitting user "carol", as in Torc' \
    "$tmp/err" || fail "submit warning: $(cat "$tmp/err")"

"$torcrun" status "${auth[@]}" "$wf" >"$tmp/out"
diff -u - "$tmp/out" <<EOF || fail "status text"
workflow $wf: diamond_workflow (user carol)
run id: 0
is complete: false
is canceled: false
jobs: 4
  blocked: 3
  ready: 1
EOF

# Run preprocess as a worker would: claim, start, complete with return code 0.
expect POST /compute_nodes "{\"workflow_id\": $wf, \"hostname\": \"h\", \"pid\": 1,
    \"start_time\": \"2026-01-01T00:00:00Z\", \"is_active\": true, \"num_cpus\": 4,
    \"memory_gb\": 8, \"num_gpus\": 0, \"num_nodes\": 1, \"compute_node_type\": \"local\"}" 200
node=$(field "$body" 'd["id"]')
expect POST "/workflows/$wf/claim_next_jobs?limit=10" "" 200
[ "$(field "$body" '[j["name"] for j in d["jobs"]]')" = '["preprocess"]' ] || fail "claim: $body"
job=$(field "$body" 'd["jobs"][0]["id"]')
expect PUT "/jobs/$job/start_job/0/$node" "" 200
expect POST "/jobs/$job/complete_job/completed/0" "{\"job_id\": $job, \"workflow_id\": $wf,
    \"run_id\": 0, \"compute_node_id\": $node, \"return_code\": 0, \"exec_time_minutes\": 0.5,
    \"completion_time\": \"2026-01-01T00:01:00Z\", \"status\": \"completed\"}" 200

"$torcrun" jobs "${auth[@]}" "$wf" >"$tmp/out"
diff -u - "$tmp/out" <<EOF || fail "jobs table"
ID  NAME         STATUS     RC  ATTEMPTS  START                 DURATION  NODE  GPUS  PEAK_RSS  PEAK_CPU  LOGS                           COMMAND
$job   preprocess   completed  0   1         2026-01-01T00:00:30Z  30s       h     -     -         -         torc_output/jobs/wf${wf}_j${job}/r0_a1  bash tests/scripts/preprocess.sh -i /Users/dthom/repos/torc/f1.json -o /Users/dthom/repos/torc/f2.json -o /Users/dthom/repos/torc/f3.json
$((job + 1))   work1        ready      -   0         -                     -         -     -     -         -         -                              bash tests/scripts/work.sh -i /Users/dthom/repos/torc/f2.json -o /Users/dthom/repos/torc/f4.json
$((job + 2))   work2        ready      -   0         -                     -         -     -     -         -         -                              bash tests/scripts/work.sh -i /Users/dthom/repos/torc/f3.json -o /Users/dthom/repos/torc/f5.json
$((job + 3))   postprocess  blocked    -   0         -                     -         -     -     -         -         -                              bash tests/scripts/postprocess.sh -i /Users/dthom/repos/torc/f4.json -i /Users/dthom/repos/torc/f5.json -o /Users/dthom/repos/torc/f6.json
EOF
out=$("$torcrun" jobs "${auth[@]}" "$wf" --status ready --json)
[ "$(field "$out" '[(j["name"], j["return_code"]) for j in d]')" = '[["work1", null], ["work2", null]]' ] \
    || fail "jobs --status ready --json: $out"
out=$("$torcrun" jobs "${auth[@]}" "$wf" --status blocked,completed --json)
[ "$(field "$out" '[(j["name"], j["attempts"], j["start_time"], j["node"]) for j in d]')" \
    = '[["preprocess", 1, "2026-01-01T00:00:30.000Z", "h"], ["postprocess", 0, null, null]]' ] \
    || fail "jobs --status blocked,completed --json: $out"
out=$("$torcrun" jobs "${auth[@]}" "$wf" --status completed --json)
[ "$(field "$out" '[(j["name"], j["return_code"]) for j in d]')" = '[["preprocess", 0]]' ] \
    || fail "jobs --status completed --json: $out"
out=$("$torcrun" status "${auth[@]}" "$wf" --json)
[ "$(field "$out" '[d["name"], d["is_complete"], d["jobs"]["completed"], d["jobs"]["ready"], d["jobs"]["blocked"], d["jobs"]["total"]]')" \
    = '["diamond_workflow", false, 1, 2, 1, 4]' ] || fail "status --json: $out"

expect_exit() {  # expect_exit STATUS MESSAGE COMMAND...
    local status=$1 message=$2; shift 2
    set +e
    out=$("$@" 2>&1 >/dev/null); rc=$?
    set -e
    [ "$rc" = "$status" ] || fail "$*: exit $rc, expected $status ($out)"
    [ "$out" = "$message" ] || fail "$*: message '$out'"
}
expect_exit 1 "torcrun status: GET /workflows/$wf: HTTP 401: unauthorized: this server requires HTTP Basic credentials" \
    "$torcrun" status "$wf"
TORC_PASSWORD=wrong expect_exit 1 "torcrun jobs: GET /workflows/$wf: HTTP 401: unauthorized: wrong user name or password" \
    "$torcrun" jobs --user bob "$wf"

# bcrypt costs ~2 ms a request: the many calls below go to a server without authentication.
stop_server TERM
[ "$stop_rc" = 0 ] || fail "server exit $stop_rc"
start_server "$tmp/db"
export TORC_API_URL=$base
auth=()
curl_auth=()

# --- a parameter sweep, then every example: the jobs and edges `torcrun spec` plans ------------
mkdir "$tmp/specs"
count=0
submit_spec() {  # submit_spec SPEC: submit; keep the plan and the server's rows for the check
    local spec=$1 id dir=$tmp/specs/$count
    mkdir "$dir"
    echo "$spec" >"$dir/name"
    # --no-schedule: these specs are about creation; some have schedule_nodes actions
    # --ignore-missing-data: their input files are paths of Torc's authors' machines
    id=$("$torcrun" submit --no-schedule --ignore-missing-data "${auth[@]}" "$spec" 2>/dev/null) \
        || fail "submit $spec"
    "$torcrun" spec --json "$spec" >"$dir/plan.json"
    call GET "/jobs?workflow_id=$id&limit=10000"; echo "$body" >"$dir/jobs.json"
    call GET "/workflows/$id/job_dependencies?limit=10000"; echo "$body" >"$dir/deps.json"
    count=$((count + 1))
}
submit_spec "$examples/yaml/hyperparameter_sweep.yaml"
for spec in "$examples"/json/* "$examples"/yaml/* "$examples"/subgraphs/*; do submit_spec "$spec"; done
[ $count -ge 40 ] || fail "only $count examples"
python3 - "$tmp/specs" <<'PY' || fail "the submitted rows differ from the plans"
import json, os, sys
for entry in sorted(os.listdir(sys.argv[1])):
    d = os.path.join(sys.argv[1], entry)
    load = lambda name: json.load(open(os.path.join(d, name)))
    spec, plan = open(os.path.join(d, "name")).read().strip(), load("plan.json")
    jobs, deps = load("jobs.json")["items"], load("deps.json")["items"]
    names = {j["id"]: j["name"] for j in jobs}
    planned = {(a, b) for a, b in plan["edges"]["explicit"] + plan["edges"]["implied"]}
    stored = {(names[x["job_id"]], names[x["depends_on_job_id"]]) for x in deps}
    assert sorted(j["name"] for j in jobs) == sorted(j["name"] for j in plan["jobs"]), spec
    assert stored == planned, (spec, stored ^ planned)
    assert all(j["status"] in ("ready", "blocked") for j in jobs), spec
    assert any(j["status"] == "ready" for j in jobs), spec
PY

# --- newer Torc's keys reach the server's records; priority orders the claim -------------------
cat >"$tmp/newer.yaml" <<'YAML'
name: newer
project: demo
metadata: {team: hpc}
env: {DATA: /d}
execution_config: {mode: direct, sigterm_lead_seconds: 5}
slurm_schedulers: [{name: s, account: acct, serialize_allocations: true}]
jobs:
  - {name: low, command: "true"}
  - {name: high, command: "true", priority: 9, env: {N: "1"}, stdio: {mode: combined}}
YAML
wf=$("$torcrun" submit "${auth[@]}" "$tmp/newer.yaml" 2>/dev/null)
expect GET "/workflows/$wf" "" 200
[ "$(field "$body" '[d["project"], d["metadata"], d["env"], d["execution_config"]]')" = \
  '["demo", {"team": "hpc"}, {"DATA": "/d"}, {"mode": "direct", "sigterm_lead_seconds": 5, "job_stdio_overrides": {"high": {"mode": "combined", "delete_on_success": false}}}]' ] \
    || fail "workflow record: $body"
expect GET "/slurm_schedulers?workflow_id=$wf" "" 200
[ "$(field "$body" 'd["items"][0]["serialize_allocations"]')" = true ] || fail "scheduler: $body"
expect POST "/workflows/$wf/claim_next_jobs?limit=1" "" 200
[ "$(field "$body" '[(j["name"], j["priority"], j["env"]) for j in d["jobs"]]')" = \
  '[["high", 9, {"N": "1"}]]' ] || fail "claim by priority: $body"

# --- errors ----------------------------------------------------------------------------------
call GET /workflows; before=$(field "$body" 'd["total_count"]')
printf '{name: "w",\n jobs: [{name: "a", comand: "x"}]}\n' >"$tmp/bad.json5"
printf '{name: "w", jobs: [{name: "a", command: "true"}]}\n' >"$tmp/one.json5"
expect_exit 2 "torcrun submit: $tmp/bad.json5:2:21: jobs[0] \"a\": field \"comand\" is unknown (did you mean \"command\"?)" \
    "$torcrun" submit "${auth[@]}" "$tmp/bad.json5"
expect_exit 2 "torcrun submit: $tmp/none.json: cannot read: No such file or directory" \
    "$torcrun" submit "${auth[@]}" "$tmp/none.json"
expect_exit 2 "torcrun submit: a spec file is required (torcrun submit SPEC)" "$torcrun" submit
expect_exit 2 'torcrun status: workflow: "abc" is not a workflow id' "$torcrun" status abc
expect_exit 2 'torcrun jobs: job status: "bogus" is not one of uninitialized, blocked, ready, pending, running, completed, failed, canceled, terminated, disabled or pending_failed' \
    "$torcrun" jobs 1 --status bogus
expect_exit 2 'torcrun jobs: job status: "bogus" is not one of uninitialized, blocked, ready, pending, running, completed, failed, canceled, terminated, disabled or pending_failed' \
    "$torcrun" jobs 1 --status failed,bogus
expect_exit 2 'torcrun jobs: --status: an empty status in "failed,"' "$torcrun" jobs 1 --status failed,
expect_exit 2 'torcrun jobs: --user: needs a password (--password-file FILE or TORC_PASSWORD)' \
    "$torcrun" jobs 1 --user bob
expect_exit 2 'torcrun status: --url: url: "ftp://x" is not an http or https URL; expected http://host:port/torc-service/v1' \
    "$torcrun" status 1 --url ftp://x
expect_exit 1 'torcrun status: GET /workflows/999: HTTP 404: workflows: no workflow with id 999' \
    "$torcrun" status "${auth[@]}" 999
expect_exit 1 'torcrun submit: GET /version: connect 127.0.0.1:1: Connection refused (is the server running at http://127.0.0.1:1/torc-service/v1? start one with `torcrun server`, or give --url URL)' \
    "$torcrun" submit --url http://127.0.0.1:1/torc-service/v1 "$tmp/one.json5"
call GET /workflows
[ "$(field "$body" 'd["total_count"]')" = "$before" ] || fail "a failed submit left a workflow"

# --no-initialize: the workflow exists, its jobs stay uninitialized.
id=$("$torcrun" submit --no-initialize "$tmp/one.json5" 2>/dev/null)
out=$("$torcrun" status "$id" --json)
[ "$(field "$out" '[d["jobs"]["uninitialized"], d["jobs"]["total"]]')" = '[1, 1]' ] \
    || fail "submit --no-initialize: $out"
before=$((before + 1))

# A server-side failure once the workflow exists: 100 jobs exceed a 4k body limit at bulk_jobs.
stop_server TERM
start_server "$tmp/db" --set max_body_bytes=4k
set +e
"$torcrun" submit --url "$base" "${auth[@]}" "$examples/json/hundred_jobs_workflow.json5" \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[ $rc = 1 ] || fail "rollback: exit $rc"
[ ! -s "$tmp/out" ] || fail "rollback printed an id: $(cat "$tmp/out")"
gone=$((before + 1))
submitter=${USER:-${USERNAME:-unknown}}
[ -n "$submitter" ] || submitter=unknown
# A torcrun server takes the jobs at the ids reserved for them (streamed creation).
sed 's/first_id=[0-9]*/first_id=F/' "$tmp/err" >"$tmp/err.shown"
diff -u - "$tmp/err.shown" <<EOF || fail "rollback messages"
torcrun submit: warning: workflow: the spec's user "testuser" is not stored: the workflow belongs to the submitting user "$submitter", as in Torc
torcrun submit: bulk_jobs[0] level 0 (100 jobs): POST /workflows/$gone/bulk_jobs?first_id=F: HTTP 413: request body is larger than 4096 bytes
torcrun submit: deleted workflow $gone
EOF
expect GET "/workflows/$gone" "" 404
expect GET "/resource_requirements?workflow_id=$gone" "" 200
[ "$(field "$body" 'd["total_count"]')" = 0 ] || fail "rollback left records: $body"
stop_server TERM
[ "$stop_rc" = 0 ] || fail "server exit $stop_rc"
echo "ok ($count specs submitted)"
