#!/usr/bin/env bash
# Issue 13 §3, what is done of it: `torcrun run` into an output directory that already holds a
# workflow (D/torcrun.db) refuses with exit 2, naming D and what to do, and leaves the first run's
# database and logs as they were (the failed job's r0_a1 stderr intact).
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
cleanup() {
    kill_servers
    rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp"
unset TORC_API_URL

# A job that fails unless a marker file exists, and one that depends on it.
cat >wf.json5 <<JSON
{name: "again",
 jobs: [
  {name: "ok", command: "echo fine"},
  {name: "needs_marker", command: "if [ -e $tmp/marker ]; then echo ran; else echo no marker >&2; exit 4; fi"},
  {name: "after", command: "echo after", depends_on: ["needs_marker"]},
]}
JSON
rc=0
"$torcrun" run wf.json5 --output-dir D -q >run1.out 2>run1.err || rc=$?
[ "$rc" = 1 ] || fail "first run: exit $rc: $(cat run1.err)"
first_err=D/jobs/wf1_j2/r0_a1/stderr
[ -f "$first_err" ] || fail "no first attempt stderr: $(find D/jobs)"
[ "$(cat "$first_err")" = "no marker" ] || fail "first stderr: $(cat "$first_err")"
db_before=$(sha256sum D/torcrun.db)

# A second run into D: refused, exit 2, nothing started, nothing overwritten.
touch marker
rc=0
"$torcrun" run wf.json5 --output-dir D -q >run2.out 2>run2.err || rc=$?
[ "$rc" = 2 ] || fail "second run: exit $rc, expected 2: $(cat run2.err)"
expected="torcrun run: D already holds a workflow (D/torcrun.db); its logs stay as they are: give another --output-dir, or remove D to start over"
[ "$(cat run2.err)" = "$expected" ] || fail "second run said: $(cat run2.err)"
[ ! -s run2.out ] || fail "second run printed: $(cat run2.out)"
[ "$(sha256sum D/torcrun.db)" = "$db_before" ] || fail "the database changed"
[ "$(cat "$first_err")" = "no marker" ] || fail "first stderr overwritten: $(cat "$first_err")"
[ ! -e D/url ] || fail "a server was started: D/url exists"

# Another output directory runs the spec afresh.
"$torcrun" run wf.json5 --output-dir D2 -q >run3.out 2>run3.err || fail "run into D2: $(cat run3.err)"
echo "t0325: ok"
