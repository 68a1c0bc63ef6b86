# The tools on every kind of path (core/file.h, docs/reliability.md "Files"):
# outputs replace a regular file, are written through a symbolic link to its
# target, and refuse a device, FIFO or folder, changing nothing; inputs are
# regular files, a FIFO refused without waiting for a writer and a file
# larger than its header declares without reading it; every input and option
# is checked before a Vulkan context is made (run with no Vulkan driver, a
# context would fail with "no Vulkan context" first).
set(FILES_OUT ${CMAKE_CURRENT_BINARY_DIR}/out/files)
file(MAKE_DIRECTORY ${FILES_OUT})
set(NO_VULKAN "VK_ICD_FILENAMES=/nonexistent VK_DRIVER_FILES=/nonexistent")

# sinew-prep -o on each kind: a regular file (replaced), a link to one (the
# link stays, its target is written), a dangling link (its target made), a
# character device (mknod, as root; skipped otherwise), a link to /dev/null,
# a FIFO, a folder (each refused, exit status 2, left as it was). No
# temporary file is left anywhere.
add_test(NAME tool_prep_output_kinds
  COMMAND sh -c "d='${FILES_OUT}/prep-kinds'; rm -rf \"$d\"; mkdir -p \"$d/sub\" && cd \"$d\" || exit 1; \
p() { timeout 20 '${PREP}' --grid 4x4 -q -o \"$1\"; }; asset() { [ \"$(head -c 4 \"$1\")\" = SNWA ]; }; \
echo old > plain.snw; p plain.snw && asset plain.snw && echo 'regular: replaced'; \
echo old > target.snw; ln -s target.snw link.snw; p link.snw && [ -L link.snw ] && asset target.snw && echo 'link: written through'; \
ln -s sub/made.snw dangling.snw; p dangling.snw && [ -L dangling.snw ] && asset sub/made.snw && echo 'dangling link: target made'; \
if [ \"$(id -u)\" -eq 0 ] && mknod -m 666 null c 1 3 2>/dev/null; then p null; s=$?; [ $s -eq 2 ] && [ -c null ] && echo 'device: refused'; \
else echo 'device: skipped, mknod needs root'; fi; \
ln -s /dev/null to-null; p to-null; s=$?; [ $s -eq 2 ] && [ -L to-null ] && [ -c /dev/null ] && echo 'link to a device: refused'; \
mkfifo fifo; p fifo; s=$?; [ $s -eq 2 ] && [ -p fifo ] && echo 'fifo: refused'; \
mkdir folder; p folder; s=$?; [ $s -eq 2 ] && [ -d folder ] && echo 'folder: refused'; \
find . -name '*.tmp' | grep . && echo 'a temporary file was left'; true")
set_tests_properties(tool_prep_output_kinds PROPERTIES LABELS cpu TIMEOUT 60
  PASS_REGULAR_EXPRESSION "regular: replaced.*link: written through.*dangling link: target made.*device: (refused|skipped).*to-null, a link to /dev/null: is a character device, not a file; nothing was written.*link to a device: refused.*-o fifo: is a FIFO \\(named pipe\\), not a file; nothing was written.*fifo: refused.*-o folder: is a folder, not a file; nothing was written.*folder: refused"
  FAIL_REGULAR_EXPRESSION "temporary file was left")

# sinew-sim's outputs (--checkpoint, --json, --log, the final mesh) on a
# FIFO or a link to a device: refused before the run (exit status 2), with
# no Vulkan driver, left as they were.
add_test(NAME tool_sim_output_kinds_refused
  COMMAND sh -c "d='${FILES_OUT}/sim-kinds'; rm -rf \"$d\"; mkdir -p \"$d/run\" && cd \"$d\" || exit 1; \
'${PREP}' --grid 4x4 -q -o g.snw || exit 1; mkfifo fifo; ln -s /dev/null to-null; mkfifo run/final.obj; \
for o in --checkpoint --json --log; do for f in fifo to-null; do \
${NO_VULKAN} timeout 20 '${SIM}' g.snw $o $f -n 1 --no-png -o plain; s=$?; [ $s -eq 2 ] || { echo \"$o $f: exit status $s\"; exit 1; }; done; done; \
${NO_VULKAN} timeout 20 '${SIM}' g.snw -n 1 --no-png -o run; s=$?; [ $s -eq 2 ] || { echo \"final mesh: exit status $s\"; exit 1; }; \
[ -p fifo ] && [ -L to-null ] && [ -p run/final.obj ] && echo 'all refused, all left as they were'")
set_tests_properties(tool_sim_output_kinds_refused PROPERTIES LABELS cpu TIMEOUT 120
  PASS_REGULAR_EXPRESSION "--checkpoint fifo: is a FIFO \\(named pipe\\), not a file; nothing was written.*--checkpoint to-null, a link to /dev/null: is a character device.*--json fifo: is a FIFO.*--log to-null, a link to /dev/null.*the final mesh run/final.obj: is a FIFO.*all refused, all left as they were"
  FAIL_REGULAR_EXPRESSION "no Vulkan context")

