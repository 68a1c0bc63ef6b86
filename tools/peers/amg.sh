#!/bin/sh
# AMG peer benchmark: every Matrix Market matrix of a directory solved by CG
# preconditioned with one V-cycle of PyAMG's smoothed aggregation and of
# hypre's BoomerAMG (README.md, "AMG peers").
#
#   tools/peers/amg.sh DIR [--json OUT]    set up what is missing, run, report
#   tools/peers/amg.sh --setup             set up only (tools/peers/setup.sh amg)
#
# DIR holds NAME.mtx (coordinate real, general or symmetric) and optionally
# NAME.b.mtx (array, one column) as the right-hand side; b = ones otherwise.
# One JSON line per (matrix, peer, settings) goes to stdout (and to OUT with
# --json, overwritten); a table follows on stderr.
#
# Set-up: Debian packages libhypre-dev, mpi-default-dev (Open MPI), gcc,
# pkg-config, python3-venv (apt-get; sudo when not root); a venv in
# tools/peers/build/amg-venv with AMG_PIP; amg_hypre built into
# tools/peers/build/ with cc.
# Environment: AMG_VENV (venv path), AMG_PIP (pip requirements), PYTHON (to
# create the venv), AMG_HYPRE_THETAS (strong thresholds, default "0.25 0.5"),
# AMG_HYPRE_RELAX (BoomerAMG relax types, default "18 8": l1-Jacobi and l1
# symmetric Gauss-Seidel), AMG_TOL (default 1e-6), AMG_REPEAT (timings: the
# fastest of this many runs, default 3).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
BUILD="$HERE/build"
VENV=${AMG_VENV:-"$BUILD/amg-venv"}
PYTHON=${PYTHON:-python3}
AMG_PIP=${AMG_PIP:-"pyamg==5.4.1 scipy==1.17.1 numpy==2.4.6"}
THETAS=${AMG_HYPRE_THETAS:-"0.25 0.5"}
RELAX=${AMG_HYPRE_RELAX:-"18 8"}
TOL=${AMG_TOL:-1e-6}
REPEAT=${AMG_REPEAT:-3}
HYPRE_BIN="$BUILD/amg_hypre"
PY="$VENV/bin/python"

say() { printf 'amg: %s\n' "$*" >&2; }
fail() {
    say "$*"
    exit 1
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        say "not root and no sudo; cannot run: $*"
        return 1
    fi
}

# apt_install PKG...: install the missing ones, apt-get update first.
apt_install() {
    missing=""
    for p in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
            missing="$missing $p"
        fi
    done
    [ -n "$missing" ] || return 0
    command -v apt-get >/dev/null 2>&1 || {
        say "apt-get not found; install these yourself:$missing"
        return 1
    }
    say "installing:$missing"
    as_root apt-get update || return 1
    # shellcheck disable=SC2086  # word splitting of the package list is wanted
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
}

setup_packages() {
    apt_install libhypre-dev mpi-default-dev gcc pkg-config python3-venv ||
        fail "could not install the Debian packages (libhypre-dev mpi-default-dev gcc pkg-config python3-venv)"
}

setup_venv() {
    if [ -x "$PY" ] && "$PY" -c 'import pyamg, scipy, numpy' >/dev/null 2>&1; then
        return 0
    fi
    command -v "$PYTHON" >/dev/null 2>&1 || fail "$PYTHON not found"
    if [ ! -x "$PY" ]; then
        say "creating $VENV"
        mkdir -p "$(dirname "$VENV")"
        "$PYTHON" -m venv "$VENV" ||
            fail "'$PYTHON -m venv $VENV' failed (Debian: apt-get install python3-venv)"
    fi
    say "pip install $AMG_PIP"
    # shellcheck disable=SC2086  # a list of requirements
    "$PY" -m pip install --quiet $AMG_PIP || fail "pip install $AMG_PIP failed"
    "$PY" -c 'import pyamg, scipy, numpy' || fail "pyamg does not import in $VENV"
}

