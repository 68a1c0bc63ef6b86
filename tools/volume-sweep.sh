#!/bin/sh
# Every surface in a folder through sinew-prep --tetrahedralise: one line a
# file (how it was meshed, or why not; for the lattice, the share of the
# surface's vertices left outside the tetrahedra and the farthest, in
# cubes) and the counts at the end. With LAND=N in the environment each soft
# body is then dropped for N steps by sinew-sim with its defaults (GPBD, the
# health check's landing bound, --retries): how the landing went.
#   tools/volume-sweep.sh [FOLDER] [sinew-prep options]
#   LAND=60 tools/volume-sweep.sh
# FOLDER defaults to Debian's CGAL demo meshes as tools/run.sh fetches them
# (build/cgal-data/meshes).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build/cgal-data/meshes}
[ $# -gt 0 ] && shift
prep=$root/build/tools/sinew-prep
sim=$root/build/tools/sinew-sim
land=${LAND:-0}
[ -x "$prep" ] || { echo "build sinew-prep first (tools/run.sh build)" >&2; exit 2; }
[ -d "$dir" ] || { echo "$dir: no such folder (tools/run.sh test-release fetches the CGAL data)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tetgen=0 lattice=0 open=0 other=0 landed=0 retried=0 failed=0
for f in "$dir"/*; do
    n=$(basename "$f")
    if "$prep" "$f" --tetrahedralise "$@" -o "$tmp/out.snw" > "$tmp/log" 2>&1; then
        tets=$(sed -n 's/^wrote [^:]*: [0-9]* particles ([0-9]* pinned), \([0-9]*\) tetrahedra.*/\1/p' "$tmp/log")
        if grep -q "meshed instead as lattice cubes" "$tmp/log"; then
            lattice=$((lattice + 1)); how="lattice"
            out=$(sed -n 's/.*: \([0-9]*\) of \([0-9]*\) surface vertices (\([0-9.]*%\)) outside the tetrahedra, the farthest [^(]*(\([^)]*\)).*/\3 outside, farthest \4/p' "$tmp/log")
        else
            tetgen=$((tetgen + 1)); how="tetgen"
            out="0% outside (TetGen keeps the surface's vertices)"
        fi
        line=$(printf '%-36s %-8s %8s tetrahedra, %s' "$n" "$how" "$tets" "$out")
        if [ "$land" -gt 0 ]; then
            "$sim" "$tmp/out.snw" -n "$land" -q --no-png --json "$tmp/run.json" -o "$tmp/run" > "$tmp/sim" 2>&1
            code=$?
            tries=$(sed -n 's/.*"retry_count":[[:space:]]*\([0-9]*\).*/\1/p' "$tmp/run.json" 2>/dev/null)
            status=$(sed -n 's/.*"status":[[:space:]]*"\([a-z]*\)".*/\1/p' "$tmp/run.json" 2>/dev/null)
            if [ "$code" -eq 0 ] && [ "${tries:-0}" -eq 0 ]; then landed=$((landed + 1))
            elif [ "$code" -eq 0 ]; then retried=$((retried + 1))
            else failed=$((failed + 1)); fi
            line="$line; landing: ${status:-failed}, exit $code, ${tries:-?} retries"
        fi
        echo "$line"
    elif grep -q "encloses no volume" "$tmp/log"; then
        open=$((open + 1))
        printf '%-36s %-8s %s\n' "$n" "refused" "$(grep -o 'encloses no volume[^(;]*' "$tmp/log" | head -1)"
    else
        other=$((other + 1))
        printf '%-36s %-8s %s\n' "$n" "failed" "$(grep -m1 'error' "$tmp/log" | cut -c1-160)"
    fi
done
echo "soft bodies: $((tetgen + lattice)) ($tetgen by TetGen, $lattice as lattice cubes); enclosing no volume: $open; other failures: $other"
[ "$land" -gt 0 ] && echo "landings of $land steps: $landed held, $retried held after retries, $failed failed"
exit 0