# sinew-sim writes --checkpoint, --json and --log through links into
# another folder: the links stay links, their targets hold the outputs.
add_test(NAME tool_sim_outputs_through_links
  COMMAND sh -c "d='${FILES_OUT}/sim-links'; rm -rf \"$d\"; mkdir -p \"$d/real\" && cd \"$d\" || exit 1; \
'${PREP}' --grid 4x4 -q -o g.snw || exit 1; ln -s real/c.snwc c.snwc; ln -s real/s.json s.json; ln -s real/l.csv l.csv; \
'${SIM}' g.snw -n 2 -q --no-png --checkpoint c.snwc --json s.json --log l.csv -o run || exit 1; \
for f in c.snwc s.json l.csv; do [ -L $f ] && [ -s real/$f ] || { echo \"$f: not written through\"; exit 1; }; done; \
find . -name '*.tmp' | grep . && exit 1; head -c 4 real/c.snwc; echo; echo 'written through the links'")
set_tests_properties(tool_sim_outputs_through_links PROPERTIES LABELS gpu
  PASS_REGULAR_EXPRESSION "SNWC.written through the links" FAIL_REGULAR_EXPRESSION "Validation|Sanitizer")

# A FIFO given as an input to every tool that reads one is refused at once,
# naming it (it used to wait forever for a writer): exit status 1, never the
# timeout's 124.
add_test(NAME tool_inputs_fifo_refused
  COMMAND sh -c "d='${FILES_OUT}/fifo-in'; rm -rf \"$d\"; mkdir -p \"$d\" && cd \"$d\" || exit 1; \
'${PREP}' --grid 4x4 -q -o g.snw || exit 1; mkfifo fifo.snw fifo.obj; \
r() { timeout 10 \"$@\"; s=$?; [ $s -eq 1 ] || { echo \"$*: exit status $s\"; exit 1; }; }; \
r '${INFO}' fifo.snw; r env ${NO_VULKAN} '${SIM}' fifo.snw -o run; r env ${NO_VULKAN} '${SIM}' g.snw --resume fifo.snw -o run; \
r env ${NO_VULKAN} '${SIM}' g.snw --collider fifo.obj -o run; r '${PREP}' fifo.obj -o x.snw; echo 'every FIFO refused'")
set_tests_properties(tool_inputs_fifo_refused PROPERTIES LABELS cpu TIMEOUT 120
  PASS_REGULAR_EXPRESSION "fifo.snw: is a FIFO \\(named pipe\\), not a file; nothing was read.*the asset fifo.snw: is a FIFO.*--resume fifo.snw: is a FIFO.*--collider fifo.obj: is a FIFO.*the mesh fifo.obj: is a FIFO.*every FIFO refused")

# A 1 GiB sparse file behind a valid asset header is refused on its size,
# before it is read (it used to be read whole, 1 GiB of memory, before the
# header's size was compared): here within 200 MB of address space. An
# asset given to sinew-prep as a mesh is refused by its name, unread. (Under
# the sanitizers, whose shadow memory needs terabytes of address space, only
# the messages say it was not read.)
if(SINEW_SANITIZE)
  set(within_200mb ":")
else()
  set(within_200mb "ulimit -v 200000")
endif()
add_test(NAME tool_inputs_sparse_refused_unread
  COMMAND sh -c "d='${FILES_OUT}/sparse'; rm -rf \"$d\"; mkdir -p \"$d\" && cd \"$d\" || exit 1; \
'${PREP}' --grid 4x4 -q -o big.snw && truncate -s 1G big.snw || exit 1; \
(${within_200mb}; '${INFO}' big.snw); [ $? -eq 1 ] || exit 1; (${within_200mb}; '${PREP}' big.snw -o x.snw); [ $? -eq 2 ] && echo 'refused unread'")
set_tests_properties(tool_inputs_sparse_refused_unread PROPERTIES LABELS cpu TIMEOUT 30
  PASS_REGULAR_EXPRESSION "big.snw: 1073741824 bytes, more than the [0-9]+ its header declares \\(trailing bytes\\?\\); only the header was read.*big.snw is a sinew asset or checkpoint, not a mesh.*refused unread")

