#!/usr/bin/env bash
# The HTML report (issue 13 §5): `torcrun run` on 2 fake GPUs (CUDA_VISIBLE_DEVICES=3,5, as a
# direct worker reads them: ids that lowest-free-first lanes 0, 1 would not guess) with a
# failing job, a retried job (2 attempts), GPU jobs that echo the CUDA_VISIBLE_DEVICES they got
# and a job busy for 2.2 s (the jobs sampled every second) writes D/report.html; `torcrun report WF --html FILE --output-dir D`
# writes the same page elsewhere, its log links relative to FILE; against a `torcrun server` on
# a copy of the run's database (`--url`) with D out of reach the page has the same bars, no log
# links, and GPU lanes 0 and 1 assigned (the ids are in the output directory's job records)
# with a note saying so; with D back, the compute node's recorded output_dir leads to the files. With the output directory the GPU lanes are the ids each job echoed, the busy job's chart
# has more than one point (its recorded usage too) and the allocation's CPU chart a line of the cores
# measured busy, and `torcrun jobs` shows the same GPU ids. Headless Chromium (Debian's `chromium`) opens the page: no
# console message (the check is first shown to catch one on a page with a script error), the
# DOM has one timeline bar per result row of the database (same job.run.attempt keys), GPU lane
# bars, the failed attempt's stderr link resolves to its file, and the screenshot is not blank:
# many distinct colours, among them the bars' completed green and failed red.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
trap 'kill_servers; rm -rf "$tmp"' EXIT
cd "$tmp"
unset TORC_API_URL

if ! command -v chromium >/dev/null; then
    source "$(dirname "$0")/../../scripts/lib.sh"
    ensure_packages chromium >/dev/null 2>&1 || true
fi
if ! command -v chromium >/dev/null; then
    echo "SKIP: chromium is not installed and cannot be (scripts/lib.sh ensure_packages chromium)"
    exit 0
fi

chrome() {  # chrome ARGS... URL: headless, console messages on stderr
    timeout 120 chromium --headless --disable-gpu --no-sandbox --enable-logging=stderr --v=0 \
        --user-data-dir="$tmp/chrome-profile" "$@"
}
console_messages() { grep -E ':CONSOLE[:(]' "$1" || true; }

# The console check catches a script error.
echo '<html><body><script>nonexistent_function();</script></body></html>' >"$tmp/bad.html"
chrome --dump-dom "file://$tmp/bad.html" >/dev/null 2>"$tmp/bad.err"
console_messages "$tmp/bad.err" | grep -q 'nonexistent_function' ||
    fail "no console error seen for a broken page: $(tail -5 "$tmp/bad.err")"

cat >"$tmp/wf.json" <<SPEC
{"name": "report <&> test",
 "resource_monitor": {"enabled": true, "granularity": "summary", "sample_interval_seconds": 1},
 "failure_handlers": [{"name": "again", "rules": [{"exit_codes": [10], "max_retries": 2}]}],
 "resource_requirements": [
   {"name": "g1", "num_cpus": 1, "num_gpus": 1, "num_nodes": 1, "memory": "1m", "runtime": "PT1M"},
   {"name": "g2", "num_cpus": 1, "num_gpus": 2, "num_nodes": 1, "memory": "1m", "runtime": "PT1M"},
   {"name": "c1", "num_cpus": 1, "num_gpus": 0, "num_nodes": 1, "memory": "1m", "runtime": "PT1M"}],
 "jobs": [
   {"name": "gpu_<one>", "command": "echo cvd=\$CUDA_VISIBLE_DEVICES; sleep 0.4", "resource_requirements": "g1"},
   {"name": "gpu_two", "command": "echo cvd=\$CUDA_VISIBLE_DEVICES; sleep 0.3", "resource_requirements": "g2"},
   {"name": "gpu_three", "command": "echo cvd=\$CUDA_VISIBLE_DEVICES; sleep 0.2", "resource_requirements": "g1"},
   {"name": "two_seconds", "resource_requirements": "c1",
    "command": "python3 -c 'import time\nt = time.time()\nwhile time.time() - t < 2.2: pass'"},
   {"name": "broken", "command": "echo broken-stderr >&2; exit 3", "resource_requirements": "c1"},
   {"name": "after_broken", "command": "true", "depends_on": ["broken"], "resource_requirements": "c1"},
   {"name": "flaky", "failure_handler": "again", "resource_requirements": "c1",
    "command": "if [ -e $tmp/marker ]; then echo second; else touch $tmp/marker; exit 10; fi"},
   {"name": "busy", "command": "python3 -c 'x=[0]*10**6\nfor i in range(10**6): pass'", "resource_requirements": "c1"}]}
SPEC

rc=0
env -u SLURM_JOB_ID -u SLURM_JOBID CUDA_VISIBLE_DEVICES=3,5 timeout 120 \
    "$torcrun" run "$tmp/wf.json" --output-dir "$tmp/D" >"$tmp/run.out" 2>"$tmp/run.err" || rc=$?
