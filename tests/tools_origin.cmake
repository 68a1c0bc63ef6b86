# Bodies placed far out by their asset's origin (sinew-prep --translate,
# sinew-sim --origin; docs/accuracy.md "Far from the origin"): origin.sh.
set(ORIGIN_OUT ${CMAKE_CURRENT_BINARY_DIR}/out/origin)

# A cloth prepped 10 km out rests as the one at home, within 1e-3 of its
# sag (before the origin, 0.12 of it apart).
add_test(NAME tool_origin_far_cloth
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/origin.sh cloth $<TARGET_FILE:sinew-prep> $<TARGET_FILE:sinew-sim>
          ${ORIGIN_OUT}/cloth)
set_tests_properties(tool_origin_far_cloth PROPERTIES LABELS gpu TIMEOUT 600
  PASS_REGULAR_EXPRESSION "rests alike" FAIL_REGULAR_EXPRESSION "FAILED|sinew (error|warning)")

# A bad --translate or --origin is refused, naming it.
add_test(NAME tool_origin_bad_values
  COMMAND sh -c "'$<TARGET_FILE:sinew-prep>' --grid 4x4 --translate 0,2e9,0 -q -o '${ORIGIN_OUT}-bad.snw'; test $? -eq 2 && \
'$<TARGET_FILE:sinew-sim>' --origin 0,nan,0 -n 1; test $? -eq 2")
set_tests_properties(tool_origin_bad_values PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "--translate: \"0,2e9,0\" reaches beyond 1e9 m.*--origin: .*is not finite")
