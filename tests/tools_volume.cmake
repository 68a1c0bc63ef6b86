# Soft bodies from real surfaces through sinew-prep: what --tetrahedralise does
# with surfaces that are not clean, and what it refuses. The CGAL models are
# Debian's demo data (tools/run.sh fetches them); skipped (77) without them.
set(VOL_OUT ${CMAKE_CURRENT_BINARY_DIR}/out/volume)
file(MAKE_DIRECTORY ${VOL_OUT})
set(CGAL_DIR "d=\${SINEW_CGAL_DATA:-}/meshes; [ -f \"$d/elephant-with-holes.off\" ] || exit 77")

# A surface with 1 353 open edges: the lattice meshes it, and says why.
add_test(NAME tool_prep_volume_with_holes
  COMMAND sh -c "${CGAL_DIR}; '$<TARGET_FILE:sinew-prep>' \"$d/elephant-with-holes.off\" --tetrahedralise --max-volume 1e-4 -o '${VOL_OUT}/holes.snw'")
set_tests_properties(tool_prep_volume_with_holes PROPERTIES LABELS cpu SKIP_RETURN_CODE 77
  PASS_REGULAR_EXPRESSION "is on one face only.*meshed instead as lattice cubes.*wrote")

# A self-intersecting one: TetGen names the faces, the lattice meshes it.
add_test(NAME tool_prep_volume_self_intersecting
  COMMAND sh -c "${CGAL_DIR}; '$<TARGET_FILE:sinew-prep>' \"$d/cow.off\" --tetrahedralise --max-volume 1e-4 -o '${VOL_OUT}/cow.snw'")
set_tests_properties(tool_prep_volume_self_intersecting PROPERTIES LABELS cpu SKIP_RETURN_CODE 77
  PASS_REGULAR_EXPRESSION "intersects itself: faces [0-9]+ and [0-9]+.*meshed instead as lattice cubes.*wrote")

# An open sheet (a mask) encloses no volume: refused, saying it is cloth.
add_test(NAME tool_prep_volume_open_sheet
  COMMAND sh -c "${CGAL_DIR}; '$<TARGET_FILE:sinew-prep>' \"$d/mask_cone.off\" --tetrahedralise -o '${VOL_OUT}/mask.snw'; test $? -eq 1")
set_tests_properties(tool_prep_volume_open_sheet PROPERTIES LABELS cpu SKIP_RETURN_CODE 77
  PASS_REGULAR_EXPRESSION "encloses no volume.*an open sheet is cloth")

# Bones whose thin parts the lattice cuts apart: the pieces are counted;
# --pieces largest keeps one.
add_test(NAME tool_prep_volume_pieces
  COMMAND sh -c "${CGAL_DIR}; '$<TARGET_FILE:sinew-prep>' \"$d/bones.off\" --lattice 24 -o '${VOL_OUT}/bones.snw' && \
'$<TARGET_FILE:sinew-prep>' \"$d/bones.off\" --lattice 24 --pieces largest -o '${VOL_OUT}/bones-largest.snw'")
set_tests_properties(tool_prep_volume_pieces PROPERTIES LABELS cpu SKIP_RETURN_CODE 77
  PASS_REGULAR_EXPRESSION "[0-9]+ pieces joined by no face .largest [0-9]+ of [0-9]+ tetrahedra.*Keeping all.*Keeping the largest.*removed [0-9]+ vertices that no tetrahedron uses")

# A volume bound that needs more tetrahedra than the limit: refused before
# TetGen runs (a TetGen that would fail is named, and never heard from).
add_test(NAME tool_prep_volume_bound_too_small
  COMMAND sh -c "'$<TARGET_FILE:sinew-prep>' '${CMAKE_SOURCE_DIR}/data/pebble.off' --tetrahedralise --max-volume 1e-15 --tetgen /bin/false -o '${VOL_OUT}/tiny.snw'; test $? -eq 1")
set_tests_properties(tool_prep_volume_bound_too_small PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "a maximum volume of 1e-15 m.3 needs at least [0-9.e+]+ tetrahedra"
  FAIL_REGULAR_EXPRESSION "/bin/false")

# The asset never replaces the surface it was made from.
add_test(NAME tool_prep_volume_out_not_input
  COMMAND sh -c "cp '${CMAKE_SOURCE_DIR}/data/pebble.off' '${VOL_OUT}/pebble.off' && \
'$<TARGET_FILE:sinew-prep>' '${VOL_OUT}/pebble.off' --tetrahedralise -o '${VOL_OUT}/pebble.off'; \
test $? -eq 2 && cmp '${CMAKE_SOURCE_DIR}/data/pebble.off' '${VOL_OUT}/pebble.off' && echo input-kept")
set_tests_properties(tool_prep_volume_out_not_input PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "is the mesh .*pebble.off: the asset would overwrite its input.*input-kept")

