#!/bin/sh
# Runs the Poisson-ratio table of docs/gpbd-scenes.md: bar-stretch, bar-compress
# and bar-twist for nu in 0.45 .. 0.4995, neo-Hookean and stable neo-Hookean,
# then the block and cube scenes, one sinew-sim JSON summary per run, and
# prints the table as Markdown.
#
#   tools/gpbd-scenes.sh [OUT_DIR]      (default docs/data/gpbd-scenes)
#
# Sizes are scaled down from the paper's for a CPU Vulkan (lavapipe); the
# environment can change them: SIM (the sinew-sim binary), BAR_CELLS (6),
# COMPRESS_CELLS (7), FRAMES (200), RAMP (0.15 s), ITER (3), BLOCK_CELLS (7),
# CUBE_CELLS (10), ONLY (table | extra: run one part), and the subset run:
# SCENES ("stretch compress twist"), NUS ("0.45 0.49 0.495 0.499 0.4995"),
# MATERIALS ("nh snh"), BLOCK_FRAMES (100), CUBE_FRAMES (60), SKIP (names of
# runs to leave out, e.g. "bar-twist-snh-0.45").
#
# At the paper's sizes (docs/gpbd-scenes.md, "At the paper's sizes"):
#   BAR_CELLS=16 COMPRESS_CELLS=21 FRAMES=2000 RAMP=2 NUS="0.45 0.4995" \
#   BLOCK_CELLS=21 BLOCK_FRAMES=200 CUBE_CELLS=26 CUBE_FRAMES=60 \
#   tools/gpbd-scenes.sh docs/data/gpbd-scenes-paper
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/docs/data/gpbd-scenes}
sim=${SIM:-$here/build/tools/sinew-sim}
bar_cells=${BAR_CELLS:-6}
compress_cells=${COMPRESS_CELLS:-7}
frames=${FRAMES:-200}
ramp=${RAMP:-0.15}
iter=${ITER:-3}
block_cells=${BLOCK_CELLS:-7}
cube_cells=${CUBE_CELLS:-10}
only=${ONLY:-all}
scenes=${SCENES:-stretch compress twist}
nus=${NUS:-0.45 0.49 0.495 0.499 0.4995}
materials=${MATERIALS:-nh snh}
block_frames=${BLOCK_FRAMES:-100}
cube_frames=${CUBE_FRAMES:-60}
skip=${SKIP:-}
meshes=${TMPDIR:-/tmp}/gpbd-scenes-meshes
mkdir -p "$out" "$meshes" || exit 1

run() { # name, then sinew-sim options
    name=$1
    shift
    case " $skip " in *" $name "*) echo "$name: skipped" >&2; return ;; esac
    start=$(date +%s)
    "$sim" "$@" -q -o "$meshes/$name" --json "$out/$name.json" > "$meshes/$name.txt" 2>&1
    rc=$?
    echo "$name: exit $rc, $(($(date +%s) - start)) s" >&2
}

if [ "$only" != extra ]; then
    for scene in $scenes; do
        cells=$bar_cells
        [ $scene = compress ] && cells=$compress_cells
        for nu in $nus; do
            for m in $materials; do
                run "bar-$scene-$m-$nu" --scene bar-$scene --cells "$cells" --material $m --poisson $nu \
                    --frames "$frames" --ramp "$ramp" --iterations "$iter"
            done
        done
    done
fi
if [ "$only" != table ]; then
    for m in $materials; do
        run "block-flat-$m" --scene block-flat --cells "$block_cells" --material $m --poisson 0.4995 --frames "$block_frames"
        run "block-random-$m" --scene block-random --cells "$block_cells" --material $m --poisson 0.4995 --frames "$block_frames"
    done
    run "cube-drop-nh" --scene cube-drop --cells "$cube_cells" --frames "$cube_frames"
fi

python3 - "$out" <<'EOF'
import json, os, sys
d = sys.argv[1]
def load(n):
    p = os.path.join(d, n + ".json")
    return json.load(open(p)) if os.path.exists(p) else None
def pct(x):
    return "-" if x is None else ("%.3g" % (100 * x))
print("| scene | nu | material | stable | GPBD it. | Newton mean (bound) | ms/step | max / RMS dV % | total dV % | inverted |")
print("|---|---|---|---|---|---|---|---|---|---|")
for s in ("stretch", "compress", "twist"):
    for nu in ("0.45", "0.49", "0.495", "0.499", "0.4995"):
        for m in ("nh", "snh"):
            j = load("bar-%s-%s-%s" % (s, m, nu))
            if not j:
                continue
            f = j["final"]
            st = "yes" if j["stable"] else "**no** (step %d)" % j["unstable_step"]
            ms = j["ms_per_step_gpu"] if j["ms_per_step_gpu"] is not None else j["ms_per_step_wall"]
            print("| %s %d^3 | %s | %s | %s | %d | %.2f (%d) | %.0f | %s / %s | %s | %d |" % (
                s, j["cells"], nu, m.upper(), st, j["iterations"], j.get("newton_mean") or 0,
                j["newton_iterations"], ms, pct(f["max_volume_error"]), pct(f["rms_volume_error"]),
                pct(f["total_volume_error"]), f["inverted_tets"]))
EOF
