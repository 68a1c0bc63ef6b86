#!/bin/sh
# Hierarchical PBD (Müller 2008): the paper's figures 3 and 7 repeated on
# sinew, with sinew-prep and sinew-sim; docs/hpbd.md shows the results.
#
#   tools/hpbd-figures.sh [BUILD_DIR] [OUT_DIR]   (defaults: build, docs/data/hpbd)
#   PLOT_ONLY=1 tools/hpbd-figures.sh BUILD_DIR OUT_DIR   the plots of earlier runs
#
# Figure 3: a cloth of 64 x 64 particles (63 rows of quads, 126 rows of
# triangles), 1 m square, hanging from its top edge under gravity at 60 steps
# per second, one substep. For each set-up (no hierarchy; 3 and 5 levels with
# rest-pose coarse lengths, right for a flat cloth; 5 levels with geodesic
# ones; level-0 sweeps alternating forward and backward as the paper's, and
# also all forward) and each count N of level-0 iterations it hangs for 3 s; its stretch
# is the mean elongation (l - L) / L of its constraints (compression counted
# as 0), averaged over the last second; the largest elongation is recorded
# too. fig3.csv has every run; fig3-needed.csv the least N (of those run)
# that keeps the stretch under each target.
#
# Figure 7: a 77 x 77 cloth (11 552 triangles), the same scene: the hierarchy
# (5 levels) with 2 iterations against plain XPBD Gauss-Seidel at 2, 5, 10 and
# 20 iterations and on up the list until it is as stiff, both with alternating
# sweeps (the paper switches the hierarchy off keeping the iterations); plain
# forward sweeps too; stretch and GPU time per step (timestamps) in fig7.csv.
# sinew-bench --suite hpbd measures the same with repeated timing rounds.
#
# Slow on a CPU device (lavapipe: about an hour on two cores); the device is
# named in the output.
set -eu
BUILD=${1:-build}
OUT=${2:-docs/data/hpbd}
PREP=$BUILD/tools/sinew-prep
SIM=$BUILD/tools/sinew-sim
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"

FRAMES=180
# Over the last 60 steps of a sinew-sim --log file: the mean elongation, the
# largest, and the GPU time of a step.
measure() {
    awk -F, -v from=$((FRAMES - 60)) 'NR > 1 && $1 > from { s += $8; m += $7; t += $3; n++ }
        END { printf "%.6g,%.6g,%.4f\n", s / n, m / n, t / n }' "$1"
}

# cloth NX LEVELS REST -> asset path (LEVELS 1: no hierarchy; REST pose|geodesic)
cloth() {
    a=$TMP/cloth-$1-$2-$3.snw
    if [ ! -f "$a" ]; then
        h=""
        [ "$2" -gt 1 ] && h="--hierarchy $2 --hierarchy-rest $3"
        # shellcheck disable=SC2086
        "$PREP" --grid "$1x$1" --triangulate --no-shear --plane xy --height 1.5 --pin-top 0.001 $h -q -o "$a"
    fi
    echo "$a"
}

# run ASSET SOLVER ITERATIONS SWEEP -> "stretch,largest,gpu_ms"
run() {
    "$SIM" "$1" --solver "$2" --iterations "$3" --sweep "$4" --substeps 1 --frames $FRAMES --no-ground --no-sphere \
        --damping 1 --log "$TMP/log.csv" --json "$TMP/run.json" -q -o "$TMP/out" > /dev/null
    measure "$TMP/log.csv"
}

