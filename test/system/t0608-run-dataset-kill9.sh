#!/usr/bin/env bash
# A dataset's finalization cut by kill -9. `torcrun run` (server and worker in one process) is
# killed while its server hashes a 3 GiB content-mode dataset: nothing may record the dataset
# finalized or start its consumer. `torcrun run --resume` then hashes it afresh (a `finalizing`
# dataset left by a dead server is claimed again), the consumer runs, and the recorded hash is the
# one recomputed here from the files. Then the server and the worker apart: the worker killed while
# the server hashes changes nothing, and a second worker runs the consumer.
set -euo pipefail
torcrun=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
run_pid=
cleanup() {
    if [ -n "$run_pid" ]; then kill -9 "$run_pid" 2>/dev/null || true; fi
    worker_test_cleanup
}
trap cleanup EXIT

sql() {  # sql DB QUERY: the first column of the first row (empty for none or NULL)
    python3 -c 'import sqlite3, sys
r = sqlite3.connect(sys.argv[1], timeout=5).execute(sys.argv[2]).fetchone()
print("" if r is None or r[0] is None else r[0])' "$1" "$2"
}

cat >"$tmp/spec.yaml" <<'SPEC'
name: big_dataset
datasets:
  - name: big
    path: big/
    hash_mode: content
jobs:
  - name: producer
    command: mkdir -p big && truncate -s 3G big/sparse.bin && echo tail > big/small.txt
    output_datasets: [big]
  - name: consumer
    command: ls -l ${datasets.input.big}
SPEC
db=$tmp/torc_output/torcrun.db
(cd "$tmp" && exec "$torcrun" run spec.yaml --progress-interval 0.5 >run1.out 2>run1.err) &
run_pid=$!
finalizing=
for _ in $(seq 1 600); do
    if [ -f "$db" ] && [ "$(sql "$db" "SELECT status FROM dataset" 2>/dev/null || true)" = finalizing ]
    then finalizing=1; break; fi
    kill -0 "$run_pid" 2>/dev/null || break
    sleep 0.05
done
[ -n "$finalizing" ] || fail "the dataset was never seen finalizing: $(cat "$tmp/run1.err")"
kill -9 "$run_pid"
wait "$run_pid" 2>/dev/null || true
run_pid=
[ "$(sql "$db" "SELECT status FROM dataset")" = finalizing ] ||
    fail "after kill -9: dataset $(sql "$db" "SELECT status FROM dataset"), expected finalizing"
[ -z "$(sql "$db" "SELECT manifest_hash FROM dataset")" ] || fail "a hash was recorded"
[ "$(sql "$db" "SELECT status FROM job WHERE name = 'consumer'")" = 1 ] ||
    fail "the consumer is not blocked after the kill"

rc=0
(cd "$tmp" && timeout 300 "$torcrun" run spec.yaml --resume --progress-interval 0.5 \
    >run2.out 2>run2.err) || rc=$?
[ "$rc" = 0 ] || fail "resume: exit $rc: $(cat "$tmp/run2.err")"
[ "$(sql "$db" "SELECT status FROM dataset")" = finalized ] || fail "resume: not finalized"
[ "$(sql "$db" "SELECT status FROM job WHERE name = 'consumer'")" = 5 ] ||
    fail "resume: the consumer did not complete"
expected=$(python3 - "$tmp/big" <<'PY'
import hashlib, os, sys
root = sys.argv[1]
lines = []
for n in sorted(os.listdir(root)):
    h = hashlib.sha256()
    with open(os.path.join(root, n), "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    lines.append(f"{n}|{h.hexdigest()}")
print(hashlib.sha256("\n".join(lines).encode()).hexdigest())
PY
)
[ "$(sql "$db" "SELECT manifest_hash FROM dataset")" = "$expected" ] || fail "resume: wrong hash"
[ "$(sql "$db" "SELECT file_count FROM dataset")" = 2 ] || fail "resume: file count"

# -- A worker killed while its server finalizes: `torcrun server` and `torcrun worker` apart, the
# worker killed -9 once the dataset is `finalizing`. The server finishes the hash on its own and a
# second worker runs the consumer: nothing waited on the dead worker.
mkdir -p "$tmp/apart"
cd "$tmp/apart"
start_server "$tmp/apart/s.db"
submit_spec "$tmp/spec.yaml"
env -u SLURM_JOB_ID -u SLURM_JOBID "$torcrun" worker "$wf" $(worker_args) \
    >"$tmp/worker1.out" 2>"$tmp/worker1.err" &
worker_pid=$!
finalizing=
for _ in $(seq 1 600); do
    if [ "$(sql "$tmp/apart/s.db" "SELECT status FROM dataset" 2>/dev/null || true)" = finalizing ]
    then finalizing=1; break; fi
    sleep 0.05
done
[ -n "$finalizing" ] || fail "apart: never finalizing: $(tail -5 "$tmp/worker1.err")"
kill -9 "$worker_pid"
wait "$worker_pid" 2>/dev/null || true
worker_pid=
for _ in $(seq 1 1200); do
    [ "$(sql "$tmp/apart/s.db" "SELECT status FROM dataset")" = finalized ] && break
    sleep 0.05
done
[ "$(sql "$tmp/apart/s.db" "SELECT manifest_hash FROM dataset")" = "$expected" ] ||
    fail "apart: the server did not finish the hash after the worker died"
rc=0
env -u SLURM_JOB_ID -u SLURM_JOBID timeout 60 "$torcrun" worker "$wf" $(worker_args) \
    >"$tmp/worker2.out" 2>"$tmp/worker2.err" || rc=$?
[ "$rc" = 0 ] || fail "apart: second worker exit $rc: $(tail -5 "$tmp/worker2.err")"
[ "$(sql "$tmp/apart/s.db" "SELECT status FROM job WHERE name = 'consumer'")" = 5 ] ||
    fail "apart: the consumer did not complete"
echo "ok"
