#!/usr/bin/env bash
# The layer check itself: a clean core passes, and each forbidden thing planted in a copy of
# core makes it fail and name the file.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

"$root/scripts/check_layers.sh" "$root" >/dev/null || fail "the real core does not pass"
for bad in '#include <boost/asio.hpp>' '#include <boost/beast/http.hpp>' '#include <boost/process/v2.hpp>' \
           '#include <sqlite3.h>' 'auto v = std::getenv("X");' 'auto t = std::chrono::steady_clock::now();'; do
    rm -rf "$work/tree"; mkdir -p "$work/tree/include/torcrun" "$work/tree/src"
    cp -r "$root/include/torcrun/core" "$work/tree/include/torcrun/"
    cp -r "$root/src/core" "$work/tree/src/"
    echo "$bad" >> "$work/tree/src/core/error.cpp"
    if out=$("$root/scripts/check_layers.sh" "$work/tree" 2>&1); then fail "not caught: $bad"; fi
    grep -q 'src/core/error.cpp' <<<"$out" || fail "no file named for: $bad"
done
echo ok
