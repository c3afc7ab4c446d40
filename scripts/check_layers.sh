#!/usr/bin/env bash
# The two rules of docs/ARCHITECTURE.md, checked over src/ and include/torcrun/:
#  1. Only code in an io/ folder does I/O: nothing outside one includes Asio, Beast, Process,
#     SQLite or file streams, reads the environment or a clock, or includes an io/ header.
#  2. Components depend one way: cli -> worker, server -> spec, slurm, config -> common; worker
#     and server never include each other. The table `allowed` below is the whole rule.
# Usage: check_layers.sh [ROOT]. Prints every violation with file:line; exit 1 if there is one.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

# What each component may include besides itself.
declare -A allowed=(
    [common]=""
    [config]="common"
    [slurm]="config common"
    [spec]="common"
    [server]="spec config common"
    [worker]="slurm spec config common"
    [cli]="worker server slurm spec config common"
)
components="common config slurm spec server worker cli"

io_pattern='boost/(asio|beast|process)|sqlite3\.h|getenv|secure_getenv|environ\b|::now\(|<ctime>|time\(nullptr\)|gettimeofday|clock_gettime|<fstream>|<cstdio>|fopen\('
status=0
violation() { echo "check_layers: $1"; status=1; }

files=()
for comp in $components; do
    for dir in "src/$comp" "include/torcrun/$comp"; do
        [ -d "$dir" ] && while IFS= read -r f; do files+=("$f"); done < <(find "$dir" -type f \( -name '*.cpp' -o -name '*.hpp' \) | sort)
    done
done
# Nothing else under src/ or include/torcrun/ but the components (and src/CMakeLists.txt).
for entry in src/* include/torcrun/*; do
    [ -e "$entry" ] || continue
    [ "$entry" = src/CMakeLists.txt ] && continue
    name=${entry##*/}
    [ -d "$entry" ] && [ -n "${allowed[$name]+set}" ] && continue
    violation "$entry: not a component folder (${components// /, })"
done

for f in "${files[@]}"; do
    rel=${f#src/}; rel=${rel#include/torcrun/}
    comp=${rel%%/*}
    in_io=0; [[ "/$rel" == */io/* ]] && in_io=1

    # Rule 1: pure code does no I/O.
    if [ $in_io -eq 0 ]; then
        while IFS= read -r hit; do
            violation "$f:${hit%%:*}: I/O, environment or clock outside an io/ folder: ${hit#*:}"
        done < <(grep -nE "$io_pattern" "$f" || true)
    fi

    # Both rules on the project's own includes: "torcrun/<comp>/..." or src-relative "<comp>/...".
    while IFS= read -r hit; do
        line=${hit%%:*}
        path=$(sed -E 's/.*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/' <<<"${hit#*:}")
        path=${path#torcrun/}
        target=${path%%/*}
        [ "$target" = "$path" ] && continue  # a header beside the file
        [ -n "${allowed[$target]+set}" ] || continue
        if [ $in_io -eq 0 ] && [[ "/$path" == */io/* ]]; then
            violation "$f:$line: pure code includes an io/ header: $path"
        fi
        if [ "$target" != "$comp" ] && [[ " ${allowed[$comp]} " != *" $target "* ]]; then
            violation "$f:$line: $comp may not include $target (allowed: ${allowed[$comp]:-nothing}): $path"
        fi
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$f" || true)
done

if [ $status -eq 0 ]; then
    echo "check_layers: ${#files[@]} files in ${components// /, }: io only in io/, dependencies one way"
fi
exit $status
