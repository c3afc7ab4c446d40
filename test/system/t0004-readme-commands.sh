#!/usr/bin/env bash
# The README's "Five minutes on your machine" commands, run as written (the `torcrun` in them is
# the binary under test) in a scratch copy of examples/: each is a command torcrun knows, with
# options it knows, and does what the README says: exit 0, or 1 where the example's failing job
# makes a run fail (`run`, `rerun`), never 2 (a usage error). The report is written.
set -euo pipefail
torcrun=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/examples" "$work/"
mkdir "$work/bin" && ln -s "$(cd "$(dirname "$torcrun")" && pwd)/$(basename "$torcrun")" "$work/bin/torcrun"

# The fenced blocks of the section, the lines that run torcrun ("$ " prompts dropped, comments kept
# out by the shell).
commands=$(awk '/^## Five minutes on your machine/ {on=1; next} on && /^## / {exit}
                on && /^```/ {fence=!fence; next}
                on && fence && /^torcrun [a-z-]+:/ {next}   # output: "torcrun run: workflow 1 ..."
                on && fence && /^(\$ )?torcrun / {sub(/^\$ /, ""); print}' "$root/README.md")
[ "$(wc -l <<<"$commands")" -ge 8 ] || fail "found only these README commands: $commands"
cd "$work"
while IFS= read -r line; do
    set +e
    out=$(PATH="$work/bin:$PATH" bash -c "$line" 2>&1 </dev/null)
    rc=$?
    set -e
    case $rc in
        0) ;;
        1) [[ "$line" == "torcrun run "* || "$line" == "torcrun rerun "* ]] ||
               fail "'$line' exits 1: $out" ;;
        *) fail "'$line' exits $rc: $out" ;;
    esac
    ! grep -qE "unrecognised option|unknown command" <<<"$out" || fail "'$line': $out"
    echo "ok: $line"
done <<<"$commands"
[ -s "$work/report.html" ] || fail "the README's report command wrote no report.html"
[ -d "$work/D/jobs" ] || fail "no job logs under D"
echo "ok"
