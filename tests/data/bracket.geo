// A small bracket for the volume reader tests: a block with a cylindrical
// hole (OpenCASCADE), meshed coarsely. tests/data/make_volume_data.sh.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 2, 1, 1};
Cylinder(2) = {1, 0.5, -0.1, 0, 0, 1.2, 0.3};
BooleanDifference(3) = { Volume{1}; Delete; }{ Volume{2}; Delete; };
Mesh.MeshSizeMin = 0.5;
Mesh.MeshSizeMax = 0.6;
Mesh.MinimumCirclePoints = 6;
Mesh.MinimumCurvePoints = 2;
