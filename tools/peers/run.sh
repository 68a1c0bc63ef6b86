#!/bin/sh
# Run the SCENE.md sweeps for every peer that is set up, appending one JSON
# line per run to a JSONL file.
#
#   tools/peers/run.sh [OUT.jsonl] [PEER...]
#
# OUT defaults to tools/peers/results.jsonl; PEERs default to all. Peers not
# set up (tools/peers/setup.sh) are skipped with a note. Sizes: N = 32 and 64
# always; N = 128 with each run limited to PEER_LARGE_LIMIT seconds (default
# 60, SCENE.md's "under a minute"): a run that takes longer is dropped.
# Environment: PEER_SIZES (default "32 64 128"), PEER_STEPS (default 120).
#
# Adding a peer: write run_<name> (see run_bullet), add <name> to PEERS.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
BUILD="$HERE/build"
PEERS="bullet python"

OUT=${1:-"$HERE/results.jsonl"}
if [ $# -gt 0 ]; then shift; fi
SIZES=${PEER_SIZES:-"32 64 128"}
STEPS=${PEER_STEPS:-120}
LARGE_LIMIT=${PEER_LARGE_LIMIT:-60}

# SCENE.md sweeps as SUBSTEPSxITERATIONS: substeps 1 with iterations
# 1..32, then iterations 1 with substeps 2..16.
SWEEP_ITERATIONS="1x1 1x2 1x4 1x8 1x16 1x32"
SWEEP_SUBSTEPS="2x1 4x1 8x1 16x1"

say() { printf 'run: %s\n' "$*" >&2; }

TMP=$(mktemp)
trap 'rm -f "$TMP"' EXIT
trap 'exit 130' INT TERM

# run_one PEER N CMD...: run one point; append its JSON line to OUT if it
# succeeds (within the time limit for N > 64).
run_one() {
    one_peer=$1 one_n=$2
    shift 2
    limit=""
    if [ "$one_n" -gt 64 ] && command -v timeout >/dev/null 2>&1; then
        limit="timeout $LARGE_LIMIT"
    fi
    set +e
    $limit "$@" >"$TMP"
    rc=$?
    set -e
    if [ "$rc" -eq 124 ]; then
        say "$one_peer n=$one_n: over ${LARGE_LIMIT}s, dropped: $*"
    elif [ "$rc" -ne 0 ] || ! grep -q '^{' "$TMP"; then
        say "$one_peer n=$one_n: failed (status $rc): $*"
    else
        grep '^{' "$TMP" >>"$OUT"
        tail -n 1 "$OUT" >&2
    fi
}

# sweep PEER CMD...: run CMD --n N --substeps S --iterations K --steps STEPS
# over all sizes and sweep points.
sweep() {
    sweep_peer=$1
    shift
    for n in $SIZES; do
        for point in $SWEEP_ITERATIONS $SWEEP_SUBSTEPS; do
            s=${point%x*} k=${point#*x}
            run_one "$sweep_peer" "$n" "$@" --n "$n" --substeps "$s" \
                --iterations "$k" --steps "$STEPS"
        done
    done
}

# --- peers ------------------------------------------------------------------

run_bullet() {
    bin="$BUILD/bullet_cloth"
    if [ ! -x "$bin" ]; then
        say "bullet: $bin not built (tools/peers/setup.sh bullet); skipped"
        return 0
    fi
    sweep bullet "$bin"
}

# pypbd and Newton (XPBD, VBD), from the venv setup.sh python made.
VENV=${PEERS_VENV:-"$BUILD/venv"}
PY="$VENV/bin/python"

# have MODULE: whether the venv can import MODULE.
have() {
    [ -x "$PY" ] && "$PY" -c "import $1" >/dev/null 2>&1
}

run_python() {
    if have pypbd; then
        sweep pypbd "$PY" "$HERE/pypbd_cloth.py"
    else
        say "pypbd: not installed in $VENV (tools/peers/setup.sh python); skipped"
    fi
    if have newton; then
        sweep newton_xpbd "$PY" "$HERE/warp_cloth.py" --solver xpbd
        sweep newton_vbd "$PY" "$HERE/warp_cloth.py" --solver vbd
    else
        say "newton: not installed in $VENV (tools/peers/setup.sh python); skipped"
    fi
}

# --- dispatcher ---------------------------------------------------------------

main() {
    [ $# -gt 0 ] || set -- $PEERS
    for peer in "$@"; do
        case " $PEERS " in
        *" $peer "*) ;;
        *)
            say "unknown peer '$peer' (known: $PEERS)"
            exit 2
            ;;
        esac
    done
    mkdir -p "$(dirname "$OUT")"
    for peer in "$@"; do
        say "--- $peer -> $OUT"
        "run_$peer"
    done
}

main "$@"
