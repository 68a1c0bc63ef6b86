#!/bin/sh
# Set up the Python peer benchmarks (pypbd, Newton/Warp): a virtual
# environment in tools/peers/build/venv with tools/peers/requirements.txt,
# then one short run of each peer, which also fills Warp's kernel cache
# (~/.cache/warp; the first compile of Newton's kernels takes minutes).
#
#   tools/peers/setup_python.sh
#
# Environment: PYTHON (default python3, 3.9 or newer), PEERS_VENV (default
# tools/peers/build/venv). A package that does not install is reported and
# the others are still installed; the exit status is non-zero if anything
# failed.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
VENV=${PEERS_VENV:-"$HERE/build/venv"}
PYTHON=${PYTHON:-python3}
REQ="$HERE/requirements.txt"

say() { printf 'setup_python: %s\n' "$*" >&2; }

if ! command -v "$PYTHON" >/dev/null 2>&1; then
    say "$PYTHON not found"
    exit 1
fi

if [ ! -x "$VENV/bin/python" ]; then
    say "creating $VENV"
    mkdir -p "$(dirname "$VENV")"
    if ! "$PYTHON" -m venv "$VENV"; then
        say "'$PYTHON -m venv' failed (on Debian: apt-get install python3-venv)"
        exit 1
    fi
fi
PY="$VENV/bin/python"
"$PY" -m pip install --quiet --upgrade pip || say "pip upgrade failed; going on"

failed=""
if ! "$PY" -m pip install -r "$REQ"; then
    # One at a time, so that one package without a wheel here does not stop
    # the others.
    say "installing all of $REQ failed; trying each package alone"
    # shellcheck disable=SC2013  # requirement lines have no spaces
    for req in $(sed -e 's/#.*//' "$REQ"); do
        if ! "$PY" -m pip install "$req"; then
            say "FAILED to install $req"
            failed="$failed $req"
        fi
    done
fi

# smoke PEER CMD...: one short run; prints its JSON line.
smoke() {
    smoke_peer=$1
    shift
    say "--- $smoke_peer: short run"
    if "$PY" "$@" --n 8 --substeps 2 --iterations 2 --steps 12; then
        :
    else
        say "$smoke_peer: FAILED (status $?)"
        failed="$failed $smoke_peer"
    fi
}

smoke pypbd "$HERE/pypbd_cloth.py"
smoke newton_xpbd "$HERE/warp_cloth.py" --solver xpbd
smoke newton_vbd "$HERE/warp_cloth.py" --solver vbd

if [ -n "$failed" ]; then
    say "failed:$failed"
    exit 1
fi
say "done: $VENV"
