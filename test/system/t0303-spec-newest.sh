#!/usr/bin/env bash
# `torcrun spec` on Torc's newest example specs (test/data/torc-newest: workflow variables,
# native parameter lists, parameters_file tables, a multi-node Slurm test of single-node jobs),
# run from the copy of Torc's repository root as Torc's docs say, so the tables' relative paths
# resolve; the refusals of the new keys with exit 2 and their messages; then one `torcrun run`
# of a small spec using variables, a native list and a CSV table, whose jobs really run.
set -euo pipefail
torcrun=$1
newest=$(cd "$(dirname "$0")/../data/torc-newest" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset TORC_API_URL

summary() {  # summary SPEC: the first line of `torcrun spec SPEC`, run in $newest
    local out
    out=$(cd "$newest" && USER=tester "$torcrun" spec "$1") || return 1
    printf '%s\n' "${out%%$'\n'*}"
}
expect_summary() {  # expect_summary SPEC JOBS FILES USER_DATA
    local line
    line=$(summary "$1") || fail "$1: torcrun spec failed"
    grep -q "^workflow \"[a-z_]*\" (user tester): $2 jobs, $3 files, $4 user data," <<<"$line" \
        || fail "$1: $line"
}
expect_summary examples/yaml/variables_demo.yaml 6 1 0
expect_summary examples/json/variables_demo.json 6 1 0
expect_summary examples/json/variables_demo.json5 6 1 0
expect_summary examples/yaml/parameterized_from_csv.yaml 4 4 0
expect_summary examples/yaml/parameterized_from_json.yaml 4 0 0
expect_summary examples/yaml/parameterized_shared_table.yaml 9 4 0
expect_summary examples/yaml/parameterized_user_data.yaml 3 0 3
expect_summary examples/yaml/hyperparameter_sweep.yaml 38 38 0
expect_summary examples/yaml/fan_in_with_regexes.yaml 30 30 0
expect_summary examples/yaml/zip_parameter_mode.yaml 8 6 0
expect_summary examples/json/zip_parameter_mode.json5 6 3 0
expect_summary slurm-tests/workflows/multi_node_parallel.yaml 40 0 0

out=$(cd "$newest" && "$torcrun" spec examples/json/variables_demo.json5)
grep -qx '    command: python aggregate.py --in /shared/proj42/results --tag proj42' <<<"$out" \
    || fail "variables in a command: $out"
grep -qx 'env: PROJECT="proj42" IMAGE="pytorch:2.4"' <<<"$out" || fail "variables in env: $out"
out=$(cd "$newest" && "$torcrun" spec --json examples/yaml/parameterized_shared_table.yaml)
grep -q '"name":"eval_vit_imagenet_bs32","command":"echo \\"eval vit on imagenet\\""' <<<"$out" \
    || fail "shared table job: $out"

expect_error() {  # expect_error MESSAGE SPEC (run in $tmp)
    local out rc
    set +e
    out=$(cd "$tmp" && "$torcrun" spec "$2" 2>&1); rc=$?
    set -e
    [ $rc -eq 2 ] || fail "spec $2 exits $rc, expected 2: $out"
    [ "$out" = "$1" ] || fail "spec $2: got '$out', expected '$1'"
}
# The table path is the working directory's, as in Torc: from elsewhere it is not found.
cp "$newest/examples/yaml/parameterized_from_csv.yaml" "$tmp/from_csv.yaml"
expect_error "torcrun spec: from_csv.yaml:26:22: jobs[0] \"train_{model}_{dataset}_bs{batch_size}\": field \"parameters_file\": examples/parameter_tables/sweep.csv: cannot read: No such file or directory" from_csv.yaml
printf 'model,lr\nresnet\n' >"$tmp/short.csv"
printf 'name: w\njobs:\n  - {name: "t_{model}", command: x, parameters_file: short.csv}\n' >"$tmp/short.yaml"
expect_error "torcrun spec: short.yaml:3:54: jobs[0] \"t_{model}\": field \"parameters_file\": short.csv:2: row 1 has 1 cell, the header has 2" short.yaml
printf 'name: w\nvariables: {root: /d}\njobs:\n  - {name: a, command: "ls {rot}"}\n' >"$tmp/typo.yaml"
expect_error "torcrun spec: typo.yaml:4:24: jobs[0] command: undefined template name {rot} in \"ls {rot}\": neither a workflow variable nor a parameter (add it to \"variables\" or fix the typo)" typo.yaml
printf 'name: w\njobs:\n  - {name: m, command: x, parameters: {i: [1, 2]}}\n' >"$tmp/dup.yaml"
expect_error "torcrun spec: dup.yaml:3:5: jobs[0] \"m\": expansions 1 and 2 of this entry are both named \"m\"; names must be unique after expansion (for a fan-in, drop the waiting job's parameters and use depends_on_regexes), as newer Torc requires of a spec with its keys (here a native list in \"parameters\" at dup.yaml:3:43)" dup.yaml

# One run end to end: variables, a native list and a CSV table, and a job gathering them all.
mkdir "$tmp/out"
printf 'model,lr\nresnet,0.001\nvit,0.0001\n' >"$tmp/sweep.csv"
cat >"$tmp/run.yaml" <<YAML
name: newest_run
variables:
  out: $tmp/out
jobs:
  - name: make_{i:02d}_{word}
    command: echo {word} {i} > {out}/make_{i:02d}_{word}.txt
    parameters:
      i: [1, 2]
      word: [alpha, beta]
  - name: row_{model}
    command: echo {model} lr={lr} > {out}/row_{model}.txt
    parameters_file: sweep.csv
  - name: gather
    command: cat {out}/make_*.txt {out}/row_*.txt > {out}/all.txt
    depends_on_regexes: ["^make_", "^row_"]
YAML
(cd "$tmp" && "$torcrun" run run.yaml --output-dir D -q >run.out 2>run.err) \
    || fail "run: exit $?: $(cat "$tmp/run.err")"
expected=$'alpha 1\nbeta 1\nalpha 2\nbeta 2\nresnet lr=0.001\nvit lr=0.0001'
[ "$(cat "$tmp/out/all.txt")" = "$expected" ] || fail "gathered: $(cat "$tmp/out/all.txt")"
grep -q 'completed 7' "$tmp/run.out" || fail "run summary: $(cat "$tmp/run.out")"
echo "ok"
