#!/usr/bin/env bash
# The binary's command line: help, version, unknown commands.
set -euo pipefail
torcrun=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

"$torcrun" --help | grep -q 'usage: torcrun <command>' || fail "--help prints no usage"
"$torcrun" version | grep -qE '^torcrun [0-9]+\.[0-9]+\.[0-9]+$' || fail "version output"
set +e
out=$("$torcrun" frobnicate 2>&1); rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown command exits $rc, expected 2"
grep -q "unknown command 'frobnicate'" <<<"$out" || fail "unknown command message: $out"
echo "ok"
