#!/bin/sh
# Bodies placed far out by their asset's origin, through the tools:
#
#   origin.sh cloth PREP SIM DIR
#     a 16 x 16 cloth pinned at two corners, prepped at home and with
#     --translate 10000,0,10000, each run by sinew-sim (no ground, no
#     sphere, stretch compliance 1e-4, damping 4, 300 steps): the far one's
#     final.obj, in world coordinates, less the translation, rests within
#     1e-3 of the home cloth's sag of it. Also: only the far asset has an
#     ORIG section, sinew-info shows its origin, and --origin on the home
#     asset places it as --translate does.
#
# Prints what it measured; the last line is "rests alike" when all holds.
mode=$1 prep=$2 sim=$3 d=$4
rm -rf "$d" && mkdir -p "$d" || exit 1

fail() { echo "FAILED: $*"; exit 1; }

# The largest displacement of $1's vertices from the grid's rest pose (16 x
# 16 over 1 m x 1 m at y = 1, vertex j * 16 + i at (-0.5 + i/15, 1, -0.5 + j/15)),
# and the largest coordinate gap between $1 and $2 less (tx, ty, tz).
measure() {
    awk -v tx="$3" -v ty="$4" -v tz="$5" '
        FNR == 1 { file++ }
        $1 == "v" && file == 1 { hx[n] = $2; hy[n] = $3; hz[n] = $4; n++ }
        $1 == "v" && file == 2 { fx[m] = $2 - tx; fy[m] = $3 - ty; fz[m] = $4 - tz; m++ }
        function abs(x) { return x < 0 ? -x : x }
        END {
            if (n != 256 || m != 256) { print "vertices: " n " and " m ", not 256"; exit 1 }
            sag = 0; gap = 0
            for (k = 0; k < n; k++) {
                i = k % 16; j = int(k / 16)
                dx = hx[k] - (-0.5 + i / 15); dy = hy[k] - 1; dz = hz[k] - (-0.5 + j / 15)
                s = sqrt(dx * dx + dy * dy + dz * dz); if (s > sag) sag = s
                g = abs(fx[k] - hx[k]); if (g > gap) gap = g
                g = abs(fy[k] - hy[k]); if (g > gap) gap = g
                g = abs(fz[k] - hz[k]); if (g > gap) gap = g
            }
            printf "sag %.6g m, gap %.6g m, %.3g of the sag\n", sag, gap, gap / sag
            exit !(sag > 0.1 && gap <= 1e-3 * sag)
        }' "$1" "$2"
}

case $mode in
cloth)
    run="--no-ground --no-sphere --stretch-compliance 1e-4 --damping 4 -n 300 -q"
    "$prep" --grid 16x16 --pin-corners -q -o "$d/home.snw" || fail "sinew-prep at home"
    "$prep" --grid 16x16 --pin-corners --translate 10000,0,10000 -q -o "$d/far.snw" || fail "sinew-prep 10 km out"
    grep -q ORIG "$d/home.snw" && fail "the asset at home has an ORIG section"
    grep -q ORIG "$d/far.snw" || fail "the far asset has no ORIG section"
    "$sim" "$d/home.snw" $run -o "$d/home" || fail "sinew-sim at home"
    "$sim" "$d/far.snw" $run -o "$d/far" || fail "sinew-sim 10 km out"
    "$sim" "$d/home.snw" $run --origin 10000,0,10000 -o "$d/moved" || fail "sinew-sim --origin"
    head -2 "$d/far/final.obj" | tail -1 | grep -q '^v 9999\.5' || fail "far final.obj is not in world coordinates: $(head -2 "$d/far/final.obj")"
    echo "10 km out by --translate:"
    measure "$d/home/final.obj" "$d/far/final.obj" 10000 0 10000 || fail "the far cloth does not rest as the cloth at home"
    echo "10 km out by --origin:"
    measure "$d/home/final.obj" "$d/moved/final.obj" 10000 0 10000 || fail "--origin does not place it as --translate"
    echo "rests alike"
    ;;
*)
    fail "unknown mode $mode"
    ;;
esac
