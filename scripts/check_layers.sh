#!/usr/bin/env bash
# The layer rule (ARCHITECTURE.md): core decides and never does I/O. Fails when core includes
# Asio, Beast, Process or SQLite, reads the environment, or reads a clock.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
pattern='boost/(asio|beast|process)|sqlite3\.h|getenv|secure_getenv|environ\b|::now\(|<ctime>|time\(nullptr\)|gettimeofday|clock_gettime|<fstream>|<cstdio>|fopen\('
status=0
for dir in include/torcrun/core src/core; do
    [ -d "$dir" ] || continue
    if hits=$(grep -rnE "$pattern" "$dir"); then
        echo "check_layers: core must stay pure (no I/O, environment or clock):"
        echo "$hits"
        status=1
    fi
done
[ $status -eq 0 ] && echo "check_layers: core is pure ($(find include/torcrun/core src/core -type f | wc -l) files checked)"
exit $status
