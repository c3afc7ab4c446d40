#!/usr/bin/env bash
# Issue 13 §8, the check before starting, as Torc's initialize makes it: `torcrun run` and
# `torcrun submit` refuse a workflow whose required input files (read by a job, written by
# none) are missing, naming each path and the jobs that read it, and create nothing; Torc's own
# diamond example is the case (before, it started and its first job failed). The override
# (--ignore-missing-data) turns the refusal into a warning; output files that exist already are
# a warning; relative paths are looked for from the current directory, where the jobs run;
# `submit --no-initialize` starts nothing and checks nothing; `run --resume` checks the inputs
# and expects the outputs.
set -euo pipefail
torcrun=$1
examples=$(cd "$(dirname "$0")/../data/torc-examples" && pwd)
tmp=$(mktemp -d)
trap 'kill_servers; rm -rf "$tmp"' EXIT
source "$(dirname "$0")/server_lib.sh"
cd "$tmp"
unset TORC_API_URL
export USER=dana

diamond=$examples/json/diamond_workflow.json5
user_line="warning: workflow: the spec's user \"test_user\" is not stored: the workflow belongs to the submitting user \"dana\", as in Torc"
refusal() {  # refusal COMMAND
    printf '%s\n' \
        "torcrun $1: $user_line" \
        "torcrun $1: 1 required input file does not exist (read by a job, written by none):" \
        "torcrun $1:   /Users/dthom/repos/torc/f1.json (file f1), read by preprocess" \
        "torcrun $1: nothing was started: create it or correct the spec's paths, or pass --ignore-missing-data to start anyway"
}

# --- torcrun run on Torc's diamond: refused, no output directory made --------------------------
expect_exit 2 "$(refusal run)" run "$diamond" --output-dir D
[ ! -e D ] || fail "the refused run made its output directory: $(find D)"

# --- torcrun submit of the same: refused, no workflow on the server -----------------------------
start_server "$tmp/db"
expect_exit 2 "$(refusal submit)" submit --url "$base" "$diamond"
[ "$("$torcrun" workflows --url "$base" --json)" = "[]" ] \
    || fail "the refused submit created a workflow: $("$torcrun" workflows --url "$base")"
# --no-initialize starts nothing, so nothing is checked.
wf=$("$torcrun" submit --url "$base" --no-initialize "$diamond" 2>/dev/null) \
    || fail "submit --no-initialize: exit $?"
[ "$wf" = 1 ] || fail "submit --no-initialize printed '$wf'"
# The override: the missing input is a warning, and the workflow is created and initialized.
out=$("$torcrun" submit --url "$base" --ignore-missing-data "$diamond" 2>"$tmp/err") \
    || fail "submit --ignore-missing-data: exit $?: $(cat "$tmp/err")"
[ "$out" = 2 ] || fail "submit --ignore-missing-data printed '$out'"
expected=$(printf '%s\n' \
    "torcrun submit: $user_line" \
    "torcrun submit: warning: 1 required input file does not exist (read by a job, written by none); starting anyway (--ignore-missing-data):" \
    "torcrun submit: warning:   /Users/dthom/repos/torc/f1.json (file f1), read by preprocess")
[ "$(cat "$tmp/err")" = "$expected" ] || fail "submit --ignore-missing-data said: $(cat "$tmp/err")"
"$torcrun" status --url "$base" 2 --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["jobs"]["ready"] == 1 and d["jobs"]["blocked"] == 3, d' \
    || fail "the overridden workflow is not initialized"

# --- relative paths, present and missing, and outputs that exist already ------------------------
cat >pipe.json5 <<'JSON'
{name: "pipe",
 jobs: [
  {name: "split", command: "cat ${files.input.raw} ${files.input.extra} > ${files.output.part}"},
  {name: "sum", command: "wc -c < ${files.input.part} > ${files.output.total}"},
 ],
 files: [
  {name: "raw", path: "in/raw.txt"},
  {name: "extra", path: "in/extra.txt"},
  {name: "part", path: "part.txt"},
  {name: "total", path: "total.txt"},
 ]}
JSON
mkdir in
echo hello >in/raw.txt
expect_exit 2 "$(printf '%s\n' \
    "torcrun run: 1 required input file does not exist (read by a job, written by none):" \
    "torcrun run:   in/extra.txt (file extra), read by split" \
    "torcrun run: nothing was started: create it or correct the spec's paths, or pass --ignore-missing-data to start anyway")" \
    run pipe.json5 --output-dir P -q
[ ! -e P ] || fail "the refused run made P"
echo world >in/extra.txt
echo stale >total.txt
"$torcrun" run pipe.json5 --output-dir P -q >run.out 2>run.err || fail "run: exit $?: $(cat run.err)"
grep -v '^torcrun run: workflow 1 (output in ' run.err >warnings || true
[ "$(cat warnings)" = "$(printf '%s\n' \
    "torcrun run: warning: 1 output file exists already; torcrun leaves it as it is and the jobs may write over it:" \
    "torcrun run: warning:   total.txt (file total), written by sum")" ] \
    || fail "run's warnings: $(cat run.err)"
[ "$(cat part.txt)" = "$(printf 'hello\nworld')" ] || fail "part.txt: $(cat part.txt)"
[ "$(cat total.txt)" = 12 ] || fail "total.txt: $(cat total.txt)"
# A resumed run expects its outputs: no warning about them; its inputs are still checked.
"$torcrun" run pipe.json5 --resume --output-dir P -q >resume.out 2>resume.err \
    || fail "resume: exit $?: $(cat resume.err)"
! grep -q 'warning' resume.err || fail "resume warned: $(cat resume.err)"
mv in/raw.txt in/raw.moved
rc=0
"$torcrun" run pipe.json5 --resume --output-dir P -q >resume.out 2>resume.err || rc=$?
[ "$rc" = 2 ] && grep -qx 'torcrun run:   in/raw.txt (file raw), read by split' resume.err \
    || fail "resume without its input: exit $rc: $(cat resume.err)"
mv in/raw.moved in/raw.txt

# --- the override on torcrun run (-i, as Torc spells it): it starts, and the job that needs the file fails----
rm in/extra.txt
rc=0
"$torcrun" run pipe.json5 --output-dir Q -q -i >q.out 2>q.err || rc=$?
[ "$rc" = 1 ] || fail "run --ignore-missing-data: exit $rc, expected 1 (split fails): $(cat q.err)"
grep -qx 'torcrun run: warning: 1 required input file does not exist (read by a job, written by none); starting anyway (--ignore-missing-data):' q.err \
    || fail "run --ignore-missing-data said: $(cat q.err)"
grep -q 'in/extra.txt: No such file or directory' Q/jobs/wf1_j1/r0_a1/stderr \
    || fail "split's stderr: $(cat Q/jobs/wf1_j1/r0_a1/stderr)"
echo ok
