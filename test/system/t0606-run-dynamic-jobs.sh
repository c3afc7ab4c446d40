#!/usr/bin/env bash
# Dynamic jobs end to end with `torcrun run`: Torc's own example
# (test/data/torc-newest/examples/yaml/dynamic_orchestrator_local.yaml, its scripts unchanged) with
# torcrun's `torc` Python module on PYTHONPATH. Two seed orchestrators (caseA, caseB) each spawn
# reeds -> pras -> next orchestrator until the mock PRAS metric 0.5 * 0.25^(g-1) falls below 0.01,
# at generation 4, as Torc's docs describe: 2 declared + 2 x 4 x 3 spawned = 26 jobs, all
# completed; each lineage has generation records 1..4 and a final record {converged, final_metric
# 0.0078125, generation 4}; `jobs --json`, `jobs`, `status` and the report show the spawned jobs'
# origin. Then the cap: an orchestrator (a shell script calling `torcrun spawn-jobs`) that never
# converges under max_iterations 2 is refused on its third spawn with the cap's message, and the
# run fails on it.
set -euo pipefail
torcrun=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || fail "jq is missing (scripts/lib.sh installs it)"
export PATH="$(dirname "$torcrun"):$PATH" PYTHONPATH="$root/python" TORC_DEMO_WORK_SECS=0

cd "$root/test/data/torc-newest"
rc=0
timeout 300 "$torcrun" run examples/yaml/dynamic_orchestrator_local.yaml --output-dir "$tmp/out" \
    -q >"$tmp/run.out" 2>"$tmp/run.err" || rc=$?
[ "$rc" = 0 ] || fail "run exit $rc: $(tail -20 "$tmp/run.err") $(cat "$tmp/run.out")"
grep -q "26 jobs" "$tmp/run.out" || fail "not 26 jobs: $(cat "$tmp/run.out")"
grep -q "completed 26" "$tmp/run.out" || fail "not all completed: $(cat "$tmp/run.out")"

"$torcrun" jobs 1 --output-dir "$tmp/out" --json >"$tmp/jobs.json"
python3 - "$tmp/jobs.json" <<'PY'
import json, sys
jobs = json.load(open(sys.argv[1]))
by_name = {j["name"]: j for j in jobs}
assert len(by_name) == 26 == len(jobs), sorted(by_name)
expected = {"orch_caseA_g00", "orch_caseB_g00"}
for case in ("caseA", "caseB"):
    for g in range(1, 5):
        expected |= {f"reeds_{case}_i{g:02d}", f"pras_{case}_i{g:02d}", f"orch_{case}_g{g:02d}"}
assert set(by_name) == expected, sorted(set(by_name) ^ expected)
assert all(j["status"] == "completed" for j in jobs)
for name, j in by_name.items():
    if name.endswith("_g00"):
        assert "origin" not in j, j
        continue
    assert j["origin"] == "spawn", j
    # each spawned job was made by the orchestrator of the generation before it
    case, n = name.split("_")[1], int(name[-2:])
    parent = by_name[f"orch_{case}_g{n - 1:02d}"]
    assert j["spawned_by_job_id"] == parent["id"], (name, j["spawned_by_job_id"], parent["id"])
PY
"$torcrun" jobs 1 --output-dir "$tmp/out" >"$tmp/jobs.txt"
head -1 "$tmp/jobs.txt" | grep -q "ORIGIN" || fail "no ORIGIN column: $(head -1 "$tmp/jobs.txt")"
grep -q "^[0-9]* *pras_caseA_i04 .* spawn by [0-9]" "$tmp/jobs.txt" || fail "$(cat "$tmp/jobs.txt")"
"$torcrun" status 1 --output-dir "$tmp/out" >"$tmp/status.txt"
grep -q "spawned by orchestrator jobs (spawn_jobs): 24 " "$tmp/status.txt" ||
    fail "status: $(cat "$tmp/status.txt")"
grep -q "spawn by " "$tmp/out/report.html" || fail "the report shows no origin"

sqlite3_rows() { python3 -c 'import sqlite3,sys; [print("|".join(map(str,r))) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])]' "$@"; }
sqlite3_rows "$tmp/out/torcrun.db" "SELECT name, data FROM user_data ORDER BY name" >"$tmp/records.txt"
python3 - "$tmp/records.txt" <<'PY'
import json, sys
rows = dict(line.rstrip("\n").split("|", 1) for line in open(sys.argv[1]))
for case in ("caseA", "caseB"):
    gens = sorted(k for k in rows if k.startswith(f"__torc_lineage__{case}__g"))
    assert gens == [f"__torc_lineage__{case}__g{g:06d}" for g in range(1, 5)], gens
    assert json.loads(rows[gens[-1]])["state"]["generation"] == 4
    final = json.loads(rows[f"__torc_lineage__{case}__final"])
    assert final["final"] is True and final["generation"] == 4, final
    assert final["state"]["converged"] is True and final["state"]["generation"] == 4, final
    assert abs(final["state"]["final_metric"] - 0.0078125) < 1e-6, final
PY
for case in caseA caseB; do
    metric=$(jq -r .metric "$tmp/out/dynamic_demo/$case/pras_i04.json")
    [ "$metric" = "0.007812" ] || fail "$case pras_i04 metric $metric"
    [ ! -e "$tmp/out/dynamic_demo/$case/pras_i05.json" ] || fail "$case ran past convergence"
done

# The cap: max_iterations 2, an orchestrator that always spawns its continuation.
cat >"$tmp/forever.sh" <<'SH'
#!/usr/bin/env bash
set -euo pipefail
n=$(torcrun spawn-jobs --generation --lineage loop)
next=$((n + 1))
printf '{"lineage":"loop","state":{"n":%d},"jobs":[{"name":"step_%d","command":"bash %s"}]}' \
    "$next" "$next" "$0" | torcrun spawn-jobs -
SH
cat >"$tmp/forever.yaml" <<EOF2
name: forever
dynamic_jobs: {max_iterations: 2}
jobs:
  - name: step_0
    command: bash $tmp/forever.sh
EOF2
rc=0
timeout 120 "$torcrun" run "$tmp/forever.yaml" --output-dir "$tmp/out2" -q >"$tmp/run2.out" \
    2>"$tmp/run2.err" || rc=$?
[ "$rc" = 1 ] || fail "capped run exit $rc: $(cat "$tmp/run2.out" "$tmp/run2.err")"
"$torcrun" jobs 1 --output-dir "$tmp/out2" --json >"$tmp/jobs2.json"
python3 - "$tmp/jobs2.json" <<'PY'
import json, sys
jobs = {j["name"]: j["status"] for j in json.load(open(sys.argv[1]))}
assert jobs == {"step_0": "completed", "step_1": "completed", "step_2": "failed"}, jobs
PY
stderr=$(cat "$tmp"/out2/jobs/wf1_j3/r*_a1/stderr*)
expected='spawn_jobs: per-lineage iteration cap reached for lineage "loop": attempted iteration 3 exceeds dynamic_jobs.max_iterations=2 (current spawn_count=2)'
[[ $stderr == *"$expected"* ]] || fail "the cap's message: $stderr"
echo "PASS"
