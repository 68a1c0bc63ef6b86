#!/bin/sh
# Every surface in a folder through sinew-prep --tetrahedralise: one line a
# file (how it was meshed, or why not) and the counts at the end.
#   tools/volume-sweep.sh [FOLDER] [sinew-prep options]
# FOLDER defaults to Debian's CGAL demo meshes as tools/run.sh fetches them
# (build/cgal-data/meshes).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build/cgal-data/meshes}
[ $# -gt 0 ] && shift
prep=$root/build/tools/sinew-prep
[ -x "$prep" ] || { echo "build sinew-prep first (tools/run.sh build)" >&2; exit 2; }
[ -d "$dir" ] || { echo "$dir: no such folder (tools/run.sh test-release fetches the CGAL data)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tetgen=0 lattice=0 open=0 other=0
for f in "$dir"/*; do
    n=$(basename "$f")
    if "$prep" "$f" --tetrahedralise "$@" -o "$tmp/out.snw" > "$tmp/log" 2>&1; then
        tets=$(sed -n 's/^wrote [^:]*: [0-9]* particles ([0-9]* pinned), \([0-9]*\) tetrahedra.*/\1/p' "$tmp/log")
        if grep -q "meshed instead as lattice cubes" "$tmp/log"; then
            lattice=$((lattice + 1)); how="lattice"
        else
            tetgen=$((tetgen + 1)); how="tetgen"
        fi
        printf '%-36s %-8s %s tetrahedra\n' "$n" "$how" "$tets"
    elif grep -q "encloses no volume" "$tmp/log"; then
        open=$((open + 1))
        printf '%-36s %-8s %s\n' "$n" "refused" "$(grep -o 'encloses no volume[^(;]*' "$tmp/log" | head -1)"
    else
        other=$((other + 1))
        printf '%-36s %-8s %s\n' "$n" "failed" "$(grep -m1 'error' "$tmp/log" | cut -c1-160)"
    fi
done
echo "soft bodies: $((tetgen + lattice)) ($tetgen by TetGen, $lattice as lattice cubes); enclosing no volume: $open; other failures: $other"
