#!/usr/bin/env bash
# Access control (auth.enforce_access_control) on a real `torcrun server` with an htpasswd file:
# alice owns workflows, bob is in the group `team` they are shared with, carol is an outsider,
# ops is the admin (auth.admin_users). Every endpoint family is called as the owner, the group
# member, the outsider, the admin, without credentials and with a wrong password, and each
# answer is asserted (200 / 403 / 401); the database is dumped before and after the refused
# requests and must not have changed. Then the access groups themselves (only the admin manages
# them, the admin group is built in), the filtered workflow listing, the owner taken from the
# credentials, and torcrun's own clients (submit, status, jobs, worker) working for the owner
# and refused for the outsider; a spec's access_groups giving the group's members access, and an
# unknown group in it creating nothing.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
trap 'kill_servers; rm -rf "$tmp"' EXIT

# bcrypt (cost 4) of "<user>-pw".
cat >"$tmp/users" <<'EOF'
alice:$2b$04$KBXsZ1ZzXqr5KvF2RoTzxu9HLy0hvCGtr8//S1XAFeCIWnwtFY2o2
bob:$2b$04$gL.o8/MJXgn6zCVmHhwr5Oaevs9r/SZRGh99O0j3RxqwVF2Nef3gO
carol:$2b$04$MO3e9bA50/8pMqg.7zNgreyi9.eThGkZGNzpMmGvHucRY.AfnmqTy
ops:$2b$04$K/0N0djr9h.LJbXh0gr9oOL1OYamoSVYGAGlMSUVbGEvOejZDcGQ2
EOF

# Access control needs authenticated users.
expect_exit 2 '--set auth.enforce_access_control: auth.enforce_access_control: is true but auth.htpasswd_file is null: access control needs authenticated users' \
    server --db "$tmp/never.db" --set auth.enforce_access_control=true

start_server "$tmp/db" --set auth.htpasswd_file="$tmp/users" \
    --set auth.enforce_access_control=true --set auth.admin_users=ops
grep -q 'access control is on' "$server_log" || fail "no start line: $(cat "$server_log")"

python3 - "$base" "$tmp/db" <<'PY'
import base64, json, sqlite3, sys, urllib.request, urllib.error

base, db_path = sys.argv[1], sys.argv[2]
PRINCIPALS = ["owner", "member", "outsider", "admin", "none", "wrong"]
LOGIN = {"owner": ("alice", "alice-pw"), "member": ("bob", "bob-pw"),
         "outsider": ("carol", "carol-pw"), "admin": ("ops", "ops-pw"),
         "wrong": ("alice", "not-her-password")}
checked = 0

def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)

def call(who, method, path, body=None, stream=False):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if who in LOGIN:
        token = base64.b64encode(("%s:%s" % LOGIN[who]).encode()).decode()
        req.add_header("Authorization", "Basic " + token)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            if stream:  # an event stream: the status and headers are the answer
                return r.status, r.headers.get("Content-Type")
            text = r.read().decode()
            return r.status, json.loads(text) if text else None
    except urllib.error.HTTPError as e:
        text = e.read().decode()
        return e.code, json.loads(text) if text else None

def ok(who, method, path, body=None):
    status, answer = call(who, method, path, body)
    if status != 200:
        fail("%s %s as %s: HTTP %s %s" % (method, path, who, status, answer))
    return answer

