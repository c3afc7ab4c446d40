# Shared by run.sh and test.sh: install what is missing, configure and build.
# Sourced, not run.

TORCRUN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Packages the build needs on Debian 12.
TORCRUN_BUILD_PACKAGES=(g++ cmake ninja-build pkg-config
    libboost1.81-all-dev libboost-json1.81-dev libboost-url1.81-dev libsqlite3-dev
    libyaml-cpp-dev libre2-dev libcrypt-dev)

# Packages the tests need beyond the build (system tests read JSON with python3).
TORCRUN_TEST_PACKAGES=(python3)

torcrun_log() { printf '==> %s\n' "$*" >&2; }

# ensure_packages PKG...: apt-get installs the ones not yet installed; `apt-get update` runs at
# most once per script run, and only when something is missing.
ensure_packages() {
    local missing=() pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        torcrun_log "missing packages: ${missing[*]} (run as root, or install them first)"
        return 1
    fi
    torcrun_log "installing: ${missing[*]}"
    if [ -z "${TORCRUN_APT_UPDATED:-}" ]; then
        apt-get update -qq
        TORCRUN_APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# build_torcrun DIR [extra cmake args...]: configure and build with at most 2 jobs, which fits
# the 2-core CI machine's memory for the Boost-heavy translation units. TORCRUN_TARGET limits
# the build to one target (run.sh needs only the binary).
build_torcrun() {
    local dir=$1; shift
    local jobs=${TORCRUN_JOBS:-2}
    local target=()
    [ -n "${TORCRUN_TARGET:-}" ] && target=(--target "$TORCRUN_TARGET")
    torcrun_log "configuring $dir"
    cmake -S "$TORCRUN_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
    torcrun_log "building $dir (-j$jobs) ${target[*]}"
    cmake --build "$dir" -j"$jobs" "${target[@]}"
}
