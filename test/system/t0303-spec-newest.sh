#!/usr/bin/env bash
# `torcrun spec` on Torc's newest example specs (test/data/torc-newest: workflow variables,
# native parameter lists, parameters_file tables, a multi-node Slurm test of single-node jobs),
# run from the copy of Torc's repository root as Torc's docs say, so the tables' relative paths
# resolve; Torc v0.25.1's KDL examples (test/data/torc-newest/kdl) with the warning for the
# `depends_on_job` nodes Torc's code never reads; the refusals of the new keys and of bad KDL with
# exit 2 and their messages; then one `torcrun run` of a small spec using variables, a native list
# and a CSV table, and one of a small KDL spec, whose jobs really run.
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
    grep -q "^workflow \"[A-Za-z_ -]*\" (user tester): $2 jobs\( ([^)]*)\)\?, $3 files, $4 user data," \
        <<<"$line" || fail "$1: $line"
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
expect_summary kdl/diamond_workflow.kdl 4 6 0
expect_summary kdl/failure_handler_simulation.kdl 10 0 0
expect_summary kdl/hundred_jobs_parameterized.kdl 101 0 0
expect_summary kdl/hyperparameter_sweep.kdl 21 38 0
expect_summary kdl/hyperparameter_sweep_shared_params.kdl 21 38 0
expect_summary kdl/mixed_workload.kdl 121 0 0
expect_summary kdl/sample_workflow.kdl 3 5 3
expect_summary kdl/simple_slurm.kdl 3 0 0
expect_summary kdl/slurm_staged_pipeline.kdl 5 7 0
expect_summary kdl/workflow_actions_data_pipeline.kdl 3 0 0
expect_summary kdl/workflow_actions_ml_training.kdl 5 0 0
expect_summary kdl/workflow_actions_simple.kdl 3 0 0
expect_summary kdl/workflow_actions_simple_slurm.kdl 3 0 0
expect_summary kdl/zip_parameter_mode.kdl 6 3 0
out=$(cd "$newest" && "$torcrun" spec kdl/hyperparameter_sweep.kdl)
grep -qx '  kdl/hyperparameter_sweep.kdl:94:5: job "aggregate_results": node "depends_on_job" is not one Torc reads here; ignored, as Torc ignores it (did you mean "depends_on"?)' <<<"$out" \
    || fail "depends_on_job warning: $out"

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
printf 'name "w"\njob "a" {\n    command true\n}\n' >"$tmp/v1.kdl"
expect_error 'torcrun spec: v1.kdl:3:13: true is not a value in KDL 2: write #true, or "true" for the string' v1.kdl
printf 'name "w"\nfile "f"\njob "a" {\n    command "x"\n}\n' >"$tmp/nopath.kdl"
expect_error 'torcrun spec: nopath.kdl:2:1: file "f": a file must have a path: path="..." or a path node' nopath.kdl
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

# One KDL run end to end: a parameterized job, a file written and read (an implied edge) and an
# explicit dependency.
mkdir "$tmp/kout"
cat >"$tmp/run.kdl" <<KDL
name "kdl_run"
file "numbers" path="$tmp/kout/numbers.txt"
job "count_{i}" {
    command #"echo "n={i}" >> $tmp/kout/counts.txt"#
    parameters {
        i "1:3"
    }
}
job "write" {
    command "seq 3 > \${files.output.numbers}"
}
job "sum" {
    command "cat \${files.input.numbers} $tmp/kout/counts.txt > $tmp/kout/sum.txt"
    depends_on_regexes "^count_"
}
KDL
(cd "$tmp" && "$torcrun" run run.kdl --output-dir K -q >krun.out 2>krun.err) \
    || fail "kdl run: exit $?: $(cat "$tmp/krun.err")"
[ "$(head -3 "$tmp/kout/sum.txt")" = $'1\n2\n3' ] || fail "kdl run: $(cat "$tmp/kout/sum.txt")"
[ "$(tail -n +4 "$tmp/kout/sum.txt" | sort)" = $'n=1\nn=2\nn=3' ] \
    || fail "kdl run counts: $(cat "$tmp/kout/sum.txt")"
grep -q 'completed 5' "$tmp/krun.out" || fail "kdl run summary: $(cat "$tmp/krun.out")"
echo "ok"
