# The tools' command lines under misuse and their less travelled paths: each
# test names the fault a user made and checks the message they would read.
set(PREP $<TARGET_FILE:sinew-prep>)
set(SIM $<TARGET_FILE:sinew-sim>)
set(INFO $<TARGET_FILE:sinew-info>)
set(BENCH $<TARGET_FILE:sinew-bench>)
set(CLI_OUT ${CMAKE_CURRENT_BINARY_DIR}/out/cli)
file(MAKE_DIRECTORY ${CLI_OUT} ${CLI_OUT}/outputs)

# --resume goes on where the checkpoint left off: N + M steps in one run and N
# steps, a checkpoint, then M resumed steps end in the same state, for scenes
# that change with time: bar-twist's pins turn over a ramp; a cloth is cut at a
# frame while a turned box collider moves and spins through it (the resumed
# run comes after the cut); a soft bar of MGPBD with an AMG setup every 7
# steps, saved 3 steps after one (the checkpoint carries the lazy setup).
# Each compares the state hash and the final mesh's bytes.
foreach(scene bar cloth mgpbd)
  if(scene STREQUAL bar)
    set(args "--scene bar-twist --cells 6 --ramp 0.2")
    set(make "true")
  elseif(scene STREQUAL mgpbd)
    set(args "\"$d/bar.snw\" --no-png --solver mgpbd --setup-interval 7")
    set(make "'${PREP}' '${CMAKE_CURRENT_SOURCE_DIR}/data/bar-v2.msh' -q -o \"$d/bar.snw\"")
  else()
    set(args "\"$d/g.snw\" --no-png --box 0,0.5,0.2,0.3,0.3,0.3,0,0,1,20 --velocity 0,0,-1 --spin 0,2,0 --cut-y 1.0 --cut-frame 5")
    set(make "'${PREP}' --grid 12x12 --plane xy --pin-corners -q -o \"$d/g.snw\"")
  endif()
  add_test(NAME tool_sim_resume_${scene}
    COMMAND sh -c "d='${CLI_OUT}/resume-${scene}'; rm -rf \"$d\"; mkdir -p \"$d\" && ${make} && \
'${SIM}' ${args} -q --frames 20 --hash -o \"$d/straight\" > \"$d/straight.txt\" && \
'${SIM}' ${args} -q --frames 10 --checkpoint \"$d/c.snwc\" -o \"$d/first\" > /dev/null && \
'${SIM}' ${args} -q --frames 10 --resume \"$d/c.snwc\" --hash -o \"$d/resumed\" > \"$d/resumed.txt\" || exit 1; \
a=$(grep 'state hash' \"$d/straight.txt\"); b=$(grep 'state hash' \"$d/resumed.txt\"); \
echo \"straight: $a\"; echo \"resumed:  $b\"; [ -n \"$a\" ] && [ \"$a\" = \"$b\" ] && \
cmp \"$d/straight/final.obj\" \"$d/resumed/final.obj\" && echo 'resume: the same state and mesh'")
  set_tests_properties(tool_sim_resume_${scene} PROPERTIES LABELS gpu
    PASS_REGULAR_EXPRESSION "resume: the same state and mesh" FAIL_REGULAR_EXPRESSION "Validation|Sanitizer")
endforeach()

# No output overwrites an input, and every output is checked before the run
# (exit status 2, the asset untouched): --checkpoint or --json naming the
# asset, --json in a folder that is not there, -o naming a file, --video
# without ffmpeg on PATH. A missing -o folder is made with its parents.
add_test(NAME tool_cli_asset_for_outputs
  COMMAND ${PREP} --grid 8x8 --pin-corners -q -o ${CLI_OUT}/outputs/g.snw)
