# The programs of examples/ (examples/README.md) as tests: each checks its own
# result and exits non-zero on failure or on any validation message.
if(SINEW_BUILD_EXAMPLES AND TARGET sinew_prep_shared)
  add_test(NAME example_cloth_standalone COMMAND cloth_standalone)
  add_test(NAME example_asset_at_runtime
    COMMAND asset_at_runtime ${CMAKE_CURRENT_BINARY_DIR}/out/example_disc.snw)
  add_test(NAME example_cloth_in_renderer
    COMMAND cloth_in_renderer ${CMAKE_CURRENT_BINARY_DIR}/out/example_cloth.ppm)
  set_tests_properties(example_cloth_standalone example_asset_at_runtime example_cloth_in_renderer
    PROPERTIES LABELS "gpu;examples" TIMEOUT 120 FAIL_REGULAR_EXPRESSION "validation: |sinew \\[")

  # examples/ as a project of someone else's: sinew installed into a folder,
  # the examples configured there with find_package(sinew COMPONENTS prep), built
  # and run; asset_at_runtime also through pkg-config (sinew-prep.pc) and
  # against the static libraries. Not in sanitizer builds, whose
  # instrumented libraries an uninstrumented program cannot load.
  if(NOT SINEW_SANITIZE)
    set(ex ${CMAKE_CURRENT_BINARY_DIR}/out/examples_installed)
    add_test(NAME examples_installed
      COMMAND sh -c "set -e; rm -rf '${ex}'; mkdir -p '${ex}'; \
'${CMAKE_COMMAND}' --install '${CMAKE_BINARY_DIR}' --prefix '${ex}/prefix' > '${ex}.log'; \
'${CMAKE_COMMAND}' -S '${CMAKE_SOURCE_DIR}/examples' -B '${ex}/build' -DCMAKE_PREFIX_PATH='${ex}/prefix' \
  -DCMAKE_C_COMPILER='${CMAKE_C_COMPILER}' -DCMAKE_BUILD_TYPE=Release >> '${ex}.log'; \
'${CMAKE_COMMAND}' --build '${ex}/build' -j 2 >> '${ex}.log'; \
cd '${ex}'; ./build/cloth_standalone; ./build/asset_at_runtime disc.snw; ./build/cloth_in_renderer cloth.ppm; \
pc=$(dirname $(find '${ex}/prefix' -name sinew-prep.pc)); \
cc '${CMAKE_SOURCE_DIR}/examples/asset_at_runtime.c' $(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs sinew-prep) -lm \
  -o pc_asset_at_runtime; \
LD_LIBRARY_PATH=$pc/.. ./pc_asset_at_runtime | sed 's/^asset_at_runtime/pkg-config asset_at_runtime/'; \
cc '${CMAKE_SOURCE_DIR}/examples/asset_at_runtime.c' -I'${ex}/prefix/include' $pc/../libsinew_prep.a $pc/../libsinew.a \
  $(PKG_CONFIG_PATH=$pc pkg-config --static --libs-only-l sinew-prep | sed 's/-lsinew_prep//; s/-lsinew//') -lm \
  -o static_asset_at_runtime; \
./static_asset_at_runtime | sed 's/^asset_at_runtime/static asset_at_runtime/'; \
test -z \"$(nm -D --defined-only $(find '${ex}/prefix' -name 'libsinew_prep.so.*.*.*') | awk '{print $3}' | grep -v '^sinew_prep_')\"; \
echo only-sinew-prep-symbols")
    set_tests_properties(examples_installed PROPERTIES LABELS "gpu;install;examples" TIMEOUT 300
      PASS_REGULAR_EXPRESSION "cloth_standalone: .*576 particles.*0 validation messages.*asset_at_runtime: after.*cloth_in_renderer: 576 particles.*a world of 3 bodies in 2 chains.*0 validation messages.*pkg-config asset_at_runtime: after.*static asset_at_runtime: after.*only-sinew-prep-symbols"
      FAIL_REGULAR_EXPRESSION "validation: |sinew \\[|Validation")
  endif()
endif()
