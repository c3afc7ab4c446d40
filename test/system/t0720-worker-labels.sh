#!/usr/bin/env bash
# Job labels (torcrun extension): a spec of labelled and unlabelled jobs against `torcrun server`.
# An unlabelled worker runs only the unlabelled jobs, a worker started with --label gpu only the
# jobs labelled gpu (not even an unlabelled job its own jobs made ready), and a second unlabelled
# worker the rest; `torcrun status` counts the ready jobs per label; a label without torcrun's
# extensions is refused (exit 2); `torcrun run`'s unlabelled worker names a labelled job as one
# that can never run here.
set -euo pipefail
torcrun=$1
tmp=${T0720_TMP:-$(mktemp -d)}
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

start_server "$tmp/db"
cat >"$tmp/spec.yaml" <<'SPEC'
name: labels
jobs:
  - name: plain
    command: echo plain
  - name: g{i}
    command: echo g{i}
    label: gpu
    parameters: {i: "1:2"}
  - name: after
    command: echo after
    depends_on: [g1]
SPEC
submit_spec "$tmp/spec.yaml"
expect GET "/jobs?workflow_id=$wf" "" 200
[ "$(field "$body" 'sorted([j["name"], j.get("label")] for j in d["items"])')" \
  = '[["after", null], ["g1", "gpu"], ["g2", "gpu"], ["plain", null]]' ] ||
    fail "labels as stored: $body"

run_worker() {  # run_worker NAME ARGS...: a worker until idle; its log in $tmp/NAME.log
    local name=$1 rc=0
    shift
    timeout 60 "$torcrun" worker "$wf" --url "$base" --output-dir "$tmp/$name" --long-poll 1 \
        --set limits.idle_timeout_seconds=2 --poll-interval 0.5 "$@" 2>"$tmp/$name.log" || rc=$?
    [ "$rc" = 0 ] || fail "worker $name: exit $rc: $(tail -20 "$tmp/$name.log")"
}

run_worker plain1
[ "$(job_statuses)" = "after=blocked g1=ready g2=ready plain=completed" ] ||
    fail "after the unlabelled worker: $(job_statuses)"
# status counts the ready jobs of the label no worker served
"$torcrun" status --url "$base" "$wf" >"$tmp/status"
grep -Fxq '  ready: 2' "$tmp/status" && grep -Fxq '    label "gpu": 2' "$tmp/status" ||
    fail "status: $(cat "$tmp/status")"
[ "$("$torcrun" status --url "$base" "$wf" --json | field "$(cat)" 'd["ready_by_label"]')" \
  = '{"gpu": 2}' ] || fail "status --json: $("$torcrun" status --url "$base" "$wf" --json)"
run_worker gpu --label gpu
[ "$(job_statuses)" = "after=ready g1=completed g2=completed plain=completed" ] ||
    fail "after the gpu worker: $(job_statuses)"
run_worker plain2
[ "$(job_statuses)" = "after=completed g1=completed g2=completed plain=completed" ] ||
    fail "after the second unlabelled worker: $(job_statuses)"

submit_spec "$tmp/spec.yaml"
rc=0
timeout 60 "$torcrun" worker "$wf" --url "$base" --output-dir "$tmp/off" --label gpu \
    --set server.use_extensions=false 2>"$tmp/off.log" || rc=$?
[ "$rc" = 2 ] || fail "a label without extensions: exit $rc: $(tail -5 "$tmp/off.log")"
grep -q "label gpu: a labelled worker needs torcrun's server and its extensions" "$tmp/off.log" ||
    fail "no refusal: $(tail -5 "$tmp/off.log")"
# torcrun run's one worker has no label: it names the labelled job that can never run and stops
cat >"$tmp/run.yaml" <<'SPEC'
name: l
jobs:
  - {name: a, command: echo a}
  - {name: g, command: echo g, label: gpu}
SPEC
rc=0
(cd "$tmp" && timeout 60 "$torcrun" run run.yaml --output-dir "$tmp/run" >/dev/null 2>run.err) ||
    rc=$?
[ "$rc" = 1 ] || fail "torcrun run with a labelled job: exit $rc: $(tail -5 "$tmp/run.err")"
never='can never run: job 2 "g" has label "gpu"; this worker claims only unlabelled jobs '
never+='(a worker started with --label gpu claims it)'
grep -Fq "$never" "$tmp/run.err" ||
    fail "no never-fits line naming the label: $(tail -5 "$tmp/run.err")"
echo "ok"
