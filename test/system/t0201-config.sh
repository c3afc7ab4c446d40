#!/usr/bin/env bash
# `torcrun config`: the example files match the schema (the manual's key tables are
# checked by docs.site), a broken file exits 2 and
# names file:line:col and the key, and flags win over the file.
set -euo pipefail
torcrun=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for which in worker server; do
    example=$root/config/$which.example.json
    "$torcrun" config $which --example | diff -u "$example" - \
        || fail "config/$which.example.json differs from 'torcrun config $which --example'"
    "$torcrun" config $which > "$tmp/defaults.json"
    "$torcrun" config $which --config "$example" > "$tmp/from-example.json" \
        || fail "config/$which.example.json does not load"
    diff -u "$tmp/defaults.json" "$tmp/from-example.json" || fail "$which example != defaults"
done

cat > "$tmp/broken.json" <<'JSON'
{
    moed: "direct",
    "workflow_id": "seven",
    "poll": { "interval_seconds": 7 },
}
JSON
set +e
out=$("$torcrun" config worker --config "$tmp/broken.json" 2>&1); rc=$?
set -e
[ $rc -eq 2 ] || fail "broken file exits $rc, expected 2"
grep -qxF "$tmp/broken.json:2:5: moed: unknown key (did you mean \"mode\"?)" <<<"$out" \
    || fail "unknown key message: $out"
grep -qxF "$tmp/broken.json:3:20: workflow_id: expected an integer or null, found a string" \
    <<<"$out" || fail "bad type message: $out"

cat > "$tmp/worker.json" <<'JSON'
// comments and trailing commas are fine
{ "poll": { "interval_seconds": 7, }, "mode": "direct", }
JSON
"$torcrun" config worker --config "$tmp/worker.json" > "$tmp/out.json"
grep -q '"interval_seconds": 7,' "$tmp/out.json" || fail "file value not used"
grep -q '"mode": "direct",' "$tmp/out.json" || fail "file mode not used"
"$torcrun" config worker --config "$tmp/worker.json" --poll-interval 9 --set mode=slurm \
    > "$tmp/out.json"
grep -q '"interval_seconds": 9,' "$tmp/out.json" || fail "--poll-interval does not win"
grep -q '"mode": "slurm",' "$tmp/out.json" || fail "--set mode does not win"
"$torcrun" config server --port 0 --db "$tmp/x.db" | grep -q '"port": 0,' || fail "--port"

set +e
out=$("$torcrun" config worker --poll-interval fast 2>&1); rc=$?
set -e
[ $rc -eq 2 ] || fail "bad flag exits $rc, expected 2"
[ "$out" = '--poll-interval: "fast" is not a number' ] || fail "bad flag message: $out"
set +e
out=$("$torcrun" config worker --config "$tmp/missing.json" 2>&1); rc=$?
set -e
[ $rc -eq 2 ] || fail "missing file exits $rc, expected 2"
[ "$out" = "$tmp/missing.json: cannot read: No such file or directory" ] \
    || fail "missing file message: $out"
set +e
out=$("$torcrun" config server --config "$tmp" 2>&1); rc=$?
set -e
[ $rc -eq 2 ] || fail "directory as config exits $rc, expected 2"
[ "$out" = "$tmp: cannot read: Is a directory" ] || fail "directory message: $out"
set +e
"$torcrun" config worker --frobnicate >/dev/null 2>&1; rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown option exits $rc, expected 2"
echo "ok"
