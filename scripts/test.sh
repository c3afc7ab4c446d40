#!/usr/bin/env bash
# One command: install what is missing, build, and run every test tier through ctest
# (unit, layer check, system). The last line printed is ctest's summary.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$TORCRUN_ROOT"

ensure_packages "${TORCRUN_BUILD_PACKAGES[@]}" "${TORCRUN_TEST_PACKAGES[@]}"

# TORCRUN_SANITIZE=1 runs the same suite on an ASan + UBSan build in build-asan/.
build_dir=build
sanitize=()
if [ "${TORCRUN_SANITIZE:-0}" = 1 ]; then
    build_dir=build-asan
    sanitize=(-DTORCRUN_SANITIZE=ON)
fi
build_torcrun "$build_dir" "${sanitize[@]}"

torcrun_log "running the test suite ($build_dir)"
cd "$build_dir"
ctest --output-on-failure --timeout 600 -j"${TORCRUN_JOBS:-2}"