# A box past the volume limits: the numbers, not only "a limit".
add_test(NAME tool_prep_box_past_limits
  COMMAND sh -c "'$<TARGET_FILE:sinew-prep>' --box 1000 1000 1000 1 1 1 -o '${VOL_OUT}/huge.snw'; test $? -eq 1")
set_tests_properties(tool_prep_box_past_limits PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "--box 1000 1000 1000: 1000000000 vertices and 5982017994 tetrahedra, past the limits of 67108864 and 67108864")

# Thin parts kept (the camel's legs, ears and tail, thinner than a lattice
# cube of 3 cm): cubes join where the surface lies farther than half a cube
# from those inside, and the cube of every surface vertex joins too, so that
# the tetrahedra hold all 9 770 of its vertices in one piece (following the
# surface alone left 46 % out, by up to 0.57 cubes, in 2 pieces), at the
# cost of volume beyond the surface, which the log gives; the model itself
# becomes the render mesh embedded in them.
add_test(NAME tool_prep_volume_thin_parts
  COMMAND sh -c "${CGAL_DIR}; '$<TARGET_FILE:sinew-prep>' \"$d/camel.off\" --tetrahedralise -o '${VOL_OUT}/camel.snw'")
set_tests_properties(tool_prep_volume_thin_parts PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 FIXTURES_SETUP camel_asset
  PASS_REGULAR_EXPRESSION "[0-9]+ more cubes keep the parts thinner than a cube.*[0-9]+ more cubes hold the surface's vertices.*holding them, the tetrahedra take [0-9.e-]+ m\\^3 where the surface encloses [0-9.e-]+ m\\^3 \\(\\+[1-2][0-9]%\\).*0 of 9770 surface vertices \\(0[.]00%\\) outside the tetrahedra.*render mesh of 9770 vertices, 19536 triangles embedded"
  FAIL_REGULAR_EXPRESSION "pieces joined by no face")

# A landing that holds: the camel dropped with sinew-sim's defaults (GPBD
# Gauss-Seidel, 8 substeps) blows up on its thin legs at step 21; the health
# check's landing bounds catch it, and the run goes back to the last kept
# state and on at twice the substeps until it lands (64), stable, exit 0.
add_test(NAME tool_sim_landing_retries
  COMMAND sh -c "${CGAL_DIR}; '$<TARGET_FILE:sinew-sim>' '${VOL_OUT}/camel.snw' -n 40 -q --no-png --json '${VOL_OUT}/camel.json' \
-o '${VOL_OUT}/camel' && grep -q '\"status\":[[:space:]]*\"finished\"' '${VOL_OUT}/camel.json' && \
grep -q '\"retry_count\":[[:space:]]*[1-9]' '${VOL_OUT}/camel.json' && echo landed")
set_tests_properties(tool_sim_landing_retries PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 FIXTURES_REQUIRED camel_asset
  PASS_REGULAR_EXPRESSION "failed the health check at 8 substeps: back to step [0-9]+, on at 16.*stability +stable.*retries +[1-9].*landed"
  FAIL_REGULAR_EXPRESSION "UNSTABLE|NOT STABLE|Validation")

# A run ends stable only with no tetrahedron inverted: the CGAL joint
# (TetGen) lands at 8 substeps, but at step 40 a second impact has 7
# tetrahedra inverted, within the health check's bounds; the run goes back
# to the last state kept (after 8 steps with none inverted) and ends the
# run at 16, stable.
add_test(NAME tool_sim_landing_last_step_inverted
  COMMAND sh -c "${CGAL_DIR}; command -v tetgen > /dev/null || exit 77; \
'$<TARGET_FILE:sinew-prep>' \"$d/joint.off\" --tetrahedralise -o '${VOL_OUT}/joint.snw' > /dev/null && \
'$<TARGET_FILE:sinew-sim>' '${VOL_OUT}/joint.snw' -n 40 -q --no-png -o '${VOL_OUT}/joint' && echo landed")
set_tests_properties(tool_sim_landing_last_step_inverted PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
  PASS_REGULAR_EXPRESSION "[1-9][0-9]* tetrahedra inverted at the last step, 40, at 8 substeps: back to step [0-9]+, on at 16.*stability +stable.*inverted tets +0 last step.*landed"
  FAIL_REGULAR_EXPRESSION "UNSTABLE|NOT STABLE|Validation")
