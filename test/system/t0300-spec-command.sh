#!/usr/bin/env bash
# `torcrun spec`: the summary and --json of Torc example specs, the user fallback, and exit 2
# with the message for unreadable files, bad specs and bad arguments; `--keys` prints the key
# table (its Markdown is docs/reference/spec-keys.md, compared by docs.site) and reads no spec.
set -euo pipefail
torcrun=$1
examples=$(cd "$(dirname "$0")/../data/torc-examples" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The workflow belongs to the submitting user, not to the spec's `user: test_user` (as in Torc).
out=$(USER=dana "$torcrun" spec "$examples/json/diamond_workflow.json5")
grep -q '^workflow "diamond_workflow" (user dana): 4 jobs, 6 files' <<<"$out" || fail "summary: $out"
grep -q '^edges: 0 explicit, 4 implied, 4 in all; 1 bulk_jobs batches$' <<<"$out" || fail "edges: $out"
grep -q '^    postprocess -> work1$' <<<"$out" || fail "implied edge missing: $out"

out=$("$torcrun" spec "$examples/json/data_pipeline_parameterized.json5")
grep -q ': 25 jobs (Torc 0.10 creates 36), 20 files' <<<"$out" || fail "merged jobs: $out"
grep -q 'Torc 0.10 creates 4 copies' <<<"$out" || fail "merge warning: $out"

out=$("$torcrun" spec --json "$examples/yaml/workflow_actions_ml_training.yaml")
grep -q '"union_count":16' <<<"$out" || fail "json edges: $out"
grep -q '"required_triggers":8' <<<"$out" || fail "json actions: $out"

printf '{name: "w", jobs: [{name: "a", command: "echo"}]}\n' >"$tmp/spec.json5"
out=$(env -u USER -u USERNAME "$torcrun" spec --json "$tmp/spec.json5")
grep -q '"user":"unknown"' <<<"$out" || fail "user fallback: $out"
out=$(USER=carol "$torcrun" spec "$tmp/spec.json5")
grep -q '(user carol)' <<<"$out" || fail "user from USER: $out"

expect_error() {  # expect_error MESSAGE ARGS...
    local message=$1 out rc
    shift
    set +e
    out=$("$torcrun" spec "$@" 2>&1); rc=$?
    set -e
    [ $rc -eq 2 ] || fail "spec $* exits $rc, expected 2"
    [ "$out" = "$message" ] || fail "spec $*: got '$out', expected '$message'"
}
expect_error "torcrun spec: $tmp/none.json5: cannot read: No such file or directory" "$tmp/none.json5"
expect_error "torcrun spec: $tmp: cannot read: Is a directory" "$tmp"
printf '{name: "w", jobs: [{name: "a", comand: "echo"}]}\n' >"$tmp/bad.json5"
expect_error "torcrun spec: $tmp/bad.json5:1:32: jobs[0] \"a\": field \"comand\" is unknown (did you mean \"command\"?)" "$tmp/bad.json5"
printf '{name: "w", jobs: [{name: "a", command: "x", depends_on: ["a"]}]}\n' >"$tmp/cycle.json5"
expect_error "torcrun spec: $tmp/cycle.json5:1:20: jobs: dependency cycle \"a\" -> \"a\" (each job waits for the next)" "$tmp/cycle.json5"
# torcrun's tasks_per_node extension shows in --json as submit sends it; 0 is refused.
printf '%s\n' "{name: 'w', jobs: [{name: 'a', command: 'x', resource_requirements: 'mpi'}]," \
    " resource_requirements: [{name: 'mpi', num_cpus: 4, memory: '1g', num_nodes: 2, tasks_per_node: 4}]}" \
    >"$tmp/mpi.json5"
tpn=$("$torcrun" spec --json "$tmp/mpi.json5" \
    | python3 -c "import json, sys; print(json.load(sys.stdin)['resource_requirements'][0]['tasks_per_node'])")
[ "$tpn" = 4 ] || fail "tasks_per_node in --json: '$tpn', expected 4"
sed -i 's/tasks_per_node: 4/tasks_per_node: 0/' "$tmp/mpi.json5"
expect_error "torcrun spec: $tmp/mpi.json5:2:97: resource_requirements[0] \"mpi\": field \"tasks_per_node\" must be an integer from 1 to 9223372036854775807, found 0" "$tmp/mpi.json5"
# Newer Torc's keys: shown in the summary and in --json as submit sends them; a bad one exits 2.
cat >"$tmp/newer.yaml" <<'YAML'
name: w
project: demo
env: {DATA: /d}
execution_config: {mode: direct, stdio: {mode: combined}}
jobs:
  - {name: a, command: x, priority: 5, env: {N: "1"}, stdio: {mode: none}}
YAML
out=$("$torcrun" spec "$tmp/newer.yaml")
grep -q '^project: demo$' <<<"$out" || fail "project: $out"
grep -q '^env: DATA="/d"$' <<<"$out" || fail "env: $out"
grep -q '^execution_config: {"mode":"direct","stdio":{"mode":"combined"},"job_stdio_overrides":{"a":{"mode":"none","delete_on_success":false}}}$' <<<"$out" || fail "execution_config: $out"
grep -q '^    priority: 5$' <<<"$out" || fail "priority: $out"
out=$("$torcrun" spec --json "$tmp/newer.yaml")
grep -q '"priority":5,"env":{"N":"1"}' <<<"$out" || fail "json job keys: $out"
printf 'name: w\njobs: []\nexecution_config: {mode: slurm, oom_exit_code: 1}\n' >"$tmp/slurm.yaml"
expect_error "torcrun spec: $tmp/slurm.yaml:3:33: execution_config: \"oom_exit_code\" applies to direct mode only; it is not allowed in slurm mode" "$tmp/slurm.yaml"
expect_error "torcrun spec: a spec file is required (torcrun spec SPEC [--json], or torcrun spec --keys)"
expect_error "torcrun spec: unrecognised option '--frob'" --frob "$tmp/spec.json5"
"$torcrun" spec --help | grep -q -- '--json' || fail "help lists no --json"

# The key table: every object with its keys, each marked; the job's keys include command.
"$torcrun" spec --keys --json | python3 -c '
import json, sys
objects = json.load(sys.stdin)["objects"]
paths = [o["path"] for o in objects]
assert paths[0] == "workflow" and "jobs[]" in paths and "execution_config" in paths, paths
for o in objects:
    for k in o["keys"]:
        assert k["support"] in ("reads", "differs", "ignored", "refused"), k
job = next(o for o in objects if o["path"] == "jobs[]")
assert any(k["name"] == "command" for k in job["keys"]), job
' || fail "spec --keys --json"
# Captured first: grep -q stops reading at its match, and with pipefail the writer's SIGPIPE
# would fail the pipeline.
keys_markdown=$("$torcrun" spec --keys)
grep -qxF '| `command` | the shell command (required), templated | reads |' <<<"$keys_markdown" \
    || fail "spec --keys lists no job command row"
expect_error "torcrun spec: --keys prints the key table and reads no SPEC: \"$tmp/spec.json5\"" \
    --keys "$tmp/spec.json5"
expect_error "torcrun spec: --keys prints the key table; --skip-checks applies to a SPEC" \
    --keys --skip-checks
echo "ok"
