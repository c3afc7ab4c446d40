#!/usr/bin/env bash
# sanitized_test.sh LOG_DIR COMMAND...: runs one ctest test of a TORCRUN_SANITIZE build. Every
# sanitized process the test starts (the test executables, each torcrun, fake_job) writes its
# ASan / LeakSanitizer / UBSan reports into LOG_DIR rather than onto stderr, which the system
# tests capture and compare; the test fails when any report was written, whatever its exit status
# (a report from a background server or worker would not change it).
set -u
logs=$1
shift
rm -rf "$logs"
mkdir -p "$logs"

# halt_on_error: the first finding ends the process (UBSan's checks also abort, being built with
# -fno-sanitize-recover). The caller's own settings come last and win.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:print_stacktrace=1:log_path=$logs/asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

# Each child a test starts is sanitized too and starts and ends slower: timing bounds of the io
# tests stretch by this factor (test/support/time_factor.hpp).
export TORCRUN_TEST_TIME_FACTOR=${TORCRUN_TEST_TIME_FACTOR:-3}
# Tests that bound memory with `ulimit -v` cannot under ASan (it reserves terabytes of address
# space for its shadow); they read this and bound resident memory through ASan instead.
export TORCRUN_SANITIZED=1

rc=0
"$@" || rc=$?

reports=()
for report in "$logs"/*; do [ -f "$report" ] && reports+=("$report"); done
if [ ${#reports[@]} -gt 0 ]; then
    for report in "${reports[@]}"; do
        echo "==== sanitizer report $report (exit status of the test: $rc)"
        cat "$report"
    done
    echo "FAIL: ${#reports[@]} sanitizer report(s) in $logs"
    exit 1
fi
exit "$rc"