# Bad inputs and options are refused before a Vulkan context is made: with
# no Vulkan driver each refusal is the message about the input or option,
# never "no Vulkan context".
add_test(NAME tool_sim_refusals_before_context
  COMMAND sh -c "d='${FILES_OUT}/before-context'; rm -rf \"$d\"; mkdir -p \"$d\" && cd \"$d\" || exit 1; \
'${PREP}' --grid 4x4 -q -o g.snw || exit 1; export ${NO_VULKAN}; \
'${SIM}' g.snw --collider missing.obj -o run; [ $? -eq 1 ] || exit 1; \
'${SIM}' g.snw --add missing.snw -o run; [ $? -eq 1 ] || exit 1; \
'${SIM}' g.snw --resume missing.snwc -o run; [ $? -eq 1 ] || exit 1; \
'${SIM}' g.snw --resume g.snw --cut-y 0.5 --cut-frame 1 -o run; [ $? -eq 1 ] || exit 1; \
'${SIM}' g.snw --checkpoint-every 5 -o run; [ $? -eq 2 ] && echo 'refused before the context'")
set_tests_properties(tool_sim_refusals_before_context PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "--collider missing.obj: cannot open: No such file or directory.*--add missing.snw: cannot open.*--resume missing.snwc: cannot open.*g.snw: not a checkpoint \\(no SNWC header\\).*--checkpoint-every needs --checkpoint FILE.*refused before the context"
  FAIL_REGULAR_EXPRESSION "no Vulkan context|vkCreateInstance")
if(TARGET sinew-bench)
  add_test(NAME tool_bench_refusals_before_context
    COMMAND sh -c "d='${FILES_OUT}/bench-before-context'; rm -rf \"$d\"; export ${NO_VULKAN}; \
'$<TARGET_FILE:sinew-bench>' --suite mgpbd --dry-run --model /nonexistent/model.off -o \"$d\"; [ $? -eq 1 ] || exit 1; \
'$<TARGET_FILE:sinew-bench>' --suite quick --dry-run --peers /nonexistent/peers.jsonl -o \"$d\"; [ $? -eq 1 ] && echo 'refused before the context'")
  set_tests_properties(tool_bench_refusals_before_context PROPERTIES LABELS cpu
    PASS_REGULAR_EXPRESSION "--model /nonexistent/model.off: cannot open: No such file or directory.*--peers /nonexistent/peers.jsonl: cannot open.*refused before the context"
    FAIL_REGULAR_EXPRESSION "no Vulkan context|vkCreateInstance|suite on")
endif()
if(TARGET sinew-viewer)
  # Without a display: the missing asset is named, not the window system.
  add_test(NAME tool_viewer_refusals_before_window
    COMMAND sh -c "unset DISPLAY WAYLAND_DISPLAY; export ${NO_VULKAN}; \
'$<TARGET_FILE:sinew-viewer>' /nonexistent/cloth.snw; [ $? -eq 1 ] || exit 1; \
'$<TARGET_FILE:sinew-viewer>' --screenshot /nonexistent/shot.png; [ $? -eq 2 ] && echo 'refused before the window'")
  set_tests_properties(tool_viewer_refusals_before_window PROPERTIES LABELS cpu
    PASS_REGULAR_EXPRESSION "/nonexistent/cloth.snw: cannot open: No such file or directory.*--screenshot /nonexistent/shot.png: cannot create.*refused before the window"
    FAIL_REGULAR_EXPRESSION "no window|no Vulkan")
endif()
# sinew-info reads every argument first: a bad option after an asset is
# refused before the asset is read.
add_test(NAME tool_info_options_first
  COMMAND sh -c "d='${FILES_OUT}/info'; mkdir -p \"$d\" && '${PREP}' --grid 4x4 -q -o \"$d/g.snw\" || exit 1; \
'${INFO}' \"$d/g.snw\" --bogus; test $? -eq 2")
set_tests_properties(tool_info_options_first PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "usage: sinew-info" FAIL_REGULAR_EXPRESSION "particles:")

# --frames 0 is an option error (exit status 2), refused before the asset is
# read or a Vulkan context made; it used to run no step and report a strain
# of -100%.
add_test(NAME tool_sim_frames_zero_refused
  COMMAND sh -c "d='${FILES_OUT}/frames0'; rm -rf \"$d\"; mkdir -p \"$d\" && cd \"$d\" || exit 1; \
'${PREP}' --grid 4x4 -q -o g.snw || exit 1; \
${NO_VULKAN} timeout 20 '${SIM}' g.snw --frames 0 --no-png -o run; s=$?; [ $s -eq 2 ] && [ ! -e run ] && echo 'refused'")
set_tests_properties(tool_sim_frames_zero_refused PROPERTIES LABELS cpu TIMEOUT 30
  PASS_REGULAR_EXPRESSION "--frames: \"0\" is not a whole number in 1\\.\\.10000000.*refused"
  FAIL_REGULAR_EXPRESSION "no Vulkan context|-100")