set_tests_properties(tool_cli_asset_for_outputs PROPERTIES LABELS cpu FIXTURES_SETUP cli_grid)
add_test(NAME tool_sim_outputs_not_inputs
  COMMAND sh -c "d='${CLI_OUT}/outputs'; cp \"$d/g.snw\" \"$d/before.snw\" || exit 1; \
for o in --checkpoint --json --log; do '${SIM}' \"$d/g.snw\" $o \"$d/../outputs/g.snw\" -o \"$d/run\"; \
s=$?; [ $s -eq 2 ] || { echo \"$o: exit status $s\"; exit 1; }; done; \
cmp \"$d/g.snw\" \"$d/before.snw\" && echo 'asset untouched'")
set_tests_properties(tool_sim_outputs_not_inputs PROPERTIES LABELS cpu FIXTURES_REQUIRED cli_grid
  PASS_REGULAR_EXPRESSION "--checkpoint .*g.snw is the asset .*g.snw: an output never overwrites an input.*--json .*is the asset.*--log .*is the asset.*asset untouched")
add_test(NAME tool_sim_outputs_checked_first
  COMMAND sh -c "d='${CLI_OUT}/outputs'; touch \"$d/a-file\"; \
'${SIM}' \"$d/g.snw\" --json /nonexistent/summary.json -o \"$d/run\"; [ $? -eq 2 ] || exit 1; \
'${SIM}' \"$d/g.snw\" -o \"$d/a-file\"; [ $? -eq 2 ] || exit 1; \
PATH=/nonexistent '${SIM}' \"$d/g.snw\" --every 5 --png --video \"$d/v.mp4\" -o \"$d/run\"; [ $? -eq 2 ] || exit 1; \
'${SIM}' \"$d/g.snw\" --json \"$d/s.json\" --log \"$d/s.json\" -o \"$d/run\"; [ $? -eq 2 ] || exit 1; \
[ ! -e \"$d/run/final.obj\" ] && echo 'nothing ran'")
set_tests_properties(tool_sim_outputs_checked_first PROPERTIES LABELS cpu FIXTURES_REQUIRED cli_grid
  PASS_REGULAR_EXPRESSION "--json /nonexistent/summary.json: cannot create: No such file or directory.*-o .*a-file is a file.*--video needs ffmpeg on PATH.*--json and --log both name .*s.json.*nothing ran")
add_test(NAME tool_sim_out_makes_parents
  COMMAND sh -c "d='${CLI_OUT}/outputs/deep'; rm -rf \"$d\"; \
'${SIM}' '${CLI_OUT}/outputs/g.snw' --frames 2 -q --no-png -o \"$d/a/b\" && [ -f \"$d/a/b/final.obj\" ] && echo 'made a/b'")
set_tests_properties(tool_sim_out_makes_parents PROPERTIES LABELS gpu FIXTURES_REQUIRED cli_grid
  PASS_REGULAR_EXPRESSION "made a/b" FAIL_REGULAR_EXPRESSION "Validation|Sanitizer")
add_test(NAME tool_prep_out_not_input
  COMMAND sh -c "d='${CLI_OUT}/prep-input'; mkdir -p \"$d\"; cp '${CMAKE_CURRENT_SOURCE_DIR}/data/fin.obj' \"$d/fin.obj\"; \
'${PREP}' \"$d/fin.obj\" -o \"$d/./fin.obj\"; s=$?; \
cmp \"$d/fin.obj\" '${CMAKE_CURRENT_SOURCE_DIR}/data/fin.obj' && [ $s -eq 2 ] && echo 'mesh untouched'")
set_tests_properties(tool_prep_out_not_input PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "-o .*fin.obj is the mesh .*fin.obj: the asset would overwrite its input.*mesh untouched")

# Options sinew-prep used to take silently: trailing text after a grid size,
# an inverted pin box, a top band that pins every particle of a flat grid, a
# pin index past the input's vertices with --subdivide.
add_test(NAME tool_prep_grid_trailing_text COMMAND sh -c "'${PREP}' --grid 16x16junk -o '${CLI_OUT}/x.snw'; test $? -eq 2")
set_tests_properties(tool_prep_grid_trailing_text PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "--grid: \"16x16junk\" is not NXxNY")
add_test(NAME tool_prep_pin_box_inverted
  COMMAND sh -c "'${PREP}' --grid 8x8 --pin-box 0,0,1,1,2,0 -o '${CLI_OUT}/x.snw'; test $? -eq 1")
