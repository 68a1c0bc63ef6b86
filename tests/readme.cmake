# Every command README.md shows, run by tests/readme_commands.sh with this
# build's tools (shortened where lavapipe would take minutes), so none can go
# stale; the commands it does not run (tools/run.sh, the benchmark scripts,
# the install) it checks, or names the test that runs them. It starts an X
# server for the viewer's commands, so it holds the lock "xserver" as the
# viewer's tests do: one of them at a time, beside the other tests.
if(NOT TARGET sinew-sim)
  return()
endif()
add_test(NAME readme_commands
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/readme_commands.sh ${CMAKE_SOURCE_DIR}/README.md
          $<TARGET_FILE_DIR:sinew-sim> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/out/readme)
set_tests_properties(readme_commands PROPERTIES LABELS gpu RESOURCE_LOCK xserver TIMEOUT 600
  PASS_REGULAR_EXPRESSION "all [0-9]+ README commands passed")
