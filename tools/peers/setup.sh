#!/bin/sh
# Set up the optional peer benchmarks (see tools/peers/SCENE.md, README.md).
#
#   tools/peers/setup.sh            set up every peer
#   tools/peers/setup.sh bullet     set up only the peers named
#
# Installs missing Debian packages (apt-get; sudo when not root) and builds
# into tools/peers/build/. A peer that fails is reported and the others still
# run; the exit status is non-zero if any failed.
#
# Adding a peer: write setup_<name>, add <name> to PEERS.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
BUILD="$HERE/build"
PEERS="bullet python amg"

say() { printf 'setup: %s\n' "$*"; }
warn() { printf 'setup: %s\n' "$*" >&2; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        warn "not root and no sudo; cannot run: $*"
        return 1
    fi
}

# apt_install PKG...: install the Debian packages among PKG that are missing;
# runs apt-get update first only if the plain install fails.
apt_install() {
    missing=""
    for p in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
            grep -q 'install ok installed'; then
            missing="$missing $p"
        fi
    done
    [ -n "$missing" ] || return 0
    if ! command -v apt-get >/dev/null 2>&1; then
        warn "apt-get not found; install these yourself:$missing"
        return 1
    fi
    say "installing:$missing"
    # shellcheck disable=SC2086  # word splitting of the package list is wanted
    if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y $missing; then
        warn "install failed; running apt-get update and retrying"
        as_root apt-get update
        # shellcheck disable=SC2086
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
    fi
}

# --- peers ------------------------------------------------------------------

# Bullet 3.x soft-body cloth (btSoftBody), C++ against the system libbullet.
setup_bullet() {
    apt_install libbullet-dev g++ pkg-config
    flags=$(pkg-config --cflags --libs bullet)
    mkdir -p "$BUILD"
    # shellcheck disable=SC2086  # pkg-config output is a list of flags
    g++ -O2 -o "$BUILD/bullet_cloth" "$HERE/bullet_cloth.cpp" $flags
    say "built $BUILD/bullet_cloth (Bullet $(pkg-config --modversion bullet))"
}

# pypbd and Newton (XPBD, VBD) in a venv under build/: setup_python.sh.
setup_python() {
    apt_install python3 python3-venv
    sh "$HERE/setup_python.sh"
}

# PyAMG and hypre BoomerAMG for the AMG benchmark: amg.sh --setup.
setup_amg() {
    sh "$HERE/amg.sh" --setup
}

# --- dispatcher ---------------------------------------------------------------

main() {
    [ $# -gt 0 ] || set -- $PEERS
    for peer in "$@"; do
        case " $PEERS " in
        *" $peer "*) ;;
        *)
            warn "unknown peer '$peer' (known: $PEERS)"
            exit 2
            ;;
        esac
    done
    failed=""
    for peer in "$@"; do
        say "--- $peer"
        # Subshell with its own errexit, outside any 'if', so that set -e
        # still stops the peer's set-up at its first failing command.
        set +e
        (set -e; "setup_$peer")
        rc=$?
        set -e
        [ "$rc" -eq 0 ] || { warn "$peer: FAILED (status $rc)"; failed="$failed $peer"; }
    done
    if [ -n "$failed" ]; then
        warn "failed:$failed"
        exit 1
    fi
    say "done: $*"
}

main "$@"
