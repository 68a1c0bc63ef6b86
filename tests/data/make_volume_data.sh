#!/bin/sh
# Regenerates the volume meshes the tests read, from bracket.geo (a block with a
# cylindrical hole, 100 nodes, 258 tetrahedra):
#   bracket-v2.msh  bracket-v2-bin.msh  bracket-v4.msh  bracket-v4-bin.msh
#       the same mesh in Gmsh's formats 2.2 and 4.1, ASCII and binary, with the
#       points, lines and triangles Gmsh saves beside the tetrahedra;
#   bracket.node  bracket.ele
#       the same mesh as TetGen files (1-based, as the .msh node tags),
#       converted here from the 2.2 ASCII file;
# and two meshes of a bar in two regions (materials), for the region tests:
#   bar-v2.msh  bar-v2-bin.msh  bar-v4.msh  bar-v4-bin.msh
#       bar.geo (physical volumes 7 and 3, 55 nodes, 120 tetrahedra) in the
#       same four formats; only the tetrahedra, as Gmsh saves a model with
#       physical groups;
#   bar-tetgen.node  bar-tetgen.ele
#       bar.poly meshed by TetGen with its region attributes (-A: regions 5
#       and 2, 48 points, 68 tetrahedra).
# Needs Debian's gmsh and tetgen. Run from anywhere; writes beside this script.
set -eu
cd "$(dirname "$0")"
gmsh -3 bracket.geo -format msh22 -o bracket-v2.msh >/dev/null
gmsh -3 bracket.geo -format msh22 -bin -o bracket-v2-bin.msh >/dev/null
gmsh -3 bracket.geo -format msh41 -o bracket-v4.msh >/dev/null
gmsh -3 bracket.geo -format msh41 -bin -o bracket-v4-bin.msh >/dev/null
awk '
/^\$Nodes/ { section = "nodes"; getline; print $1, 3, 0, 0 > "bracket.node"; next }
/^\$EndNodes/ { section = ""; next }
/^\$Elements/ { section = "elements"; next }
/^\$EndElements/ { section = ""; next }
section == "nodes" { print > "bracket.node" }
section == "elements" && $2 == 4 { n++; tet[n] = $(4 + $3) " " $(5 + $3) " " $(6 + $3) " " $(7 + $3) }
END {
    print "# bracket.geo meshed by gmsh: tetrahedra, 1-based" > "bracket.ele"
    print n, 4, 0 > "bracket.ele"
    for (i = 1; i <= n; i++) print i, tet[i] > "bracket.ele"
}' bracket-v2.msh
gmsh -3 bar.geo -format msh22 -o bar-v2.msh >/dev/null
gmsh -3 bar.geo -format msh22 -bin -o bar-v2-bin.msh >/dev/null
gmsh -3 bar.geo -format msh41 -o bar-v4.msh >/dev/null
gmsh -3 bar.geo -format msh41 -bin -o bar-v4-bin.msh >/dev/null
tmp=$(mktemp -d)
cp bar.poly "$tmp/"
(cd "$tmp" && tetgen -pqAzQ -a0.002 bar.poly >/dev/null)
mv "$tmp/bar.1.node" bar-tetgen.node
mv "$tmp/bar.1.ele" bar-tetgen.ele
rm -rf "$tmp"

# Seeds of the fuzz targets fuzz_msh and fuzz_tetgen (tests/fuzz/corpus/):
# the files above, and a unit cube of 24 tetrahedra in three encodings, small
# enough for quick mutations. A TetGen seed is the .node text, a NUL, then the
# .ele text.
corpus=../fuzz/corpus
mkdir -p "$corpus/msh" "$corpus/tetgen"
cp bracket-v2.msh bracket-v2-bin.msh bracket-v4.msh bracket-v4-bin.msh tiny-sparse-v4.msh "$corpus/msh/"
cp bar-v2.msh bar-v4-bin.msh "$corpus/msh/"   # two physical volumes: regions
tmp=$(mktemp -d)
printf 'SetFactory("OpenCASCADE");\nBox(1) = {0, 0, 0, 1, 1, 1};\nMesh.MeshSizeMin = 2;\nMesh.MeshSizeMax = 2;\n' \
    >"$tmp/cube.geo"
gmsh -3 "$tmp/cube.geo" -format msh22 -o "$corpus/msh/cube-v2.msh" >/dev/null
gmsh -3 "$tmp/cube.geo" -format msh22 -bin -o "$corpus/msh/cube-v2-bin.msh" >/dev/null
gmsh -3 "$tmp/cube.geo" -format msh41 -bin -o "$corpus/msh/cube-v4-bin.msh" >/dev/null
rm -rf "$tmp"
for pair in tiny bracket; do
    { cat "$pair.node"; printf '\000'; cat "$pair.ele"; } >"$corpus/tetgen/$pair"
done
{ cat bar-tetgen.node; printf '\000'; cat bar-tetgen.ele; } >"$corpus/tetgen/bar-regions"
printf '4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n\000%s\n%s\n' '1 10 0' '1 1 2 3 4 1 2 3 4 1 2' \
    >"$corpus/tetgen/ten-node"