set_tests_properties(tool_prep_pin_box_inverted PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "pin box 1 is inverted or not finite along z: from 1 to 0 m")
add_test(NAME tool_prep_pin_top_flat
  COMMAND sh -c "'${PREP}' --grid 8x8 --pin-top 0.05 -o '${CLI_OUT}/x.snw'; test $? -eq 1")
set_tests_properties(tool_prep_pin_top_flat PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "pin_top \\(--pin-top\\) 0.05 would pin all 64 particles: the mesh is flat along y .*no top edge")
add_test(NAME tool_prep_pin_subdivided
  COMMAND sh -c "'${PREP}' --grid 4x4 --subdivide 1 --pin 3,20 -o '${CLI_OUT}/x.snw'; test $? -eq 1")
set_tests_properties(tool_prep_pin_subdivided PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "--pin 20: the grid has 16 vertices .0..15.; with --subdivide pins name the input's vertices")

# Stacked layers of cloth: a 3-layer 8x8 grid is 3 x 64 particles, 0.05 m
# apart along +y (+z for --plane xy), each layer pinned at its corners, so
# no part is warned about; a layer count or gap out of range, and layers of
# a mesh file, are refused naming the option (exit status 2).
add_test(NAME tool_cli_prep_layers
  COMMAND sh -c "'${PREP}' --grid 8x8 --layers 3 --layer-gap 0.05 --pin-corners -o '${CLI_OUT}/layers.snw' && \
'${INFO}' '${CLI_OUT}/layers.snw' && '${PREP}' --grid 8x8 --plane xy --layers 2 --layer-gap 0.25 -q -o '${CLI_OUT}/layers-xy.snw' && \
'${INFO}' '${CLI_OUT}/layers-xy.snw'")
set_tests_properties(tool_cli_prep_layers PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "particles: +192 \\(6 pinned\\).*bounds: +\\(-0\\.5, 1, -0\\.5\\) \\.\\. \\(0\\.5, 1\\.1, 0\\.5\\) m.*particles: +128 \\(0 pinned\\).*bounds: +\\(-0\\.5, 0\\.5, 0\\) \\.\\. \\(0\\.5, 1\\.5, 0\\.25\\) m"
  FAIL_REGULAR_EXPRESSION "without a pin|warning")
add_test(NAME tool_cli_prep_layers_refused
  COMMAND sh -c "for a in '--layers 0' '--layers 65' '--layer-gap -1' '--layer-gap nan'; do \
'${PREP}' --grid 8x8 $a -o '${CLI_OUT}/x.snw'; [ $? -eq 2 ] || exit 1; done; \
'${PREP}' '${CMAKE_CURRENT_SOURCE_DIR}/data/fin.obj' --layers 2 -o '${CLI_OUT}/x.snw'; [ $? -eq 2 ] && echo 'all refused'")
set_tests_properties(tool_cli_prep_layers_refused PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "--layers: \"0\" is not a whole number in 1\\.\\.64.*--layers: \"65\" is not a whole number in 1\\.\\.64.*--layer-gap: \"-1\" is not a gap > 0 .m.*--layer-gap: \"nan\" is not a finite number.*--layers and --layer-gap apply to --grid only.*all refused")

# Messages that name what was wrong: a coordinate that is not finite; a
# ground height that is not a float (and none computed with --no-ground, so
# the run goes on); a soft scene past the volume limits, with the numbers;
# every suite of sinew-bench, from its one table, when the name is wrong.
add_test(NAME tool_sim_not_finite_value COMMAND sh -c "'${SIM}' --sphere 0,nan,0,1; test $? -eq 2")
set_tests_properties(tool_sim_not_finite_value PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "--sphere: number 2 of \"0,nan,0,1\", \"nan\", is not finite")
add_test(NAME tool_cli_huge_asset
  COMMAND ${PREP} --grid 4x4 --plane xy --size 3e38x3e38 --height -1.5e38 --density 1e-70 -q -o ${CLI_OUT}/huge.snw)
