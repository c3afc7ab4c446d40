#!/usr/bin/env bash
# The layer check itself (scripts/check_layers.sh): the real tree passes, and each violation of
# either rule planted in a copy of the tree makes it fail and name the file and line.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

"$root/scripts/check_layers.sh" "$root" >/dev/null || fail "the real tree does not pass"

fresh_copy() {
    rm -rf "$work/tree"; mkdir -p "$work/tree/include"
    cp -r "$root/src" "$work/tree/"
    cp -r "$root/include/torcrun" "$work/tree/include/"
}

# plant FILE LINE EXPECTED: append LINE to FILE (relative to the tree); the check must fail and
# print FILE:<line> and EXPECTED.
plant() {
    local file=$1 text=$2 expected=$3
    fresh_copy
    echo "$text" >> "$work/tree/$file"
    local line; line=$(wc -l < "$work/tree/$file")
    local out
    if out=$("$root/scripts/check_layers.sh" "$work/tree" 2>&1); then fail "not caught: '$text' in $file"; fi
    grep -qF "$file:$line:" <<<"$out" || fail "'$text' in $file: no $file:$line in: $out"
    grep -qF "$expected" <<<"$out" || fail "'$text' in $file: no '$expected' in: $out"
}

# Rule 1: I/O, the environment and clocks only in io/ folders, in every component.
for text in '#include <boost/asio.hpp>' '#include <boost/beast/http.hpp>' '#include <boost/process/v2.hpp>' \
            '#include <sqlite3.h>' '#include <fstream>' 'auto v = std::getenv("X");' \
            'auto t = std::chrono::steady_clock::now();'; do
    plant src/worker/resource_pool.cpp "$text" "outside an io/ folder"
done
plant include/torcrun/common/units.hpp '#include <boost/asio/ip/tcp.hpp>' "outside an io/ folder"
plant src/cli/spec_render.cpp 'auto t = std::chrono::system_clock::now();' "outside an io/ folder"
plant src/server/router.cpp '#include "torcrun/server/io/store.hpp"' "pure code includes an io/ header"

# Rule 2: components depend one way.
plant src/server/router.cpp '#include "torcrun/worker/worker_fsm.hpp"' "server may not include worker"
plant src/worker/io/launcher.cpp '#include "torcrun/server/io/store.hpp"' "worker may not include server"
plant src/common/units.cpp '#include "torcrun/spec/spec_model.hpp"' "common may not include spec"
plant include/torcrun/config/config.hpp '#include "torcrun/slurm/hostlist.hpp"' "config may not include slurm"
plant src/slurm/hostlist.cpp '#include "worker/worker_text.hpp"' "slurm may not include worker"
plant src/spec/spec_reader.cpp '#include "torcrun/cli/run_progress.hpp"' "spec may not include cli"

# Code outside any component folder.
fresh_copy; mkdir -p "$work/tree/src/core"; echo '// stray' > "$work/tree/src/core/x.cpp"
if out=$("$root/scripts/check_layers.sh" "$work/tree" 2>&1); then fail "a folder outside the components passed"; fi
grep -qF "src/core: not a component folder" <<<"$out" || fail "stray folder not named: $out"

# io/ folders may do I/O and include what their component may include.
fresh_copy
echo '#include <boost/asio.hpp>' >> "$work/tree/src/worker/io/launcher.cpp"
echo '#include "torcrun/common/io/logger.hpp"' >> "$work/tree/src/worker/io/launcher.cpp"
"$root/scripts/check_layers.sh" "$work/tree" >/dev/null || fail "an io/ file with Asio was refused"
echo ok
