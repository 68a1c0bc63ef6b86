# Sanitizer builds (SINEW_SANITIZE set, as by the asan preset): the runtime
# options every test runs with (appended to SINEW_TEST_ENV) and the output that
# fails any test (SINEW_TEST_FAIL_REGEX). docs/sanitizers.md explains each.

# Keeps the Vulkan loader's modules mapped until exit (see keep_loaded.c).
# Not instrumented: it is preloaded into sh and glslangValidator as well.
add_library(sinew_keep_loaded MODULE ${CMAKE_CURRENT_LIST_DIR}/keep_loaded.c)
target_compile_options(sinew_keep_loaded PRIVATE -fno-sanitize=all)
target_link_options(sinew_keep_loaded PRIVATE -fno-sanitize=all)

# ASAN_OPTIONS:
#   verify_asan_link_order=0  keep_loaded.so is preloaded ahead of libasan; it
#                             defines dlclose only, nothing ASan intercepts.
#   quarantine_size_mb=16     freed memory held back to catch use after free.
#                             The default 256 MB counts requested bytes only;
#                             with the validation layer's churn of small blocks
#                             the device probe test grew to 12.7 GB resident
#                             and took 40 s, against 1.1 GB and 6 s with 16.
list(APPEND SINEW_TEST_ENV
  "ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0:quarantine_size_mb=16:strict_string_checks=1:detect_stack_use_after_return=1"
  "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
  "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan.supp"
  "LD_PRELOAD=$<TARGET_FILE:sinew_keep_loaded>")

# Any report fails the test, whatever its exit status: a Criterion worker's
# leak report comes after its result is sent (the test still "passes"), and a
# test with PASS_REGULAR_EXPRESSION ignores the exit status.
set(SINEW_TEST_FAIL_REGEX "(Address|Leak|UndefinedBehavior)Sanitizer|runtime error: ")