[ "$rc" = 1 ] || fail "run exit $rc, expected 1: $(cat "$tmp/run.err")"
grep -qx "report:     $tmp/D/report.html" "$tmp/run.out" ||
    fail "no report line: $(cat "$tmp/run.out")"
[ -s "$tmp/D/report.html" ] || fail "D/report.html is missing"

mkdir "$tmp/elsewhere"
out=$("$torcrun" report 1 --output-dir "$tmp/D" --html "$tmp/elsewhere/r.html")
[ "$out" = "torcrun report: wrote $tmp/elsewhere/r.html" ] || fail "report: '$out'"
rc=0
out=$("$torcrun" report 1 --output-dir "$tmp/D" 2>&1) || rc=$?
[ "$rc" = 2 ] && [ "$out" = "torcrun report: --html FILE is required (where to write the page)" ] ||
    fail "report without --html: exit $rc '$out'"
rc=0
out=$("$torcrun" report 7 --output-dir "$tmp/D" --html "$tmp/x.html" 2>&1) || rc=$?
[ "$rc" = 1 ] && [ "$out" = "torcrun report: GET /workflows/7: HTTP 404: workflows: no workflow with id 7" ] ||
    fail "report of workflow 7: exit $rc '$out'"

cp "$tmp/D/torcrun.db" "$tmp/copy.db"
start_server "$tmp/copy.db"
# Against the server alone, with the worker's files out of reach (the directory its compute node
# recorded is gone): bars, but no links, charts or recorded GPU ids.
mv "$tmp/D" "$tmp/D.away"
out=$("$torcrun" report 1 --url "$base" --html "$tmp/url.html")
mv "$tmp/D.away" "$tmp/D"
[ "$out" = "torcrun report: wrote $tmp/url.html" ] || fail "report --url: '$out'"
grep -q 'class="log"' "$tmp/url.html" && fail "log links without the output directory"
[ "$(grep -o '<rect class="attempt"' "$tmp/url.html" | wc -l)" = 8 ] ||
    fail "report --url: $(grep -o '<rect class="attempt"' "$tmp/url.html" | wc -l) bars"
grep -q 'GPU 1</text>' "$tmp/url.html" && grep -q 'the device ids the jobs held are not at hand' "$tmp/url.html" ||
    fail "report --url: no assigned GPU lanes with their note"
grep -q 'class="series"' "$tmp/url.html" && fail "report --url: series charts without usage.json"
# With the files where the worker wrote them, the server's compute node record leads there
# (its scheduler object's output_dir): the recorded GPU ids, the charts and the log links.
out=$("$torcrun" report 1 --url "$base" --html "$tmp/elsewhere/url-found.html")
grep -q 'GPU lanes are the device ids each attempt held.' "$tmp/elsewhere/url-found.html" &&
    grep -q 'class="series"' "$tmp/elsewhere/url-found.html" &&
    grep -q 'class="log" href="../D/jobs/' "$tmp/elsewhere/url-found.html" ||
    fail "report --url did not find the files through the compute node's output_dir"

# The GPU ids each job echoed, as the worker recorded them (job_records/) and torcrun jobs shows.
python3 - "$tmp/D" "$("$torcrun" jobs 1 --output-dir "$tmp/D" --json)" <<'PY' || fail "GPU ids (above)"
import glob, json, os, sys
d, jobs = sys.argv[1], json.loads(sys.argv[2])
for j in jobs:
    if j["attempts"] == 0:  # after_broken never ran
        assert j["gpu_ids"] is None, f"{j['name']}: GPU ids {j['gpu_ids']} without an attempt"
        continue
    out = glob.glob(f"{d}/job_stdio/job_wf1_j{j['id']}_r0_a*.o")
    echoed = [l[4:] for o in out for l in open(o).read().splitlines() if l.startswith("cvd=")]
    want = echoed[0].split(",") if echoed else []
    assert j["gpu_ids"] == want, f"{j['name']}: torcrun jobs says {j['gpu_ids']}, it echoed {want}"
    if j["name"].startswith("gpu_"):
        assert want and set(want) <= {"3", "5"}, f"{j['name']} echoed {want}"
busy = next(j for j in jobs if j["name"] == "two_seconds")
usage = next(r["points"] for f in glob.glob(f"{d}/job_records/*.jsonl") for r in map(json.loads, open(f))
             if r["kind"] == "usage" and r["job_id"] == busy["id"])
assert len(usage["seconds"]) > 1, f"two_seconds' usage.json: {usage}"
assert max(usage["cpu_percent"]) > 20, f"two_seconds was busy: {usage}"
PY
table=$("$torcrun" jobs 1 --output-dir "$tmp/D")
echo "$table" | head -1 | grep -q ' NODE  *GPUS  *PEAK_RSS ' || fail "jobs heading: $(echo "$table" | head -1)"
echo "$table" | grep -Eq '^[0-9]+ +gpu_two .* (3,5|5,3) ' || fail "jobs: gpu_two's GPUs: $table"

# The page needs nothing from the network: no external URL in src or href.
! grep -Eo '(src|href)="[a-z]+://[^"]*' "$tmp/D/report.html" | grep -v 'http://www.w3.org/2000/svg' ||
    fail "the page references the network"

