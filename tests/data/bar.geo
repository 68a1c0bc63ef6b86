// A two-material bar for the region tests: two halves of 1 x 0.2 x 0.2 m,
// fused so that their meshes share the interface, in physical volumes 7
// ("soft", x < 0.5) and 3 ("stiff", x > 0.5). tests/data/make_volume_data.sh.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 0.5, 0.2, 0.2};
Box(2) = {0.5, 0, 0, 0.5, 0.2, 0.2};
BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; }
Physical Volume("soft", 7) = {1};
Physical Volume("stiff", 3) = {2};
Mesh.MeshSizeMin = 0.2;
Mesh.MeshSizeMax = 0.2;
