#!/usr/bin/env bash
# One command: install what is missing, build, and run every test tier through ctest
# (unit, layer check, system). The last line printed is ctest's summary.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$TORCRUN_ROOT"

# clang and libFuzzer for the short fuzz run (ctest fuzz.short, which builds build-fuzz/);
# MkDocs for the manual (ctest docs.site).
ensure_packages "${TORCRUN_BUILD_PACKAGES[@]}" "${TORCRUN_TEST_PACKAGES[@]}" \
    "${TORCRUN_FUZZ_PACKAGES[@]}" "${TORCRUN_DOCS_PACKAGES[@]}"

# TORCRUN_SANITIZE=1 runs the same suite on an ASan + UBSan build in build-sanitize/: each test
# runs through test/support/sanitized_test.sh, which fails it on any sanitizer report (kept in
# build-sanitize/sanitizer-reports/<test>/).
build_dir=build
sanitize=()
if [ "${TORCRUN_SANITIZE:-0}" = 1 ]; then
    build_dir=build-sanitize
    sanitize=(-DTORCRUN_SANITIZE=ON)
fi
build_torcrun "$build_dir" "${sanitize[@]}"

# The contract test fails, rather than skips, when Prism or Node is missing: a failed install is
# reported here and the suite still runs.
if ! { ensure_contract_tools && install_prism "$build_dir"; }; then
    torcrun_log "could not install Node.js or Prism: the API contract test (t0330) will fail"
fi

# The Slurm tests (slurm.*) need the real cluster: started here, stopped on the way out, also when
# a test fails. A cluster that was already up is left up. When it cannot start, those tests fail.
# `down` reports into the cluster's log folder, so that ctest's summary stays the last line.
slurm_cluster=$TORCRUN_ROOT/scripts/slurm-cluster.sh
slurm_dir=${TORCRUN_SLURM_DIR:-$TORCRUN_ROOT/.slurm-cluster}
export TORCRUN_SLURM_ENV=$slurm_dir/env.sh
if "$slurm_cluster" status >/dev/null 2>&1; then
    torcrun_log "Slurm test cluster already up; leaving it up"
else
    trap 'mkdir -p "$slurm_dir/log" && "$slurm_cluster" down >"$slurm_dir/log/down.out" 2>&1 || true' EXIT
    "$slurm_cluster" up || torcrun_log "the Slurm test cluster did not start: the slurm.* tests will fail"
fi

# TORCRUN_JOBS CPU-bound tests at a time (ctest's resource groups, test/CMakeLists.txt), and the
# Slurm tests, which mostly wait on the cluster, beside them.
cpu_slots=${TORCRUN_JOBS:-2}
printf '{"version": {"major": 1, "minor": 0}, "local": [{"cpus": [{"id": "0", "slots": %d}]}]}\n' \
    "$cpu_slots" >"$build_dir/ctest-resources.json"
torcrun_log "running the test suite ($build_dir): $cpu_slots CPU-bound tests at a time, Slurm tests beside them"
cd "$build_dir"
ctest --output-on-failure --timeout 600 -j"$((cpu_slots + 3))" --resource-spec-file ctest-resources.json
