#!/bin/sh
# The sanitizer build, for CI (docs/sanitizers.md): configures and builds the
# asan preset (AddressSanitizer, UndefinedBehaviorSanitizer, LeakSanitizer) in
# build-asan/, then runs there the tests that drive sinew's host code without
# long scenes (below), with the options and suppressions of
# tests/sanitizer/. Exits non-zero on any failure, a sanitizer
# report included.
#   tools/sanitize.sh                  the whole sanitizer run
#   tools/sanitize.sh -R test_mesh     extra arguments go to ctest (a -R
#                                      replaces the selection)
# Needs the packages tools/run.sh installs (tools/run.sh build).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-asan"
jobs=$(nproc 2>/dev/null || echo 2)

sudo_if_needed() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Real meshes from Debian's CGAL demo data, as tools/run.sh test fetches them:
# SINEW_CGAL_DATA or the release build's copy when there, else unpacked into
# build-asan/. Prints the folder; without it those tests are skipped.
cgal_data() {
    for d in "${SINEW_CGAL_DATA:-}" "$root/build/cgal-data" "$build/cgal-data"; do
        if [ -n "$d" ] && [ -f "$d/meshes/mask_cone.off" ]; then
            echo "$d"
            return 0
        fi
    done
    data="$build/cgal-data"
    tmp=$(mktemp -d)
    if (cd "$tmp" && { apt-get download libcgal-demo >/dev/null 2>&1 ||
        { sudo_if_needed apt-get update -qq && apt-get download libcgal-demo >/dev/null 2>&1; }; }); then
        dpkg -x "$tmp"/libcgal-demo_*.deb "$tmp/x"
        mkdir -p "$data"
        tar xzf "$tmp/x/usr/share/doc/libcgal-dev/data.tar.gz" -C "$tmp" data/meshes
        cp -r "$tmp/data/meshes" "$data/"
    else
        echo "warning: could not download libcgal-demo; tests on real CGAL models will be skipped" >&2
    fi
    rm -rf "$tmp"
    echo "$data"
}

cmake --preset asan -S "$root" >/dev/null ||
    { echo "sanitize.sh: configuring failed; are the packages installed? (tools/run.sh build)" >&2; exit 1; }
cmake --build "$build" -j "$jobs"

export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
SINEW_CGAL_DATA=$(cgal_data)
export SINEW_CGAL_DATA
cd "$build"
# What runs here: every CPU test but test_imc (minutes of the implicit
# cloth's CPU reference, test code; the hierarchy code of prep it starts
# from runs in test_nested and test_hierarchy), the tool tests (the tools'
# host code: CLI, readers, prep, checkpoints) but for seven sinew-sim and
# sinew-bench scenes whose time goes to lavapipe (and readme_commands: the
# same tools' commands again, not selected below), and the GPU tests that
# drive the runtime's host code without long scenes: test_memory and
# test_fusion step every solver in both memory models and both recordings,
# test_reliability (without its soak: tests/CMakeLists.txt) and test_health
# the refusals, rollbacks and checkpoints,
# test_bodies bodies that see each other, test_mgpbd_body MGPBD's host
# setups and checkpoints, test_context and test_engine the context and a
# lent device, test_attach, test_shapes and test_render_mesh the
# attachments' tethers and pins, the collider list and the render mesh's
# host code. Left to the release run: the GPU tests whose minutes go to
# lavapipe's arithmetic on scenes (their host code is the same recording
# the tests above drive), the portable-limits reruns (the same host code as
# the tests they repeat) and the Vulkan 1.1 shader compiles (no host code
# of ours).
gpu_here='test_world|test_context|test_memory|test_fusion|test_reliability|test_health|test_engine|test_engine_asset|test_bodies|test_mgpbd_body|test_attach|test_shapes|test_render_mesh'
scenes='tool_sim_add_resume|tool_sim_crowd|tool_bench_world_dry_run|tool_selfcol_layers_sphere|tool_selfcol_cgal_horizons|tool_sim_with_soft_block|tool_bench_stiff_dry_run|tool_sim_mgpbd_sphere_lands|tool_bench_gpu_dry_run|tool_sim_implicit|test_imc'
# ctest takes one -R and one -E: the CPU label by name (ctest -N -L cpu),
# the tools, and the GPU tests above.
cpu=$(ctest -N -L cpu | sed -n 's/^ *Test *#[0-9]*: *//p' | grep -v '^shader_vulkan1[.]1_' | paste -sd'|' -)
ctest --output-on-failure -j "$jobs" -R "^(${cpu}|tool_.*|package_.*|${gpu_here})\$" \
    -E "^(${scenes})\$|_portable\$" "$@"