build_hypre() {
    src="$HERE/amg_hypre.c"
    if [ -x "$HYPRE_BIN" ] && [ -z "$(find "$src" -newer "$HYPRE_BIN")" ]; then
        return 0
    fi
    mpi=$(pkg-config --cflags --libs mpi-c) || fail "pkg-config knows no mpi-c (apt-get install mpi-default-dev)"
    [ -f /usr/include/hypre/HYPRE.h ] || fail "/usr/include/hypre/HYPRE.h missing (apt-get install libhypre-dev)"
    mkdir -p "$BUILD"
    say "building $HYPRE_BIN"
    # Debian's hypre is an MPI build; its internal headers need POSIX names.
    # shellcheck disable=SC2086  # pkg-config output is a list of flags
    cc -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -isystem /usr/include/hypre \
        -o "$HYPRE_BIN" "$src" -lHYPRE $mpi -lm || fail "building amg_hypre failed"
}

setup() {
    setup_packages
    setup_venv
    build_hypre
}

table() {
    "$PY" - "$1" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
head = ("matrix", "peer", "variant", "rows", "nnz", "it", "setup ms", "solve ms",
        "op cx", "grid cx", "lv", "final rel")
out = [head]
for r in rows:
    out.append((r["matrix"], r["peer"], r.get("variant", ""), str(r["rows"]), str(r["nnz"]),
                str(r["iterations"]) + ("" if r.get("converged", True) else "!"),
                "%.2f" % r["setup_ms"], "%.2f" % r["solve_ms"],
                "%.3f" % r["operator_complexity"], "%.3f" % r["grid_complexity"],
                str(r["levels"]), "%.1e" % r["final_relative"]))
w = [max(len(row[i]) for row in out) for i in range(len(head))]
for row in out:
    print("  ".join(c.ljust(w[i]) if i < 3 else c.rjust(w[i]) for i, c in enumerate(row)))
if any(not r.get("converged", True) for r in rows):
    print("(! = stopped at maxiter without reaching the tolerance)")
EOF
}

main() {
    if [ "${1:-}" = "--setup" ]; then
        setup
        say "set up: $HYPRE_BIN, $VENV"
        exit 0
    fi
    [ $# -ge 1 ] || fail "usage: amg.sh DIR [--json OUT] | amg.sh --setup"
    dir=$1
    shift
    out=""
    while [ $# -gt 0 ]; do
        case $1 in
        --json)
            [ $# -ge 2 ] || fail "--json needs a file"
            out=$2
            shift 2
            ;;
        *) fail "unknown argument '$1' (usage: amg.sh DIR [--json OUT])" ;;
        esac
    done
    [ -d "$dir" ] || fail "$dir is not a directory"
    ls "$dir"/*.mtx >/dev/null 2>&1 || fail "no .mtx files in $dir"

    setup

    # One thread everywhere (hypre is built without OpenMP; keep NumPy's BLAS
    # on one thread too), unless the caller chose otherwise.
    export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
    export MKL_NUM_THREADS="${MKL_NUM_THREADS:-1}"

    tmp=$(mktemp)
    trap 'rm -f "$tmp"' EXIT
    status=0
    for m in "$dir"/*.mtx; do
        case $m in *.b.mtx) continue ;; esac
        name=$(basename "$m" .mtx)
        say "--- $name"
        if ! "$PY" "$HERE/amg_pyamg.py" "$m" --tol "$TOL" --repeat "$REPEAT" >>"$tmp"; then
            say "$name: pyamg peers failed"
            status=1
        fi
        set -- --tol "$TOL" --repeat "$REPEAT"
        [ -f "$dir/$name.b.mtx" ] && set -- "$@" --b "$dir/$name.b.mtx"
        for theta in $THETAS; do
            for relax in $RELAX; do
                if ! "$HYPRE_BIN" "$m" "$@" --theta "$theta" --relax "$relax" >>"$tmp"; then
                    say "$name: hypre (theta $theta, relax $relax) failed"
                    status=1
                fi
            done
        done
    done
    grep '^{' "$tmp" || true
    if [ -n "$out" ]; then
        mkdir -p "$(dirname "$out")"
        grep '^{' "$tmp" >"$out" || true
        say "wrote $out"
    fi
    table "$tmp" >&2
    exit "$status"
}

main "$@"
