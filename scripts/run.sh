#!/usr/bin/env bash
# One command: install what is missing, build Release into build/, run the main job: the GPU
# sweep example through `torcrun run`, with live progress and the summary. Without GPUs the ids
# come from CUDA_VISIBLE_DEVICES (default 0,1,2,3 here), so it runs on any machine.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$TORCRUN_ROOT"

ensure_packages "${TORCRUN_BUILD_PACKAGES[@]}"
TORCRUN_TARGET=torcrun build_torcrun build

torcrun_log "torcrun allocation: the resources torcrun sees here"
CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0,1,2,3} ./build/src/torcrun allocation

output=build/run-output/gpu_sweep
rm -rf "$output"
torcrun_log "torcrun run examples/gpu_sweep.json5 (output in $output)"
status=0
CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0,1,2,3} \
    ./build/src/torcrun run examples/gpu_sweep.json5 --output-dir "$output" "$@" || status=$?
torcrun_log "what each job printed (its GPU ids, host and times):"
cat "$output"/jobs/*/*/stdout | grep '^start=' | sort
exit $status
