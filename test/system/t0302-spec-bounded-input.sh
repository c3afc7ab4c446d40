#!/usr/bin/env bash
# Bounded input for `torcrun spec`: a YAML alias bomb, ten templates of a million jobs each and
# specs just past 10,000,000 dependency edges (explicit and implied) are refused with the limit
# named and exit 2, within 1 GB of address space; deep nesting is an error; 2,000 jobs with dense dependencies (every job listing all before it by name, stages of
# 100 by name and by regex, 1,000 jobs waiting for 1,000 through one regex) expand in bounded
# CPU time (generous here: the 1 s target is bench/spec_dense_deps.sh's).
set -euo pipefail
torcrun=$1
gen_spec=$(cd "$(dirname "$0")/../../bench" && pwd)/gen_spec.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_refusal FILE MESSAGE: exit 2 and exactly MESSAGE, under `ulimit -v 1000000` (KB); on a
# sanitized build (TORCRUN_SANITIZED) under ASan's hard_rss_limit_mb instead, with room for its
# shadow memory (a breach is an ASan report, which fails the test).
expect_refusal() {
    local out rc
    set +e
    if [ -n "${TORCRUN_SANITIZED:-}" ]; then
        out=$(ASAN_OPTIONS="${ASAN_OPTIONS:-}:hard_rss_limit_mb=2000" timeout 360 "$torcrun" spec "$1" 2>&1)
        rc=$?
    else
        out=$( (ulimit -v 1000000; timeout 120 "$torcrun" spec "$1") 2>&1); rc=$?
    fi
    set -e
    [ $rc -eq 2 ] || fail "spec $1 exits $rc, expected 2: $out"
    [ "$out" = "$2" ] || fail "spec $1: got '$out', expected '$2'"
}

# The classic "billion laughs": 9^9 strings once expanded.
{
    printf 'name: bomb\njobs: [{name: a, command: "true"}]\nuser_data:\n  - name: laughs\n    data:\n'
    printf '      a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    previous=a
    for level in b c d e f g h i; do
        printf '      %s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n' "$level" "$level" \
            "$previous" "$previous" "$previous" "$previous" "$previous" "$previous" "$previous" \
            "$previous" "$previous"
        previous=$level
    done
} >"$tmp/bomb.yaml"
[ "$(wc -c <"$tmp/bomb.yaml")" -lt 600 ] || fail "the bomb is $(wc -c <"$tmp/bomb.yaml") bytes"
expect_refusal "$tmp/bomb.yaml" "torcrun spec: $tmp/bomb.yaml:12:14: this alias would bring the nodes copied by YAML aliases to 1270459, past torcrun's limit of 1000000 (an alias bomb?); write the values out or use fewer aliases"

python3 -c '
import json
print(json.dumps({"name": "w", "jobs": [
    {"name": "t%d_{i}" % k, "command": "echo {i}", "parameters": {"i": "1:1000000"}}
    for k in range(10)]}, indent=1))' >"$tmp/ten.json"
expect_refusal "$tmp/ten.json" "torcrun spec: $tmp/ten.json:11:3: jobs[1] \"t1_{i}\": its 1000000 expansions take the spec past torcrun's limit of 1000000 jobs (1000000 before it, 10000000 from all templates)"

# Just past 10,000,000 dependency edges, explicit (3,163 jobs waiting for 3,163 through one
# regex) and implied (3,163 readers of a file that 3,163 jobs write).
python3 "$gen_spec" fan 3163 >"$tmp/edges.json"
expect_refusal "$tmp/edges.json" "torcrun spec: $tmp/edges.json:1:115: jobs[1] \"stage2_{i}\" as \"stage2_3161\": its 3163 dependencies bring the spec to 10001406 dependency edges, past torcrun's limit of 10000000"
python3 -c '
import json
each = {"i": "1:3163"}
print(json.dumps({"name": "w", "files": [{"name": "f", "path": "/f"}], "jobs": [
    {"name": "w_{i}", "command": "x", "output_files": ["f"], "parameters": each},
    {"name": "r_{i}", "command": "x", "input_files": ["f"], "parameters": each}]}))' \
    >"$tmp/implied.json"
expect_refusal "$tmp/implied.json" "torcrun spec: $tmp/implied.json:1:153: jobs[1] \"r_{i}\" as \"r_3162\": the writers of its input files and user data bring the spec to 10001406 dependency edges (0 explicit, 10001406 implied so far), past torcrun's limit of 10000000"

# 100,000 levels of nesting: an error at level 257, not a stack overflow.
{ head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; } >"$tmp/deep.yaml"
expect_refusal "$tmp/deep.yaml" "torcrun spec: $tmp/deep.yaml:1:257: nesting is deeper than 256 sequences and mappings"
for ext in json json5; do
    head -c 100000 /dev/zero | tr '\0' '[' >"$tmp/deep.$ext"
    expect_refusal "$tmp/deep.$ext" "torcrun spec: $tmp/deep.$ext:1:257: nesting is deeper than 256 arrays and objects"
done

# dense NAME SUMMARY EDGES: `torcrun spec` on $tmp/NAME.json prints SUMMARY and EDGES as its first
# lines within 10 s of CPU (today's 2,000-job triangle took 13 s before the fix), times
# TORCRUN_TEST_TIME_FACTOR on a sanitized build (there the linear expansion takes about 13 s).
dense() {
    local cpu
    TIMEFORMAT='%3U %3S'
    { time timeout 120 "$torcrun" spec "$tmp/$1.json" >"$tmp/$1.out" 2>&1; } 2>"$tmp/$1.time" ||
        fail "spec $1: $(head -c 2000 "$tmp/$1.out")"
    [ "$(sed -n 1p "$tmp/$1.out")" = "$2" ] || fail "$1 summary: $(sed -n 1p "$tmp/$1.out")"
    [ "$(sed -n 2p "$tmp/$1.out")" = "$3" ] || fail "$1 edges: $(sed -n 2p "$tmp/$1.out")"
    cpu=$(awk '{ print $1 + $2 }' "$tmp/$1.time")
    echo "$1: $cpu s of CPU"
    awk -v c="$cpu" -v f="${TORCRUN_TEST_TIME_FACTOR:-1}" 'BEGIN { exit !(c < 10 * f) }' ||
        fail "$1 took $cpu s of CPU"
}
jobs_line() {
    echo "workflow \"$1\" (user ${USER:-unknown}): 2000 jobs, 0 files, 0 user data, 0 resource requirements, 0 Slurm schedulers, 0 failure handlers, 0 actions"
}
python3 "$gen_spec" triangle 2000 >"$tmp/triangle.json"
dense triangle "$(jobs_line bench_triangle_2000)" \
    "edges: 1999000 explicit, 0 implied, 1999000 in all; 2000 bulk_jobs batches"
python3 "$gen_spec" staged 20 100 >"$tmp/staged.json"
dense staged "$(jobs_line bench_staged_20x100)" \
    "edges: 190000 explicit, 0 implied, 190000 in all; 20 bulk_jobs batches"
python3 "$gen_spec" fan 1000 >"$tmp/fan.json"
dense fan "$(jobs_line bench_fan_1000)" \
    "edges: 1000000 explicit, 0 implied, 1000000 in all; 2 bulk_jobs batches"
grep -qx '    stage2_999 -> stage1_999' "$tmp/fan.out" || fail "fan: the last edge is missing"
echo PASS