set_tests_properties(tool_cli_huge_asset PROPERTIES LABELS cpu FIXTURES_SETUP cli_huge)
add_test(NAME tool_sim_ground_not_finite
  COMMAND sh -c "'${SIM}' '${CLI_OUT}/huge.snw' -q -o '${CLI_OUT}/huge'; test $? -eq 1")
set_tests_properties(tool_sim_ground_not_finite PROPERTIES LABELS cpu FIXTURES_REQUIRED cli_huge
  PASS_REGULAR_EXPRESSION "spans 3e\\+38 m from y = -3e\\+38 m: a ground a quarter of its size below it at y = -inf m is not a finite float; give --ground Y or --no-ground")
add_test(NAME tool_sim_no_ground_computed
  COMMAND ${SIM} ${CLI_OUT}/huge.snw --no-ground --frames 1 -q --no-png -o ${CLI_OUT}/huge)
set_tests_properties(tool_sim_no_ground_computed PROPERTIES LABELS gpu FIXTURES_REQUIRED cli_huge
  PASS_REGULAR_EXPRESSION "final mesh" FAIL_REGULAR_EXPRESSION "ground_height|Validation|Sanitizer")
add_test(NAME tool_sim_scene_past_limits COMMAND sh -c "'${SIM}' --scene cube-drop --cells 400 -q; test $? -eq 1")
set_tests_properties(tool_sim_scene_past_limits PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "400\\^3 vertices are 64000000 vertices and 381127194 tetrahedra, past the limits of 67108864 and 67108864")
add_test(NAME tool_bench_lists_every_suite
  COMMAND sh -c "m=$('${BENCH}' --suite bogus 2>&1); [ $? -eq 2 ] || exit 1; echo \"$m\"; n=0; \
for s in $('${BENCH}' --help | sed -n '/^Suites/,/^$/p' | sed -n 's/^  \\([a-z0-9-]*\\) .*/\\1/p'); do \
n=$((n + 1)); echo \"$m\" | grep -q \"[ ,]$s[ ,]\\|[ ,]$s$\" || { echo \"suite $s not listed\"; exit 1; }; done; \
[ $n -ge 9 ] && echo \"all $n suites listed\"")
set_tests_properties(tool_bench_lists_every_suite PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "all [0-9]+ suites listed" FAIL_REGULAR_EXPRESSION "not listed")

# sinew-info on a device reads nothing: /dev/zero is refused at once (it used
# to read 4 GiB of zeros before refusing the 32-byte header); a large file
# that is not an asset is refused on its header alone.
add_test(NAME tool_info_device
  COMMAND sh -c "'${INFO}' /dev/zero; test $? -eq 1")
set_tests_properties(tool_info_device PROPERTIES LABELS cpu TIMEOUT 5
  PASS_REGULAR_EXPRESSION "/dev/zero: is a character device, not a file; nothing was read")
add_test(NAME tool_info_not_an_asset
  COMMAND sh -c "f='${CLI_OUT}/zeros.snw'; head -c 67108864 /dev/zero > \"$f\" && '${INFO}' \"$f\"; s=$?; rm -f \"$f\"; test $s -eq 1")
set_tests_properties(tool_info_not_an_asset PROPERTIES LABELS cpu TIMEOUT 5
  PASS_REGULAR_EXPRESSION "zeros.snw: bad magic 00 00 00 00: not a sinew asset")

# A mesh in two parts, pinned in one: sinew-prep says how many parts and
# particles have no pin. Its sliver triangle has an edge of about a
# micrometre: the summary's stretch leaves such edges out (they are reported
# apart, with their rest length), so the cloth's 0.1 % is not drowned by the
# sliver's thousands of per cent.
add_test(NAME tool_prep_parts_without_pins
  COMMAND ${PREP} ${CMAKE_CURRENT_SOURCE_DIR}/data/sliver_two_parts.obj --pin 0,5 -o ${CLI_OUT}/sliver.snw)
