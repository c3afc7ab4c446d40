#!/usr/bin/env bash
# `torcrun run` on the shipped examples, with stderr not a terminal: the diamond (exit 0, start
# times follow the edges), the GPU sweep with CUDA_VISIBLE_DEVICES=0,1,2,3 (each job saw one id,
# jobs that overlapped in time saw different ids), the failing jobs (exit 1, the summary names
# the failed job and its log directory, the canceled dependent never ran, the retried job
# succeeded on attempt 2), plain progress lines,
# a bad spec (exit 2 with file:line:col, no output directory) and the options torcrun run refuses.
set -euo pipefail
torcrun=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
examples=$(cd "$(dirname "$0")/../../examples" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

# run_example NAME EXPECTED-STATUS [ARGS...]: output in $tmp/NAME, stdout in $tmp/NAME.out,
# stderr in $tmp/NAME.err.
run_example() {
    local name=$1 expected=$2 rc=0; shift 2
    "$torcrun" run "$examples/$name.json5" --output-dir "$tmp/$name" --progress-interval 0.5 \
        "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
    [ "$rc" = "$expected" ] || fail "$name: exit $rc, expected $expected
$(cat "$tmp/$name.out" "$tmp/$name.err")"
}

# attempts OUTPUT: one JSON object per attempt the worker recorded (job_records/): name, its
# directory (where a failed attempt has one) and what its stdout said.
attempts() {
    python3 - "$1" <<'PY'
import glob, json, os, re, sys
out_dir = os.path.abspath(sys.argv[1])
for f in sorted(glob.glob(os.path.join(out_dir, "job_records", "*.jsonl"))):
    for r in map(json.loads, open(f)):
        if r["kind"] != "attempt":
            continue
        name = re.search(r"^\+ TORC_JOB_NAME=(.*)$", r["environment"], re.M).group(1)
        key = "wf%d_j%d" % (r["workflow_id"], r["job_id"]), "r%d_a%d" % (r["run_id"], r["attempt_id"])
        d = os.path.join(out_dir, "jobs", *key)
        out = open(os.path.join(out_dir, "job_stdio", "job_%s_%s.o" % key)).read()
        fields = dict(re.findall(r"(\w+)=(\S*)", out))
        print(json.dumps({"name": name, "dir": d, **fields}))
PY
}

# --- the diamond -------------------------------------------------------------------------------
run_example diamond 0
grep -qx '  completed 4' diamond.out || fail "diamond summary: $(cat diamond.out)"
grep -qx "database:   $tmp/diamond/torcrun.db" diamond.out || fail "database line: $(cat diamond.out)"
grep -qx "worker log: $tmp/diamond/worker.log" diamond.out || fail "worker log line"
[ -s diamond/worker.log ] && [ -s diamond/torcrun.db ] || fail "worker.log or torcrun.db missing"
attempts diamond >diamond.attempts
python3 - diamond.attempts <<'PY' || fail "diamond order: $(cat diamond.attempts)"
import json, sys
jobs = {j["name"]: j for j in map(json.loads, open(sys.argv[1]))}
assert sorted(jobs) == ["postprocess", "preprocess", "work1", "work2"], sorted(jobs)
t = {n: (float(j["start"]), float(j["end"])) for n, j in jobs.items()}
for child, parent in [("work1", "preprocess"), ("work2", "preprocess"),
                      ("postprocess", "work1"), ("postprocess", "work2")]:
    assert t[child][0] >= t[parent][1], (child, parent, t)
PY
# Not a terminal: plain progress lines, none rewritten in place.
grep -Eq '^torcrun run: \[[0-9]+s\] done [0-9]/4  running [0-9]  failed 0  remaining [0-9]  ' \
    diamond.err || fail "no progress line: $(cat diamond.err)"
grep -qx 'torcrun run: \[[0-9]*s\] done 4/4  running 0  failed 0  remaining 0  .* jobs/s  ETA 0s' \
    diamond.err || fail "no final progress line: $(cat diamond.err)"
[ "$(grep -c $'\r' diamond.err || true)" = 0 ] || fail "carriage returns off a terminal"
[ "$(grep -c '^torcrun run: \[' diamond.err)" -ge 3 ] || fail "too few progress lines"

# On a terminal (script(1) gives it one): one line rewritten in place, ended once at the end.
script -qec "'$torcrun' run '$examples/diamond.json5' --output-dir '$tmp/tty' >/dev/null" \
    /dev/null >tty.err </dev/null || fail "diamond on a terminal: $(cat -v tty.err)"
python3 - tty.err <<'PY' || fail "terminal progress: $(cat -v tty.err)"
import re, sys
text = open(sys.argv[1], "rb").read().decode()
lines = text.split("\r\n")  # the terminal turns each \n into \r\n
progress = [l for l in lines if "torcrun run: [" in l]
assert len(progress) == 1, progress  # every update stays on one line
updates = progress[0].split("\r")[1:]
assert len(updates) >= 3, updates
assert all(u.endswith("\x1b[K") for u in updates), updates
assert re.fullmatch(r"torcrun run: \[\d+s\] done 4/4  running 0  failed 0  remaining 0  "
                    r"[0-9.]+ jobs/s  ETA 0s\x1b\[K", updates[-1]), updates[-1]
PY

# --- the GPU sweep -----------------------------------------------------------------------------
CUDA_VISIBLE_DEVICES=0,1,2,3 run_example gpu_sweep 0 --set resources.cpus=4
grep -qx '  completed 12' gpu_sweep.out || fail "sweep summary: $(cat gpu_sweep.out)"
attempts gpu_sweep >gpu_sweep.attempts
python3 - gpu_sweep.attempts <<'PY' || fail "sweep GPU ids: $(cat gpu_sweep.attempts)"
import json, sys
jobs = [json.loads(l) for l in open(sys.argv[1])]
assert len(jobs) == 12, len(jobs)
for j in jobs:
    assert j["gpus"] in {"0", "1", "2", "3"}, j  # exactly one id each
def overlap(a, b):
    return float(a["start"]) < float(b["end"]) and float(b["start"]) < float(a["end"])
for i, a in enumerate(jobs):
    for b in jobs[i + 1:]:
        assert not overlap(a, b) or a["gpus"] != b["gpus"], (a, b)
# The most running at once (a job prints its end before it exits, so a successor on the same id
# always starts after it): four ids and four CPUs give four.
events = sorted([(float(j["start"]), 1) for j in jobs] + [(float(j["end"]), -1) for j in jobs])
running = most = 0
for _, step in events:
    running += step
    most = max(most, running)
assert most == 4, most
PY

# --- failing jobs ------------------------------------------------------------------------------
run_example failing_jobs 1 --set limits.idle_timeout_seconds=5
broken_dir=$(attempts failing_jobs | python3 -c 'import json, sys
print(*[j["dir"] for j in map(json.loads, sys.stdin) if j["name"] == "broken"])')
[ -n "$broken_dir" ] || fail "no attempt directory for broken"
grep -qx "  broken (job 1): failed, return code 3, logs $broken_dir" failing_jobs.out ||
    fail "summary without broken's line: $(cat failing_jobs.out)"
grep -qx '  after_broken (job 3): canceled, never ran' failing_jobs.out ||
    fail "summary without after_broken's line: $(cat failing_jobs.out)"
grep -qx 'this job always fails' "$broken_dir/stderr" || fail "broken's stderr"
grep -qx 'jobs that did not complete:' failing_jobs.out || fail "no list header"
grep -qx '  completed 2 failed 1 canceled 1' failing_jobs.out ||
    fail "failing_jobs counts: $(cat failing_jobs.out)"
# The last progress line counts as the summary: failed and canceled apart.
tail -n1 failing_jobs.err | grep -Eq '^torcrun run: \[[0-9]+s\] done 2/4  running 0  failed 1  canceled 1  remaining 0  ' ||
    fail "failing_jobs progress: $(tail -n1 failing_jobs.err)"
# flaky failed with 10 on attempt 1, the handler retried it, attempt 2 succeeded.
flaky=$(cd failing_jobs/job_stdio && echo job_wf1_j2_*.o)
[ "$flaky" = 'job_wf1_j2_r0_a1.o job_wf1_j2_r0_a2.o' ] || fail "flaky attempts: $flaky"
[ "$(cd failing_jobs/jobs/wf1_j2 && echo *)" = r0_a1 ] || fail "flaky's failed attempt's directory"
grep -qx 'attempt 1' failing_jobs/job_stdio/job_wf1_j2_r0_a1.o || fail "flaky attempt 1 stdout"
grep -qx 'attempt 2' failing_jobs/job_stdio/job_wf1_j2_r0_a2.o || fail "flaky attempt 2 stdout"
grep -qx 'flaky succeeded in the end' failing_jobs/job_stdio/job_wf1_j4_r0_a1.o || fail "after_flaky"

# --- bad input ---------------------------------------------------------------------------------
printf '{\n  name: "x",\n  jobs: [ { name: "a" command: "true" } ]\n}\n' >bad.json5
rc=0
"$torcrun" run bad.json5 --output-dir bad >bad.out 2>bad.err || rc=$?
[ $rc = 2 ] || fail "bad spec: exit $rc"
grep -Eq '^torcrun run: bad\.json5:3:[0-9]+: ' bad.err || fail "bad spec message: $(cat bad.err)"
[ ! -e bad ] || fail "a bad spec created the output directory"
[ ! -s bad.out ] || fail "a bad spec printed a summary"
expect_usage() {  # expect_usage MESSAGE ARGS...
    local message=$1 rc=0; shift
    "$torcrun" run "$@" >/dev/null 2>usage.err || rc=$?
    [ $rc = 2 ] || fail "run $*: exit $rc"
    [ "$(cat usage.err)" = "$message" ] || fail "run $*: $(cat usage.err)"
}
expect_usage 'torcrun run: a spec file is required (torcrun run SPEC)'
expect_usage 'torcrun run: --url: torcrun run starts its own server and workflow; use torcrun worker to join another' \
    "$examples/diamond.json5" --url http://127.0.0.1:1/torc-service/v1
expect_usage 'torcrun run: --progress-interval: 0.000000 is out of range (0.1 to 3600)' \
    "$examples/diamond.json5" --progress-interval 0
expect_usage 'torcrun run: nothing.json5: cannot read: No such file or directory' nothing.json5
echo "t0601: ok"
