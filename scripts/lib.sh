# shellcheck shell=bash
# scripts/lib.sh - shared by scripts/start, scripts/test and .ci/run.
#
# Sourced, not run. Gives the repository root, the Debian packages the project
# needs, and ddb_ensure_packages: on a machine that has them all it only reads
# the dpkg database (no network); otherwise, as root, it installs the missing
# ones with apt-get, and as anyone else it prints the exact command and fails.

DDB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Build and run: compiler, CMake (+ make as its generator), pkg-config and the
# libraries (HTTP, JSON, SQLite, hashing; gzip and zstd for export and import
# files, libcrypto for MD5 and SigV4). Tests: Debian's boto3 and pytest, and the
# AWS CLI (its waiters are tested against the emulator); pytest-xdist for
# conformance/test_emulator_worker_forks.py, which runs the pytest plugin's
# per-worker forks in two xdist workers.
DDB_BUILD_PACKAGES=(gcc libc6-dev make cmake pkg-config
    libmicrohttpd-dev libjansson-dev libsqlite3-dev libxxhash-dev
    zlib1g-dev libzstd-dev libssl-dev libyaml-dev)
DDB_TEST_PACKAGES=(python3 python3-boto3 python3-pytest python3-pytest-xdist awscli)
# The web console's test (conformance/console) drives Debian's Chromium, headless.
DDB_BROWSER_PACKAGES=(chromium)
# The libFuzzer run of the expression parser needs clang and its fuzzer runtime.
DDB_FUZZ_PACKAGES=(clang libclang-rt-14-dev)
# The libFuzzer targets (ctest names ROOM_TARGET in the fuzz build), run
# briefly by scripts/test and for as long as asked by bench/fuzz.
DDB_FUZZ_TARGETS=(fuzz_expr_parse fuzz_partiql_parse fuzz_persist_load
    fuzz_api_handle fuzz_wire_decode fuzz_item_codec fuzz_sigv4 fuzz_design)

ddb_log() {
    printf '==> %s\n' "$*" >&2
}

# ddb_missing_packages PKG... - prints the packages that are not installed.
ddb_missing_packages() {
    local pkg status
    for pkg in "$@"; do
        # One line per installed architecture (multiarch: scripts/static-build
        # installs arm64 -dev packages beside the native ones); a name without
        # :ARCH means the native one (or an Architecture: all package).
        status="$(dpkg-query -W -f='${Status} ${Architecture}\n' "$pkg" 2>/dev/null || true)"
        if ! printf '%s\n' "$status" |
            grep -qxE "install ok installed (${pkg#*:}|$(dpkg --print-architecture)|all)"; then
            printf '%s\n' "$pkg"
        fi
    done
}

# ddb_ensure_packages PKG... - installs what is missing (as root) or explains.
ddb_ensure_packages() {
    local missing
    if ! command -v dpkg-query >/dev/null 2>&1; then
        ddb_log "not a Debian system: make sure these are installed: $*"
        return 0
    fi
    mapfile -t missing < <(ddb_missing_packages "$@")
    if [ "${#missing[@]}" -eq 0 ]; then
        return 0
    fi
    if [ "$(id -u)" -eq 0 ]; then
        ddb_log "installing missing packages: ${missing[*]}"
        apt-get update
        DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
    else
        printf 'Missing Debian packages: %s\nInstall them with:\n  sudo apt-get update && sudo apt-get install -y %s\n' \
            "${missing[*]}" "${missing[*]}" >&2
        return 1
    fi
}

# ddb_build BUILD_DIR [CMAKE_ARGS...] - configures (once) and builds everything.
ddb_build() {
    local build_dir="$1"
    shift
    local jobs
    jobs="$(nproc 2>/dev/null || echo 2)"
    [ "$jobs" -gt 2 ] && jobs=2   # 2-core machines: keep the build polite
    ddb_log "configuring in ${build_dir}"
    cmake -S "$DDB_ROOT" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
    ddb_log "building"
    cmake --build "$build_dir" -j"$jobs"
}

# The libraries linked into the static release binaries (scripts/static-build),
# as -dev packages; for arm64 the same names with :arm64 (multiarch).
# libmicrohttpd is not among them: it is rebuilt from its source package.
DDB_STATIC_LIB_PACKAGES=(libjansson-dev libsqlite3-dev libxxhash-dev zlib1g-dev libzstd-dev
    libssl-dev libyaml-dev)

# ddb_release_cache - prints (and creates) the directory where the release
# keeps what it builds once: rebuilt libraries, the bookworm tree of
# packaging/deb/verify. DDB_RELEASE_CACHE overrides it.
ddb_release_cache() {
    local dir="${DDB_RELEASE_CACHE:-}"
    if [ -z "$dir" ]; then
        if [ "$(id -u)" -eq 0 ]; then
            dir=/var/cache/ddbemu-release
        else
            dir="${XDG_CACHE_HOME:-$HOME/.cache}/ddbemu-release"
        fi
    fi
    mkdir -p "$dir"
    printf '%s\n' "$dir"
}

# ddb_debian_mirror [security] - prints the Debian mirror apt uses (one-line
# or deb822 sources), or with "security" the security mirror (nothing if
# there is none).
ddb_debian_mirror() {
    local uri
    uri="$(grep -hoE '^(deb|URIs:)[[:space:]]+(\[[^]]*\][[:space:]]+)?https?://[^[:space:]]+' \
        /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources \
        2>/dev/null | awk '{print $NF}' | grep -E '/debian(-security)?/?$' || true)"
    if [ "${1:-}" = security ]; then
        printf '%s\n' "$uri" | grep -- '-security' | head -n1
    else
        uri="$(printf '%s\n' "$uri" | grep -v -- '-security' | head -n1)"
        printf '%s\n' "${uri:-http://deb.debian.org/debian}"
    fi
}
