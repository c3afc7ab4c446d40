#!/usr/bin/env bash
# Newer Torc's datasets under `torcrun run`: Torc's three dataset examples (copies in
# test/data/torc-newest) run to the end with the results its docs describe — the consumer starts
# only after every producer completed and the dataset was finalized, and each hash mode's hash is
# the one recomputed here from the files — then the ways a dataset cannot be finalized: a producer
# that fails (its consumer canceled, the dataset left pending) and a producer that writes no
# directory (the dataset's error shown, its consumer canceled), `${datasets.*}` in commands, and a
# rerun of one producer (the dataset reopened and hashed again before its consumer runs again).
set -euo pipefail
torcrun=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
examples=$(cd "$(dirname "$0")/../data/torc-newest/examples/yaml" && pwd)
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

run_in() {  # run_in DIR SPEC [ARGS...]: torcrun run from DIR, the exit status in $rc
    local dir=$1 spec=$2; shift 2
    mkdir -p "$dir"
    rc=0
    (cd "$dir" && timeout 120 "$torcrun" run "$spec" --progress-interval 0.5 \
        --set resources.cpus=16 --set resources.memory=64g --set resources.gpus=2 "$@" \
        >run.out 2>run.err) || rc=$?
}

# The hash of a dataset directory as dataset_digest.hpp defines it, recomputed from the files.
expected_hash() {  # expected_hash DIR MODE
    python3 - "$1" "$2" <<'PY'
import hashlib, os, sys
root, mode = sys.argv[1], sys.argv[2]
lines = []
for d, _, names in os.walk(root):
    for n in names:
        p = os.path.join(d, n)
        rel = os.path.relpath(p, root)
        st = os.stat(p)
        if mode == "manifest":
            us = st.st_mtime_ns // 1000
            lines.append(f"{rel}|{st.st_size}|{us // 10**6}.{us % 10**6:06d}")
        else:
            lines.append(f"{rel}|{hashlib.sha256(open(p, 'rb').read()).hexdigest()}")
lines.sort(key=lambda l: l.split("|")[0])
print(hashlib.sha256("\n".join(lines).encode()).hexdigest())
PY
}

sql() {  # sql DB QUERY: the first column of the first row (empty for none or NULL)
    python3 -c 'import sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()
print("" if r is None or r[0] is None else r[0])' "$1" "$2"
}

dataset_field() {  # dataset_field DIR NAME FIELD
    sql "$1/torc_output/torcrun.db" "SELECT $3 FROM dataset WHERE name = '$2'"
}

# Order of events for the consumer: ready only through the finalizer, after every producer ended.
check_order() {  # check_order DIR CONSUMER_ID
    python3 - "$1/torc_output/torcrun.db" "$2" <<'PY' || fail "$1: consumer order (above)"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1]); consumer = int(sys.argv[2])
rows = [(i, json.loads(d)) for i, d in db.execute("SELECT id, data FROM event ORDER BY id")]
ready = [i for i, e in rows if e.get("job_id") == consumer and e.get("to") == "ready"]
assert len(ready) == 1, ready
src = [e["source"] for i, e in rows if i == ready[0]][0]
assert src == "dataset_finalize", src
producers = [j for (j,) in db.execute(
    "SELECT o.job_id FROM job_dataset_output o JOIN job_dataset_input i "
    "ON i.dataset_id = o.dataset_id WHERE i.job_id = ?", (consumer,))]
assert producers, "no producers"
for p in producers:
    done = [i for i, e in rows if e.get("job_id") == p and e.get("to") == "completed"]
    assert done and done[0] < ready[0], (p, done, ready)
PY
}

# -- Torc's fan-in example: 5 workers, then combine.
d=$tmp/fanin
run_in "$d" "$examples/dataset_fanin.yaml"
[ "$rc" = 0 ] || fail "fanin: exit $rc: $(cat "$d/run.err")"
grep -q 'completed 6' "$d/run.out" || fail "fanin: $(cat "$d/run.out")"
[ "$(dataset_field "$d" partitioned_output status)" = finalized ] || fail "fanin: not finalized"
[ "$(dataset_field "$d" partitioned_output file_count)" = 5 ] || fail "fanin: file count"
[ "$(dataset_field "$d" partitioned_output manifest_hash)" = \
  "$(expected_hash "$d/output/partitions" manifest)" ] || fail "fanin: manifest hash"