set_tests_properties(tool_prep_parts_without_pins PROPERTIES LABELS cpu FIXTURES_SETUP cli_sliver
  PASS_REGULAR_EXPRESSION "2 connected parts, 1 of them without a pin .4 of 41 particles.: those fall on their own")
add_test(NAME tool_sim_stretch_without_short_edges
  COMMAND ${SIM} ${CLI_OUT}/sliver.snw --frames 60 -q --no-png --json ${CLI_OUT}/sliver.json -o ${CLI_OUT}/sliver)
set_tests_properties(tool_sim_stretch_without_short_edges PROPERTIES LABELS gpu FIXTURES_REQUIRED cli_sliver
  PASS_REGULAR_EXPRESSION "stretch +0\\.[0-9]+% at most at the last step, edge [0-9]+-[0-9]+ .rest 0\\.2[0-9]* m., over the 86 edges at least a tenth of the median rest length 0\\.2 m, free of pins and whole; [0-9.]+% length-weighted mean.*edges at pins +5 left out above.*short edges +1 shorter than 0\\.02 m left out above: at most [0-9.e+]+%, edge 35-36 .rest 1\\.07e-06 m."
  FAIL_REGULAR_EXPRESSION "Validation|Sanitizer")

# A PLY whose header has lines assimp skips (author, TextureFile,
# generated_by) is read, not refused by sinew's own check of the header.
add_test(NAME tool_prep_ply_named_header_lines
  COMMAND ${PREP} ${CMAKE_CURRENT_SOURCE_DIR}/data/named_lines.ply -o ${CLI_OUT}/named_lines.snw)
set_tests_properties(tool_prep_ply_named_header_lines PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "'author' is no PLY keyword; the line is skipped.*wrote .*named_lines.snw: 4 particles")
if(NOT SINEW_HAVE_ASSIMP)
  set_tests_properties(tool_prep_ply_named_header_lines PROPERTIES DISABLED ON)
endif()

