#!/bin/sh
# Final-state hashes of every solver on small scenes (sinew-sim --hash),
# cuts and checkpoint resumes included: run it with two builds and diff the
# outputs to show that a change left every solver's results bit for bit.
#   tools/solver-hashes.sh [BUILD_DIR] [OUT_DIR]   (defaults: build, /tmp/sinew-hashes)
# SINEW_OLD_NAMES=1: spell the XPBD solvers gs, sgs, jacobi (builds before
# the solvers had one name each).
set -eu
build=${1:-build}
out=${2:-/tmp/sinew-hashes}
prep="$build/tools/sinew-prep"
sim="$build/tools/sinew-sim"
mkdir -p "$out"
# The tools' progress lines go to a log; on a failure it says where.
exec 3>&2 2>"$out/stderr.log"
trap 'status=$?; [ $status -eq 0 ] || echo "solver-hashes: failed ($status); see $out/stderr.log" >&3' EXIT
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
name() {
    if [ "${SINEW_OLD_NAMES:-0}" = 1 ]; then
        case $1 in xpbd-gs) echo gs ;; xpbd-sgs) echo sgs ;; xpbd-jacobi) echo jacobi ;; *) echo "$1" ;; esac
    else
        echo "$1"
    fi
}
"$prep" --grid 24x24 --pin-corners -o "$out/cloth.snw" >/dev/null
"$prep" --grid 24x24 --triangulate --no-shear --plane xy --pin-top 0.001 --hierarchy 3 -o "$out/h.snw" >/dev/null
"$prep" --grid 20x20 --no-shear --no-bending --red-black --pin-corners -o "$out/net.snw" >/dev/null
"$prep" --grid 7x7 --pin-corners --subdivide 2 -o "$out/mg.snw" >/dev/null
"$prep" --box 4 4 4 0.2 0.2 0.2 --material nh --poisson 0.45 -o "$out/block.snw" >/dev/null
hash() {
    label=$1
    shift
    printf '%-24s %s\n' "$label" "$("$sim" "$@" -q --hash -o "$out/o" | sed -n 's/.*state hash *//p')"
}
for s in xpbd-gs xpbd-sgs xpbd-jacobi; do hash "cloth $s" "$out/cloth.snw" -n 20 --solver "$(name $s)"; done
hash "default scene" -n 10
hash "hpbd" "$out/h.snw" --solver hpbd -n 20 --substeps 2 --iterations 2
hash "hpbd cut" "$out/h.snw" --solver hpbd -n 20 --substeps 2 --iterations 2 --cut-y 1.0 --cut-frame 5
for s in pd-rbgs pd-jacobi pd-chebyshev; do hash "net $s" "$out/net.snw" -n 20 --solver $s --stretch-compliance 1e-4; done
for s in implicit-mg implicit-pcg; do
    hash "mg $s" "$out/mg.snw" -n 10 --solver $s --substeps 1
    hash "mg $s bdf2" "$out/mg.snw" -n 10 --solver $s --substeps 1 --bdf2
done
for s in gpbd-gs gpbd-jacobi; do hash "block $s" "$out/block.snw" -n 10 --solver $s; done
"$sim" "$out/mg.snw" -n 10 --solver implicit-mg --substeps 1 --bdf2 -q --checkpoint "$out/mg.snwc" -o "$out/o" >/dev/null
hash "mg bdf2 resumed" "$out/mg.snw" -n 10 --solver implicit-mg --substeps 1 --bdf2 --resume "$out/mg.snwc"
"$sim" "$out/h.snw" --solver hpbd -n 10 --substeps 2 -q --checkpoint "$out/h.snwc" -o "$out/o" >/dev/null
hash "hpbd resumed" "$out/h.snw" --solver hpbd -n 10 --substeps 2 --resume "$out/h.snwc"
echo "checkpoint crc          $(cksum < "$out/mg.snwc" | cut -d' ' -f1)"