for page in "$tmp/D/report.html" "$tmp/elsewhere/r.html"; do
    chrome --dump-dom "file://$page" >"$tmp/dom.html" 2>"$tmp/dom.err" ||
        fail "chromium --dump-dom $page: $(tail -5 "$tmp/dom.err")"
    msgs=$(console_messages "$tmp/dom.err")
    [ -z "$msgs" ] || fail "console messages for $page: $msgs"
    python3 - "$tmp/D/torcrun.db" "$tmp/dom.html" "$page" <<'PY' || fail "DOM of $page (above)"
import os, re, sqlite3, sys
db, dom_path, page = sys.argv[1:4]
dom = open(dom_path).read()
rows = sqlite3.connect(db).execute(
    "SELECT job_id, run_id, attempt_id FROM result WHERE workflow_id = 1").fetchall()
expected = sorted(f"{j}.{r}.{a}" for j, r, a in rows)
bars = sorted(re.findall(r'<rect class="attempt" data-attempt="([0-9.]+)"', dom))
assert len(rows) == 8, f"{len(rows)} results in the database, expected 8 (flaky twice)"
assert bars == expected, f"timeline bars {bars}, results {expected}"
gpu = re.findall(r'<rect class="gpu-bar"', dom)
assert len(gpu) == 4, f"{len(gpu)} GPU lane bars, expected 4 (1 + 2 + 1)"
assert "GPU 0</text>" not in dom and "GPU 1</text>" not in dom, "assigned lanes, not the ids"
# Each GPU bar lies on the lanes of the ids its job echoed: walk lane labels and bars in order.
d = os.path.dirname(db)
lanes = {}
lane = None
for m in re.finditer(r'GPU ([^<]+)</text>|<rect class="gpu-bar" data-attempt="([0-9.]+)"', dom):
    if m.group(1): lane = m.group(1)
    else: lanes.setdefault(m.group(2), set()).add(lane)
for key, held in lanes.items():
    j, r, a = key.split(".")
    out = open(f"{d}/job_stdio/job_wf1_j{j}_r{r}_a{a}.o").read()
    echoed = set(next(l[4:] for l in out.splitlines() if l.startswith("cvd=")).split(","))
    assert held == echoed, f"attempt {key}: bars on GPU {held}, the job echoed {echoed}"
assert "GPU lanes are the device ids each attempt held." in dom
# The busy job's chart has more than one point.
busy = sqlite3.connect(db).execute("SELECT id FROM job WHERE name = 'two_seconds'").fetchone()[0]
points = re.findall(rf'<svg class="series" data-attempt="{busy}\.[0-9]+\.1" data-points="([0-9]+)"', dom)
assert points and int(points[0]) > 1, f"two_seconds' series: {points}"

assert "report &lt;&amp;&gt; test" in dom and "gpu_&lt;one&gt;" in dom, "names not escaped"
assert dom.count('class="usage cpus"') == 1 and dom.count('class="usage gpus"') == 1
# The CPU cores measured busy: the busy job kept most of a core for 2 s.
most = re.findall(r'<title>CPU cores measured busy, at most ([0-9.]+)</title>', dom)
assert most and float(most[0]) > 0.2, f"measured CPU line: {most}"
failed = re.findall(r'<rect class="attempt" data-attempt="[0-9.]+" data-status="failed"', dom)
assert len(failed) == 2, f"{len(failed)} failed bars, expected 2 (broken, flaky's first)"
links = re.findall(r'<a class="log" href="([^"]+/stderr)"', dom)
assert links, "no stderr link"
texts = [open(os.path.join(os.path.dirname(page), l)).read() for l in links]
assert "broken-stderr\n" in texts, f"stderr links {links} do not lead to broken's stderr"
PY
done

chrome --screenshot="$tmp/shot.png" --window-size=1000,900 "file://$tmp/D/report.html" \
    >/dev/null 2>"$tmp/shot.err" || fail "chromium --screenshot: $(tail -5 "$tmp/shot.err")"
cat >"$tmp/not_blank.py" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, width = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), f"PNG depth {depth} colour type {ctype}"
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride = zlib.decompress(idat), width * bpp
prev, colours, at = bytearray(stride), set(), 0
for _ in range(height):
    f, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
    at += 1 + stride
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    colours.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp))
    prev = line
assert len(colours) > 20, f"{len(colours)} distinct colours: blank?"
for name, rgb in (("completed green", "2e7d32"), ("failed red", "c62828")):
    assert bytes.fromhex(rgb) in colours, f"no {name} #{rgb} in the screenshot"
PY
python3 "$tmp/not_blank.py" "$tmp/shot.png" || fail "screenshot (above)"
# The check fails on a blank page.
echo '<html><body></body></html>' >"$tmp/blank.html"
chrome --screenshot="$tmp/blank.png" --window-size=1000,900 "file://$tmp/blank.html" \
    >/dev/null 2>"$tmp/blank.err" || fail "chromium --screenshot blank: $(tail -5 "$tmp/blank.err")"
python3 "$tmp/not_blank.py" "$tmp/blank.png" 2>/dev/null && fail "a blank screenshot passed the check"
echo "ok"