[ "$(wc -l <"$d/output/combined.txt")" = 5 ] || fail "fanin: combined.txt"
grep -rq 'Combining 5 partition files' "$d"/torc_output/job_stdio/*_r0_a1.o ||
    fail "fanin: combine did not see 5 partitions"
check_order "$d" "$(sql "$d/torc_output/torcrun.db" "SELECT id FROM job WHERE name='combine'")"
"$torcrun" status 1 --output-dir "$d/torc_output" >"$d/status.out"
grep -Eq '^  partitioned_output \(output/partitions/\): finalized, 5 files, [0-9]+ bytes, manifest [0-9a-f]{64}$' \
    "$d/status.out" || fail "fanin: status: $(cat "$d/status.out")"
"$torcrun" jobs 1 --output-dir "$d/torc_output" | grep -q '^datasets: 1$' || fail "fanin: jobs"
"$torcrun" status 1 --json --output-dir "$d/torc_output" | python3 -c '
import json, sys
s = json.load(sys.stdin)
d = s["datasets"][0]
assert d["status"] == "finalized" and len(d["producer_job_ids"]) == 5, d
assert d["consumer_job_ids"] == [6], d' || fail "fanin: status --json"

# A rerun of one producer reopens the dataset: hashed again (the part rewritten), and the
# consumer runs again only after that.
before=$(dataset_field "$d" partitioned_output manifest_hash)
sleep 0.1  # a later mtime for the rewritten part
(cd "$d" && timeout 60 "$torcrun" rerun 1 --job worker_2 --output-dir torc_output \
    >rerun.out 2>rerun.err) || fail "fanin rerun: $(cat "$d/rerun.err")"
after=$(dataset_field "$d" partitioned_output manifest_hash)
[ "$after" != "$before" ] || fail "fanin rerun: the hash did not change"
[ "$after" = "$(expected_hash "$d/output/partitions" manifest)" ] || fail "fanin rerun: hash"
python3 - "$d/torc_output/torcrun.db" <<'PY' || fail "fanin rerun: combine's events (above)"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
combine = db.execute("SELECT id FROM job WHERE name = 'combine'").fetchone()[0]
ready = [json.loads(d)["source"] for (d,) in db.execute("SELECT data FROM event ORDER BY id")
         if json.loads(d).get("job_id") == combine and json.loads(d).get("to") == "ready"]
assert ready == ["dataset_finalize", "dataset_finalize"], ready
PY

# -- Torc's hash-modes example: manifest, content, none.
d=$tmp/modes
run_in "$d" "$examples/dataset_hash_modes.yaml"
[ "$rc" = 0 ] || fail "modes: exit $rc: $(cat "$d/run.err")"
grep -q 'completed 4' "$d/run.out" || fail "modes: $(cat "$d/run.out")"
[ "$(dataset_field "$d" intermediate_data manifest_hash)" = \
  "$(expected_hash "$d/scratch/intermediate" manifest)" ] || fail "modes: manifest hash"
[ "$(dataset_field "$d" critical_output manifest_hash)" = \
  "$(expected_hash "$d/output/critical" content)" ] || fail "modes: content hash"
[ "$(dataset_field "$d" debug_logs "manifest_hash IS NULL")" = 1 ] || fail "modes: none has a hash"
[ "$(dataset_field "$d" debug_logs file_count)" = 1 ] || fail "modes: none's file count"
[ "$(dataset_field "$d" intermediate_data file_count)" = 10 ] || fail "modes: 10 chunks"
grep -rq 'output/critical/aggregated.dat' "$d"/torc_output/job_stdio/*_r0_a1.o ||
    fail "modes: final_report did not print the checksum"

# -- Torc's distributed-training example (GPUs and memory given by --set).
d=$tmp/training
run_in "$d" "$examples/distributed_training_dataset.yaml"
[ "$rc" = 0 ] || fail "training: exit $rc: $(cat "$d/run.err")"
grep -q 'completed 8' "$d/run.out" || fail "training: $(cat "$d/run.out")"
[ "$(dataset_field "$d" training_checkpoints file_count)" = 12 ] || fail "training: 12 checkpoints"
grep -rq 'Found 12 checkpoint files' "$d"/torc_output/job_stdio/*_r0_a1.o ||
    fail "training: aggregate_models did not see 12 checkpoints"
grep -rq '"accuracy": 0.95' "$d"/torc_output/job_stdio/*_r0_a1.o ||
    fail "training: generate_report did not print the metrics"

# -- A producer fails: the dataset stays pending, its consumer is canceled, the run exits 1.
cat >"$tmp/failing.yaml" <<'SPEC'
name: failing_producer
datasets:
  - name: parts
    path: parts/
jobs:
  - name: good
    command: mkdir -p parts && echo ok > parts/good.txt
    output_datasets: [parts]
  - name: bad
    command: mkdir -p parts && echo half > parts/bad.txt && exit 3
    output_datasets: [parts]
  - name: reader
    command: cat ${datasets.input.parts}good.txt
SPEC
d=$tmp/failing
run_in "$d" "$tmp/failing.yaml"
[ "$rc" = 1 ] || fail "failing: exit $rc, expected 1: $(cat "$d/run.err")"
[ "$(dataset_field "$d" parts status)" = pending ] || fail "failing: dataset not pending"
[ "$(sql "$d/torc_output/torcrun.db" "SELECT status FROM job WHERE name='reader'")" = 7 ] ||
    fail "failing: reader not canceled"
"$torcrun" status 1 --output-dir "$d/torc_output" | grep -qx '  parts (parts/): pending' ||
    fail "failing: status"

# -- A producer writes nothing: the dataset cannot be hashed, its consumer is canceled.
cat >"$tmp/empty.yaml" <<'SPEC'
name: no_directory
datasets:
  - name: results
    path: never/made/
    hash_mode: content
jobs:
  - name: writer
    command: echo "would write to ${datasets.output.results}"
  - name: reader
    command: ls ${datasets.input.results}
SPEC
d=$tmp/empty
run_in "$d" "$tmp/empty.yaml"
[ "$rc" = 1 ] || fail "empty: exit $rc, expected 1: $(cat "$d/run.err")"
grep -rq 'would write to never/made/' "$d"/torc_output/job_stdio/*_r0_a1.o ||
    fail "empty: \${datasets.output.results} not substituted"
[ "$(sql "$d/torc_output/torcrun.db" "SELECT status FROM job WHERE name='reader'")" = 7 ] ||
    fail "empty: reader not canceled"
"$torcrun" status 1 --output-dir "$d/torc_output" |
    grep -qx '  results (never/made/): pending: dataset path never/made/ is not a directory' ||
    fail "empty: status: $("$torcrun" status 1 --output-dir "$d/torc_output")"
echo "ok"
