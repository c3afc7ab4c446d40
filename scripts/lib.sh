# Shared by run.sh and test.sh: install what is missing, configure and build.
# Sourced, not run.

TORCRUN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Packages the build needs on Debian 12.
TORCRUN_BUILD_PACKAGES=(g++ cmake ninja-build pkg-config
    libboost1.81-all-dev libboost-json1.81-dev libboost-url1.81-dev libsqlite3-dev
    libyaml-cpp-dev libre2-dev libcrypt-dev libssl-dev)

# Packages the tests need beyond the build (system tests read JSON with python3 and call the
# server with curl; the HTTPS test makes its CA and certificates with openssl and lists
# processes with ps; jq: Torc's dynamic-jobs example scripts write JSON with it, and Torc's own
# Slurm test harness, run by t0525, parses with it).
TORCRUN_TEST_PACKAGES=(python3 curl chromium openssl procps jq)

# The fuzz targets (scripts/fuzz.sh, ctest fuzz.short): clang and its libFuzzer, which Debian 12
# ships in the compiler runtime package (only recommended by clang, so named here).
TORCRUN_FUZZ_PACKAGES=(clang libclang-rt-14-dev)

# The API contract test (test/system/t0330-contract.sh) runs Prism, a Node.js program: Debian 12's
# nodejs 18.20 runs the pinned Prism 5.14.2 (which needs >= 18.20.1). Installed only when `node`
# or `npm` is missing, so a newer Node already on the machine is kept. The pin lives in
# test/contract/package.json (and its lock file).
TORCRUN_CONTRACT_PACKAGES=(nodejs npm)
TORCRUN_PRISM_VERSION=$(sed -n 's|.*"@stoplight/prism-cli": "\(.*\)".*|\1|p' \
    "$TORCRUN_ROOT/test/contract/package.json")

# The Slurm test cluster (scripts/slurm-cluster.sh): Slurm 22.05 and munge; libpmix2 because
# slurmd's mpi/pmix plugin dlopen()s it (no package depends on it); Open MPI for the MPI tests.
TORCRUN_SLURM_PACKAGES=(slurmctld slurmd slurm-client munge libpmix2 openmpi-bin libopenmpi-dev)

# The user's manual (scripts/docs.sh, ctest docs.site): MkDocs and its Material theme, both
# Debian 12 packages (mkdocs 1.4.2, mkdocs-material 8.2.5).
TORCRUN_DOCS_PACKAGES=(mkdocs mkdocs-material)

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

# have_libfuzzer: clang++ is there and finds libFuzzer's runtime.
have_libfuzzer() {
    command -v clang++ >/dev/null || return 1
    local lib
    lib=$(clang++ -print-file-name=libclang_rt.fuzzer-x86_64.a)
    [ -f "$lib" ]
}

# ensure_contract_tools: node and npm, from Debian when either is missing.
ensure_contract_tools() {
    command -v node >/dev/null && command -v npm >/dev/null && return 0
    ensure_packages "${TORCRUN_CONTRACT_PACKAGES[@]}"
}

# install_prism DIR: Prism into DIR/prism (ignored by git) from test/contract's lock file, unless
# the pinned version is already there. Needs the npm registry the first time.
install_prism() {
    local dir=$1/prism
    local prism=$dir/node_modules/.bin/prism
    if [ -x "$prism" ] && [ "$("$prism" --version 2>/dev/null)" = "$TORCRUN_PRISM_VERSION" ]; then
        return 0
    fi
    torcrun_log "installing Prism $TORCRUN_PRISM_VERSION into $dir"
    mkdir -p "$dir"
    cp "$TORCRUN_ROOT/test/contract/package.json" "$TORCRUN_ROOT/test/contract/package-lock.json" "$dir/"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
}
