#!/usr/bin/env bash
# One command: install what is missing, build Release into build/, run the main job.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$TORCRUN_ROOT"

ensure_packages "${TORCRUN_BUILD_PACKAGES[@]}"
TORCRUN_TARGET=torcrun build_torcrun build

torcrun_log "torcrun allocation: the resources torcrun sees here"
./build/src/torcrun allocation