def snapshot():
    con = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    tables = [r[0] for r in con.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    out = {t: sorted(map(repr, con.execute("SELECT * FROM %s" % t).fetchall())) for t in tables}
    con.close()
    return out

def refusal_message(who, status, answer, wf):
    message = (answer or {}).get("message", "")
    if status == 401:
        return message.startswith("unauthorized: ")
    user = LOGIN[who][0]
    return ('user "%s"' % user in message) and (wf is None or "workflow %s" % wf in message)

def expect(family, method, path, body, expected, wf=None, stream=False):
    """expected: principal -> status; the refused ones are sent first, against one snapshot.
    `path` and `body` may be functions of the principal (each allowed one gets its own target;
    a refused one aims at the owner's)."""
    global checked
    at = lambda who: path(who) if callable(path) else path
    with_body = lambda who: body(who) if callable(body) else body
    before = snapshot()
    for who in PRINCIPALS:
        if expected[who] == 200:
            continue
        status, answer = call(who, method, at(who), with_body(who), stream)
        checked += 1
        if status != expected[who]:
            fail("%s: %s %s as %s: HTTP %s, expected %s: %s"
                 % (family, method, path, who, status, expected[who], answer))
        if not refusal_message(who, status, answer, wf):
            fail("%s: %s %s as %s: message %s" % (family, method, path, who, answer))
    if snapshot() != before:
        fail("%s: a refused %s %s changed the database" % (family, method, path))
    for who in PRINCIPALS:
        if expected[who] != 200:
            continue
        status, answer = call(who, method, at(who), with_body(who), stream)
        checked += 1
        if status != 200:
            fail("%s: %s %s as %s: HTTP %s: %s" % (family, method, path, who, status, answer))

SHARED = {"owner": 200, "member": 200, "outsider": 403, "admin": 200, "none": 401, "wrong": 401}
ADMIN_ONLY = {"owner": 403, "member": 403, "outsider": 403, "admin": 200, "none": 401, "wrong": 401}
OWNER_OR_ADMIN = {"owner": 200, "member": 403, "outsider": 403, "admin": 200, "none": 401,
                  "wrong": 401}
ANY_USER = {"owner": 200, "member": 200, "outsider": 200, "admin": 200, "none": 401, "wrong": 401}

# --- alice's workflow, shared with team ------------------------------------------------------
# She names someone else as the user: the owner is who authenticated.
w = ok("owner", "POST", "/workflows", {"name": "shared", "user": "mallory"})
wf = w["id"]
if w["user"] != "alice":
    fail("the owner is the authenticated user: %s" % w)
wfs = {who: ok("owner", "POST", "/workflows", {"name": "spare-" + who, "user": "alice"})["id"]
       for who in ("owner", "member", "admin")}
carols = ok("outsider", "POST", "/workflows", {"name": "carols", "user": "carol"})["id"]

team = ok("admin", "POST", "/access_groups", {"name": "team", "description": "alice's team"})["id"]
ok("admin", "POST", "/access_groups/%d/members" % team, {"user_name": "bob", "group_id": team})
ok("owner", "POST", "/workflows/%d/access_groups" % wf, {"workflow_id": wf, "group_id": team})
for spare in wfs.values():
    ok("owner", "POST", "/workflows/%d/access_groups/%d" % (spare, team))

node_body = {"workflow_id": wf, "hostname": "n1", "pid": 1, "start_time": "2026-01-01T00:00:00Z",
             "is_active": True, "num_cpus": 64, "memory_gb": 64, "num_gpus": 0, "num_nodes": 1,
             "compute_node_type": "local"}
node = ok("owner", "POST", "/compute_nodes", node_body)["id"]
file_id = ok("owner", "POST", "/files", {"workflow_id": wf, "name": "f", "path": "/f"})["id"]
ud = ok("owner", "POST", "/user_data", {"workflow_id": wf, "name": "u", "data": {"a": 1}})["id"]
rr = ok("owner", "POST", "/resource_requirements",
        {"workflow_id": wf, "name": "small", "num_cpus": 1, "memory": "1m", "runtime": "PT1M"})["id"]
ls = ok("owner", "POST", "/local_schedulers", {"workflow_id": wf, "num_cpus": 2})["id"]
fh = ok("owner", "POST", "/failure_handlers",
        {"workflow_id": wf, "name": "h", "rules": json.dumps([])})["id"]
jobs = ok("owner", "POST", "/bulk_jobs", {"jobs": [
    {"workflow_id": wf, "name": "j%d" % i, "command": "true"} for i in range(40)]})["jobs"]
ok("owner", "POST", "/workflows/%d/initialize_jobs" % wf)
spare_job = ok("owner", "POST", "/jobs", {"workflow_id": wf, "name": "spare", "command": "x"})["id"]
# Targets of the deletions, one for each allowed principal; a refused one aims at the owner's.
ALLOWED = ("owner", "member", "admin")
def mine(targets):
    return lambda who: targets[who if who in ALLOWED else "owner"]
doomed_files = {who: ok("owner", "POST", "/files", {"workflow_id": wf, "name": "d-" + who,
                                                    "path": "/d"})["id"] for who in ALLOWED}
doomed_jobs = {who: ok("owner", "POST", "/jobs", {"workflow_id": wf, "name": "d-" + who,
                                                  "command": "x"})["id"] for who in ALLOWED}
ok("owner", "POST", "/workflows/%d/actions" % wf,
   {"workflow_id": wf, "trigger_type": "on_workflow_start", "action_type": "run_commands",
    "action_config": {"commands": ["true"]}})

# One job claimed, started and completed by the owner: a result, a pending and a running job.
def claim(who):
    got = ok(who, "POST", "/workflows/%d/claim_next_jobs?limit=1&compute_node_id=%d" % (wf, node))
    return got["jobs"][0]["id"]

def result(job, status="completed"):
    return {"job_id": job, "workflow_id": wf, "run_id": 0, "compute_node_id": node,
            "return_code": 0, "exec_time_minutes": 0.1, "completion_time": "2026-01-01T00:01:00Z",
            "status": status}

done = claim("owner")
ok("owner", "PUT", "/jobs/%d/start_job/0/%d" % (done, node))
ok("owner", "POST", "/jobs/%d/complete_job/completed/0" % done, result(done))
res = ok("owner", "GET", "/results?workflow_id=%d" % wf)["items"][0]["id"]
pending = claim("owner")
running = claim("owner")
ok("owner", "PUT", "/jobs/%d/start_job/0/%d" % (running, node))

# --- reads ---------------------------------------------------------------------------------
reads = ["/workflows/%d" % wf, "/workflows/%d/status" % wf, "/workflows/%d/is_complete" % wf,
         "/workflows/%d/is_uninitialized" % wf, "/workflows/%d/job_ids" % wf,
         "/workflows/%d/job_dependencies" % wf, "/workflows/%d/job_file_relationships" % wf,
         "/workflows/%d/job_user_data_relationships" % wf,
         "/workflows/%d/ready_job_requirements" % wf, "/workflows/%d/actions" % wf,
         "/workflows/%d/actions/pending?trigger_type=on_workflow_start" % wf,
         "/workflows/%d/failure_handlers" % wf, "/workflows/%d/access_groups" % wf,
         "/access_check/%d/bob" % wf,
         "/jobs?workflow_id=%d" % wf, "/jobs/%d" % done,
         "/files?workflow_id=%d" % wf, "/files/%d" % file_id,
         "/user_data?workflow_id=%d" % wf, "/user_data/%d" % ud,
         "/resource_requirements?workflow_id=%d" % wf, "/resource_requirements/%d" % rr,
         "/failure_handlers/%d" % fh,
         "/slurm_schedulers?workflow_id=%d" % wf, "/local_schedulers?workflow_id=%d" % wf,
         "/local_schedulers/%d" % ls, "/compute_nodes?workflow_id=%d" % wf,
         "/compute_nodes/%d" % node, "/scheduled_compute_nodes?workflow_id=%d" % wf,
         "/results?workflow_id=%d" % wf, "/results/%d" % res, "/events?workflow_id=%d" % wf]
for path in reads:
    expect("read", "GET", path, None, SHARED, wf)
expect("events stream", "GET", "/workflows/%d/events/stream" % wf, None, SHARED, wf, stream=True)

# --- writes: refused ones change nothing, allowed ones go through ---------------------------
def named(kind):
    return lambda who: {"workflow_id": wf, "name": "%s-%s" % (kind, who), "path": "/p"}

expect("workflow update", "PUT", "/workflows/%d" % wf,
       {"name": "shared", "user": "alice", "description": "edited"}, SHARED, wf)
expect("file create", "POST", "/files", named("file"), SHARED, wf)
expect("file update", "PUT", "/files/%d" % file_id,
       {"workflow_id": wf, "name": "f", "path": "/f2"}, SHARED, wf)
expect("user data create", "POST", "/user_data", named("ud"), SHARED, wf)
expect("user data update", "PUT", "/user_data/%d" % ud,
       {"workflow_id": wf, "name": "u", "data": {"a": 2}}, SHARED, wf)
expect("job create", "POST", "/jobs",
       lambda who: {"workflow_id": wf, "name": "new-" + who, "command": "true"}, SHARED, wf)
expect("bulk jobs", "POST", "/bulk_jobs",
       lambda who: {"jobs": [{"workflow_id": wf, "name": "bulk-" + who, "command": "true"}]},
       SHARED, wf)
expect("job update", "PUT", "/jobs/%d" % spare_job,
       {"workflow_id": wf, "name": "spare", "command": "y"}, SHARED, wf)
expect("resource requirements", "POST", "/resource_requirements",
       lambda who: {"workflow_id": wf, "name": "rr-" + who, "memory": "1m", "runtime": "PT1M"},
       SHARED, wf)
expect("slurm scheduler", "POST", "/slurm_schedulers",
       {"workflow_id": wf, "account": "a", "nodes": 1, "walltime": "01:00:00"}, SHARED, wf)
expect("local scheduler update", "PUT", "/local_schedulers/%d" % ls,
       {"workflow_id": wf, "num_cpus": 3}, SHARED, wf)
expect("compute node create", "POST", "/compute_nodes", node_body, SHARED, wf)
expect("compute node update", "PUT", "/compute_nodes/%d" % node, node_body, SHARED, wf)
expect("heartbeat", "POST", "/compute_nodes/%d/heartbeat" % node, None, SHARED, wf)
expect("result", "POST", "/results", result(done), SHARED, wf)
expect("event", "POST", "/events",
       {"workflow_id": wf, "timestamp": 1, "data": {"category": "test"}}, SHARED, wf)
expect("action", "POST", "/workflows/%d/actions" % wf,
       {"workflow_id": wf, "trigger_type": "on_worker_start", "action_type": "run_commands",
        "action_config": {"commands": ["true"]}}, SHARED, wf)
expect("claim by resources", "POST", "/workflows/%d/claim_jobs_based_on_resources/1" % wf,
       {"num_cpus": 1, "memory_gb": 1, "num_gpus": 0, "num_nodes": 1, "time_limit": "PT1H"},
       SHARED, wf)
expect("claim next", "POST", "/workflows/%d/claim_next_jobs?limit=1" % wf, None, SHARED, wf)
# The job life cycle. The refused principals try it on the owner's jobs (pending, running,
# done); each allowed one claims two jobs and runs one to completion and one to a failure and a
# retry, and hands a third back.
LIFE = {"outsider": 403, "none": 401, "wrong": 401}
def refused_only(family, method, path, body=None):
    global checked
    before = snapshot()
    for who, code in LIFE.items():
        status, answer = call(who, method, path, body)
        checked += 1
        if status != code or not refusal_message(who, status, answer, wf):
            fail("%s: %s %s as %s: HTTP %s %s" % (family, method, path, who, status, answer))
    if snapshot() != before:
        fail("%s: a refused %s %s changed the database" % (family, method, path))
refused_only("start job", "PUT", "/jobs/%d/start_job/0/%d" % (pending, node))
refused_only("complete job", "POST", "/jobs/%d/complete_job/completed/0" % running, result(running))
refused_only("retry", "POST", "/jobs/%d/retry/0?max_retries=3" % done)
refused_only("status change", "PUT", "/jobs/%d/manage_status_change/ready/0" % pending)
for who in ALLOWED:
    good, bad, back = claim(who), claim(who), claim(who)
    for job in (good, bad):
        ok(who, "PUT", "/jobs/%d/start_job/0/%d" % (job, node))
    ok(who, "POST", "/jobs/%d/complete_job/completed/0" % good, result(good))
    failed = dict(result(bad, "failed"), return_code=1)
    ok(who, "POST", "/jobs/%d/complete_job/failed/0" % bad, failed)
    ok(who, "POST", "/jobs/%d/retry/0?max_retries=3" % bad)
    ok(who, "PUT", "/jobs/%d/manage_status_change/ready/0" % back)
    checked += 6
expect("batch completion", "POST", "/workflows/%d/batch_complete_jobs" % wf,
       {"completions": []}, SHARED, wf)
expect("workflow status", "PUT", "/workflows/%d/status" % wf,
       lambda who: {"run_id": 0, "is_canceled": False, "is_archived": False}, SHARED, wf)
expect("reset job status", "POST", "/workflows/%d/reset_job_status?failed_only=true" % wf, None,
       SHARED, wf)
expect("initialize", "POST", "/workflows/%d/initialize_jobs" % wf, None, SHARED, wf)
expect("reset status", "POST", "/workflows/%d/reset_status" % wf, None, SHARED, wf)
expect("cancel", "PUT", "/workflows/%d/cancel" % wf, None, SHARED, wf)
expect("record delete", "DELETE", lambda who: "/files/%d" % mine(doomed_files)(who), None,
       SHARED, wf)
expect("collection delete", "DELETE", "/events?workflow_id=%d" % wf, None, SHARED, wf)
expect("job delete", "DELETE", lambda who: "/jobs/%d" % mine(doomed_jobs)(who), None,
       SHARED, wf)
expect("workflow delete", "DELETE", lambda who: "/workflows/%d" % mine(wfs)(who), None, SHARED)

# Changing the owner is for admins.
status, answer = call("member", "PUT", "/workflows/%d" % wf, {"name": "shared", "user": "bob"})
if status != 403 or 'user "bob"' not in answer["message"]:
    fail("member takes the workflow: %s %s" % (status, answer))

# --- listings --------------------------------------------------------------------------------
def listed(who):
    return sorted(x["name"] for x in ok(who, "GET", "/workflows")["items"])
if listed("owner") != ["shared"] or listed("member") != ["shared"]:
    fail("listing: alice %s, bob %s" % (listed("owner"), listed("member")))
if listed("outsider") != ["carols"] or listed("admin") != ["carols", "shared"]:
    fail("listing: carol %s, ops %s" % (listed("outsider"), listed("admin")))
if ok("outsider", "GET", "/workflows?user=alice")["items"]:
    fail("a user filter does not widen carol's listing")
if len(ok("admin", "GET", "/workflows?user=alice")["items"]) != 1:
    fail("the admin lists alice's workflow")

# --- access groups ---------------------------------------------------------------------------
expect("group create", "POST", "/access_groups",
       lambda who: {"name": "g-" + who}, ADMIN_ONLY)
spare_group = ok("admin", "POST", "/access_groups", {"name": "spare"})["id"]
expect("group member add", "POST", "/access_groups/%d/members" % spare_group,
       {"user_name": "carol", "group_id": spare_group}, ADMIN_ONLY)
expect("group member remove", "DELETE", "/access_groups/%d/members/carol" % spare_group, None,
       ADMIN_ONLY)
expect("group delete", "DELETE", "/access_groups/%d" % spare_group, None, ADMIN_ONLY)
for path in ("/access_groups", "/access_groups/%d" % team, "/access_groups/%d/members" % team,
             "/users/bob/groups"):
    expect("group read", "GET", path, None, ANY_USER)
share_with = {who: ok("admin", "POST", "/access_groups", {"name": "s-" + who})["id"]
              for who in ("owner", "admin")}
expect("share", "POST", "/workflows/%d/access_groups" % wf,
       lambda who: {"workflow_id": wf, "group_id": share_with.get(who, share_with["owner"])},
       OWNER_OR_ADMIN, wf)
revoked = {who: ok("admin", "POST", "/access_groups", {"name": "r-" + who})["id"]
           for who in ("owner", "admin")}
for group in revoked.values():
    ok("admin", "POST", "/workflows/%d/access_groups/%d" % (wf, group))
expect("revoke", "DELETE",
       lambda who: "/workflows/%d/access_groups/%d" % (wf, revoked.get(who, revoked["owner"])),
       None, OWNER_OR_ADMIN, wf)
groups = ok("member", "GET", "/users/bob/groups")["items"]
if [g["name"] for g in groups] != ["team"]:
    fail("bob's groups: %s" % groups)
check = ok("outsider", "GET", "/access_check/%d/carol" % carols)
if check != {"has_access": True, "user_name": "carol", "workflow_id": carols}:
    fail("access_check: %s" % check)
if ok("owner", "GET", "/access_check/%d/carol" % wf)["has_access"]:
    fail("carol has no access to alice's workflow")

# The admin group: built in, listed with its members, neither deletable nor editable.
admin_group = [g for g in ok("member", "GET", "/access_groups")["items"] if g["name"] == "admin"]
if len(admin_group) != 1:
    fail("no admin group: %s" % admin_group)
admin_id = admin_group[0]["id"]
members = [m["user_name"] for m in ok("member", "GET", "/access_groups/%d/members" % admin_id)["items"]]
if members != ["ops"]:
    fail("admin group members: %s" % members)
for method, path, body in (("DELETE", "/access_groups/%d" % admin_id, None),
                           ("POST", "/access_groups/%d/members" % admin_id,
                            {"user_name": "carol", "group_id": admin_id}),
                           ("DELETE", "/access_groups/%d/members/ops" % admin_id, None)):
    status, answer = call("admin", method, path, body)
    if status != 403 or "admin group" not in answer["message"]:
        fail("%s %s: %s %s" % (method, path, status, answer))
status, answer = call("admin", "POST", "/access_groups", {"name": "team"})
if status != 409:
    fail("a second group named team: %s %s" % (status, answer))

# ping and version stay open.
for who in ("none", "owner"):
    status, _ = call(who, "GET", "/ping")
    if status != (401 if who == "none" else 200):
        fail("ping as %s: %s" % (who, status))
print("%d refused and allowed calls checked" % checked)
PY

# --- torcrun's clients, as the owner and as the outsider --------------------------------------
printf 'alice-pw\n' >"$tmp/alice"
printf 'carol-pw\n' >"$tmp/carol"
cat >"$tmp/spec.json" <<'EOF'
{"name": "clients", "jobs": [{"name": "a", "command": "echo a"},
                             {"name": "b", "command": "echo b", "depends_on": ["a"]}]}
EOF
export TORC_API_URL=$base
alice=(--user alice --password-file "$tmp/alice")
wf=$(USER=someone "$torcrun" submit --no-schedule "${alice[@]}" "$tmp/spec.json" 2>"$tmp/err")
[[ "$wf" =~ ^[0-9]+$ ]] || fail "submit as alice: $wf $(cat "$tmp/err")"
"$torcrun" status "${alice[@]}" "$wf" | grep -qx "workflow $wf: clients (user alice)" \
    || fail "status as alice: $("$torcrun" status "${alice[@]}" "$wf" 2>&1)"
"$torcrun" worker --set server.username=alice --set server.password_file="$tmp/alice" \
    --url "$base" --workflow "$wf" --output-dir "$tmp/out" \
    --poll-interval 0.5 >"$tmp/worker.log" 2>&1 || fail "worker as alice: $(tail -5 "$tmp/worker.log")"
"$torcrun" jobs "${alice[@]}" "$wf" --status completed --json >"$tmp/jobs"
[ "$(field "$(cat "$tmp/jobs")" 'sorted(j["name"] for j in d)')" = '["a", "b"]' ] \
    || fail "jobs as alice: $(cat "$tmp/jobs")"
rc=0
"$torcrun" status --user carol --password-file "$tmp/carol" "$wf" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" != 0 ] && grep -q "HTTP 403: access: user \"carol\" has no access to workflow $wf" "$tmp/err" \
    || fail "status as carol: exit $rc: $(cat "$tmp/err")"

# --- a spec's access_groups (0.23): the group named gets access at creation; an unknown group
# refuses the whole creation and nothing is created
printf 'bob-pw\n' >"$tmp/bob"
cat >"$tmp/shared.yaml" <<'EOF'
name: shared
access_groups: [team]
jobs: [{name: a, command: echo a}]
EOF
shared=$("$torcrun" submit --no-schedule "${alice[@]}" "$tmp/shared.yaml" 2>"$tmp/err") \
    || fail "submit with access_groups: $(cat "$tmp/err")"
"$torcrun" status --user bob --password-file "$tmp/bob" "$shared" | grep -qx \
    "workflow $shared: shared (user alice)" || fail "bob (in team) cannot see workflow $shared"
rc=0
"$torcrun" status --user carol --password-file "$tmp/carol" "$shared" >/dev/null 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "carol (in no group) sees workflow $shared"
workflows() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(
    "SELECT COUNT(*) FROM workflow").fetchone()[0])' "$tmp/db"; }
before=$(workflows)
sed 's/\[team\]/[team, nobody]/' "$tmp/shared.yaml" >"$tmp/unknown.yaml"
rc=0
"$torcrun" submit --no-schedule "${alice[@]}" "$tmp/unknown.yaml" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" != 0 ] && grep -q 'HTTP 422: workflows: field "access_groups": group "nobody" does not' \
    "$tmp/err" || fail "unknown group: exit $rc: $(cat "$tmp/err")"
[ "$(workflows)" = "$before" ] || fail "an unknown group left a workflow: $before -> $(workflows)"

stop_server
[ "$stop_rc" = 0 ] || fail "server exit status $stop_rc: $(cat "$server_log")"