# PNG plots of the CSVs with gnuplot, when it is installed.
plot() {
    command -v gnuplot > /dev/null || { echo "gnuplot not found: no plots"; return 0; }
    for setup in $SETUPS; do
        awk -F, -v s="$setup" 'NR > 1 && $1 ":" $2 ":" $3 == s { print $4, $5 }' "$1/fig3.csv" > "$TMP/$setup.dat"
    done
    awk -F, 'NR > 1 && $1 == "xpbd-gs" && $2 == "alternating" { print $6, $4, $3 }' "$1/fig7.csv" > "$TMP/alt.dat"
    awk -F, 'NR > 1 && $1 == "xpbd-gs" && $2 == "forward" { print $6, $4, $3 }' "$1/fig7.csv" > "$TMP/fwd.dat"
    awk -F, 'NR > 1 && $1 == "hpbd" { print $6, $4, $3 }' "$1/fig7.csv" > "$TMP/hpbd.dat"
    gnuplot <<EOF3
set terminal pngcairo size 900,560 font "sans,11"
set datafile missing "none"
set logscale xy
set grid
set key top right
set output "$1/fig3.png"
set title "Hanging 64 x 64 cloth (126 rows of triangles), one substep at 60 Hz\n$2"
set xlabel "level-0 iterations"
set ylabel "stretch: mean elongation"
plot "$TMP/1:pose:alternating.dat" w lp t "no hierarchy", \
     "$TMP/3:pose:alternating.dat" w lp t "3 levels", \
     "$TMP/5:pose:alternating.dat" w lp t "5 levels", \
     "$TMP/5:geodesic:alternating.dat" w lp t "5 levels, geodesic lengths", \
     "$TMP/1:pose:forward.dat" w lp dt 2 t "no hierarchy, forward sweeps", \
     "$TMP/5:pose:forward.dat" w lp dt 2 t "5 levels, forward sweeps"
set output "$1/fig3-needed.png"
set title "Level-0 iterations needed to keep the stretch under a target (Mueller 2008, figure 3)\n$2"
set xlabel "target stretch (mean elongation, %)"
set ylabel "iterations needed (none: more than 128)"
set xrange [12:0.8]
set yrange [0.8:200]
set key bottom right
set datafile separator ","
plot "$1/fig3-needed.csv" u (100*\$1):2 w lp lw 2 t "no hierarchy", "" u (100*\$1):3 w lp lw 2 t "3 levels", \
     "" u (100*\$1):4 w lp lw 2 t "5 levels", "" u (100*\$1):5 w lp dt 3 t "5 levels, geodesic lengths", \
     "" u (100*\$1):6 w lp dt 2 t "no hierarchy, forward sweeps", "" u (100*\$1):7 w lp dt 2 t "5 levels, forward sweeps"
set datafile separator whitespace
unset xrange
unset yrange
set output "$1/fig7.png"
set title "77 x 77 cloth (11 552 triangles): stretch against GPU time per step\n$2"
set xlabel "GPU ms per step"
set ylabel "stretch: mean elongation"
set key bottom left
plot "$TMP/alt.dat" u 1:2 w lp t "plain Gauss-Seidel (alternating)", \
     "" u 1:2:(sprintf("%d", \$3)) w labels offset 1.2,0.6 notitle, \
     "$TMP/fwd.dat" u 1:2 w lp dt 2 t "plain Gauss-Seidel (forward)", \
     "$TMP/hpbd.dat" u 1:2 w p pt 7 ps 1.5 t "hierarchy (5 levels) + 2 iterations"
EOF3
    echo "plots: $1/fig3.png $1/fig3-needed.png $1/fig7.png"
}

SETUPS="1:pose:alternating 3:pose:alternating 5:pose:alternating 5:geodesic:alternating 1:pose:forward 5:pose:forward"
if [ -n "${PLOT_ONLY:-}" ]; then
    plot "$OUT" "$(cat "$OUT/device.txt")"
    exit 0
fi

DEVICE=$("$SIM" --frames 1 --json "$TMP/dev.json" -q -o "$TMP/out" > /dev/null &&
         sed -n 's/.*"device":[[:space:]]*"\([^"]*\)".*/\1/p' "$TMP/dev.json")
echo "device: $DEVICE"

ITERS="1 2 3 4 5 6 8 10 12 16 20 24 32 40 48 64 80 96 128"
echo "levels,rest,sweep,iterations,stretch,largest,gpu_ms_per_step" > "$OUT/fig3.csv"
for setup in $SETUPS; do
    IFS=: read -r levels rest sweep <<EOF2
$setup
EOF2
    solver=hpbd
    [ "$levels" -eq 1 ] && solver=xpbd-gs
    a=$(cloth 64 "$levels" "$rest")
    for n in $ITERS; do
        m=$(run "$a" $solver "$n" "$sweep")
        echo "$levels,$rest,$sweep,$n,$m" | tee -a "$OUT/fig3.csv"
        # Under the smallest target the rest of the list costs time only.
        awk -v m="$m" 'BEGIN { split(m, v, ","); exit !(v[1] < 0.005) }' && break
    done
done
echo "target,$(echo "$SETUPS" | tr ' ' ',')" > "$OUT/fig3-needed.csv"
for target in 0.1 0.05 0.03 0.02 0.01 0.005; do
    line=$target
    for setup in $SETUPS; do
        need=$(awk -F, -v s="$setup" -v t="$target" \
            'NR > 1 && $1 ":" $2 ":" $3 == s && $5 <= t { print $4; exit }' "$OUT/fig3.csv")
        line="$line,${need:-none}"
    done
    echo "$line" | tee -a "$OUT/fig3-needed.csv"
done

echo "solver,sweep,iterations,stretch,largest,gpu_ms_per_step" > "$OUT/fig7.csv"
h=$(run "$(cloth 77 5 pose)" hpbd 2 alternating)
echo "hpbd,alternating,2,$h" | tee -a "$OUT/fig7.csv"
hs=${h%%,*}
for sweep in alternating forward; do
    for n in 2 5 10 20 24 28 32 40 48 64 80 96 128; do
        m=$(run "$(cloth 77 1 pose)" xpbd-gs "$n" "$sweep")
        echo "xpbd-gs,$sweep,$n,$m" | tee -a "$OUT/fig7.csv"
        if [ "$n" -ge 20 ] && awk -v a="${m%%,*}" -v b="$hs" 'BEGIN { exit !(a <= b) }'; then
            break
        fi
    done
done
echo "$DEVICE" > "$OUT/device.txt"
plot "$OUT" "$DEVICE"
echo "written: $OUT/fig3.csv $OUT/fig3-needed.csv $OUT/fig7.csv"
