#!/usr/bin/env bash
# One command: install what is missing, build, and run every test tier through ctest
# (unit, layer check, system). The last line printed is ctest's summary.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$TORCRUN_ROOT"

ensure_packages "${TORCRUN_BUILD_PACKAGES[@]}"
build_torcrun build

torcrun_log "running the test suite"
cd build
ctest --output-on-failure --timeout 600 -j"${TORCRUN_JOBS:-2}"