# A tool stopped by a signal (signals.sh): sinew-sim, signalled once its
# first periodic checkpoint is written, finishes the step, writes the
# summary, --json ("status": "interrupted", the signal, the step), the final
# mesh and a checkpoint of that step, from which --resume goes on, and exits
# with 128 + the signal (130 for SIGINT, 143 for SIGTERM). sinew-prep
# --tetrahedralise, signalled while TetGen (a stand-in that sleeps) runs,
# stops it and removes its temporary folder from the test's own TMPDIR
# (SIGHUP 129, SIGTERM 143).
foreach(case "int;INT;130" "term;TERM;143")
  list(GET case 0 name)
  list(GET case 1 sig)
  list(GET case 2 status)
  add_test(NAME tool_sim_stopped_by_sig${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/signals.sh sim ${PREP} ${SIM} ${CLI_OUT}/sim-sig${name} ${sig} ${status})
  set_tests_properties(tool_sim_stopped_by_sig${name} PROPERTIES LABELS gpu TIMEOUT 180
    PASS_REGULAR_EXPRESSION "interrupted +by SIG${sig} after step [0-9]+.*resumed at step [0-9]+\nstopped cleanly"
    FAIL_REGULAR_EXPRESSION "FAILED|Validation|Sanitizer")
endforeach()
foreach(case "hup;HUP;129" "term;TERM;143")
  list(GET case 0 name)
  list(GET case 1 sig)
  list(GET case 2 status)
  add_test(NAME tool_prep_tetgen_stopped_by_sig${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/signals.sh tetgen ${PREP} ${CMAKE_SOURCE_DIR}/data/pebble.off
            ${CLI_OUT}/tetgen-sig${name} ${sig} ${status})
  set_tests_properties(tool_prep_tetgen_stopped_by_sig${name} PROPERTIES LABELS cpu TIMEOUT 120
    PASS_REGULAR_EXPRESSION "interrupted while .*tetgen was meshing it.*stopped by SIG${sig}.*TetGen stopped, no temporary folder left\nstopped cleanly"
    FAIL_REGULAR_EXPRESSION "FAILED|Sanitizer")
endforeach()

# Estimates before work (docs/prep-library.md#estimates): a build whose
# estimated memory passes --max-memory is refused at once, before the mesh is
# meshed or subdivided, naming the estimate, the limit and the option:
# sinew-prep's lattice, subdivision and box, sinew-sim's soft scene box; a
# size that is not one is a bad option (2); a build within it goes on.
add_test(NAME tool_prep_max_memory
  COMMAND sh -c "d='${CLI_OUT}/max-memory'; rm -rf \"$d\"; mkdir -p \"$d\"; \
'${PREP}' '${CMAKE_SOURCE_DIR}/data/pebble.off' --lattice 200 --max-memory 64M -o \"$d/l.snw\"; [ $? -eq 1 ] || exit 1; \
'${PREP}' --grid 16x16 --subdivide 8 --max-memory 64M -o \"$d/s.snw\"; [ $? -eq 1 ] || exit 1; \
'${PREP}' --box 100 100 100 1 1 1 --max-memory 64M -o \"$d/b.snw\"; [ $? -eq 1 ] || exit 1; \
'${SIM}' --scene cube-drop --cells 100 --max-memory 64M --frames 1 -o \"$d/run\"; [ $? -eq 1 ] || exit 1; \
'${PREP}' --grid 8x8 --max-memory 12Q -o \"$d/q.snw\"; [ $? -eq 2 ] || exit 1; \
[ ! -e \"$d/l.snw\" ] && [ ! -e \"$d/s.snw\" ] && [ ! -e \"$d/b.snw\" ] && [ ! -e \"$d/run/final.obj\" ] || exit 1; \
'${PREP}' --grid 16x16 --subdivide 2 --max-memory 64M -q -o \"$d/ok.snw\" && echo 'nothing built past the bound'")
set_tests_properties(tool_prep_max_memory PROPERTIES LABELS cpu TIMEOUT 60
  PASS_REGULAR_EXPRESSION "--lattice 200 needs about [0-9.]+ GiB of memory \\(an estimate: [0-9.]+ million tetrahedra[^)]*\\), past the limit of 64 MiB; --max-memory SIZE raises it.*--subdivide 8 needs about .*--max-memory SIZE raises it.*--box 100 100 100 needs about .*--max-memory SIZE raises it.*--cells 100 needs about .*--max-memory SIZE raises it.*--max-memory: \"12Q\" is not a size.*nothing built past the bound"
  FAIL_REGULAR_EXPRESSION "Sanitizer|past the limits of")

# A self-collision thickness of many edge lengths is warned about before the
# first step, naming --thickness: 27 edges of a 32 x 32 grid (the broad phase
# some 9 times the work at one edge); none at 0.01 m (a third of an edge).
add_test(NAME tool_sim_thickness_warning
  COMMAND sh -c "d='${CLI_OUT}/thickness'; rm -rf \"$d\"; mkdir -p \"$d\"; \
'${PREP}' --grid 32x32 --pin-corners -q -o \"$d/g.snw\" || exit 1; \
'${SIM}' \"$d/g.snw\" --self-collision --thickness 0.01 --frames 1 --substeps 1 -q -o \"$d/thin\" 2> \"$d/thin.txt\" || exit 1; \
grep -q 'warning: --thickness' \"$d/thin.txt\" && { echo 'warned at 0.01 m'; exit 1; }; \
'${SIM}' \"$d/g.snw\" --self-collision --thickness 1 --frames 1 --substeps 1 -q -o \"$d/thick\" || exit 1")
set_tests_properties(tool_sim_thickness_warning PROPERTIES LABELS gpu TIMEOUT 120
  PASS_REGULAR_EXPRESSION "warning: --thickness 1 m is 27 times the mean edge length of .*g.snw's surface .*[0-9]+ times the work at a thickness of one edge length; the steps will be slow: lower --thickness"
  FAIL_REGULAR_EXPRESSION "warned at|Validation|Sanitizer")
