#!/bin/sh
# One entry point that sets itself up on Debian 12 (the system sinew is tested
# on): installs missing packages, configures and builds (release preset, CMake
# 3.25 or newer), then
#   tools/run.sh sim [sinew-sim options]   runs the default scene (or an asset)
#   tools/run.sh test                      runs the whole test suite: the release
#                                          build's tests, the same tests under
#                                          ASan + UBSan + LSan (tools/sanitize.sh),
#                                          the Python package's tests
#                                          (tools/python-test.sh), a short fuzz
#                                          run (tools/fuzz.sh 10, two
#                                          processes a target) and
#                                          the runtime library cross-built for
#                                          Windows and aarch64 (tools/cross.sh)
#   tools/run.sh test-release [ctest options]   only the release build's tests
#   tools/run.sh build                     only sets up and builds
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"
packages="build-essential cmake pkg-config libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers \
glslc glslang-tools spirv-tools libshaderc-dev libvulkan-volk-dev libcriterion-dev vulkan-tools \
libassimp-dev libcjson-dev libpng-dev libglfw3-dev xvfb xauth xdotool tetgen"

sudo_if_needed() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

install_missing() {
    if ! command -v dpkg-query > /dev/null || ! command -v apt-get > /dev/null; then
        echo "tools/run.sh installs Debian 12's packages with apt, which this system lacks;" \
            "install these (or their equivalents) and CMake 3.25 or newer, then build with" \
            "cmake --preset release: $packages" >&2
        exit 1
    fi
    . /etc/os-release 2> /dev/null || true
    [ "${ID:-}" = debian ] && [ "${VERSION_ID:-}" = 12 ] ||
        echo "note: sinew is tested on Debian 12; this is ${PRETTY_NAME:-another system} (untested)" >&2
    missing=""
    for p in $packages; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        echo "installing:$missing"
        sudo_if_needed apt-get update -qq
        sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    fi
}

# Real meshes from Debian's CGAL demo data (not installed: unpacked into build/).
fetch_cgal_data() {
    data="$build/cgal-data"
    [ -f "$data/meshes/mask_cone.off" ] && return 0
    tmp=$(mktemp -d)
    if (cd "$tmp" && { apt-get download libcgal-demo >/dev/null 2>&1 ||
        { sudo_if_needed apt-get update -qq && apt-get download libcgal-demo >/dev/null 2>&1; }; }); then
        dpkg -x "$tmp"/libcgal-demo_*.deb "$tmp/x"
        mkdir -p "$data"
        tar xzf "$tmp/x/usr/share/doc/libcgal-dev/data.tar.gz" -C "$tmp" data/meshes
        cp -r "$tmp/data/meshes" "$data/"
    else
        echo "warning: could not download libcgal-demo; tests on real CGAL models will be skipped"
    fi
    rm -rf "$tmp"
}

configure_and_build() {
    # CMakeLists.txt and the presets (version 6) ask for CMake 3.25.
    v=$(cmake --version | sed -n 's/^cmake version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
    set -- $v
    if [ "${1:-0}" -lt 3 ] || { [ "${1:-0}" -eq 3 ] && [ "${2:-0}" -lt 25 ]; }; then
        echo "sinew needs CMake 3.25 or newer; this system's is $(cmake --version | head -n 1)" >&2
        exit 1
    fi
    cmake --preset release -S "$root" >/dev/null
    cmake --build "$build" -j "$(nproc)"
}

export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
cmd="${1:-sim}"
[ $# -gt 0 ] && shift
case "$cmd" in
sim)
    install_missing
    configure_and_build
    exec "$build/tools/sinew-sim" "$@"
    ;;
test-release)
    install_missing
    configure_and_build
    fetch_cgal_data
    export SINEW_CGAL_DATA="$build/cgal-data"
    cd "$build" && exec ctest --output-on-failure -j "$(nproc)" "$@"
    ;;
test)
    [ $# -eq 0 ] || { echo "tools/run.sh test takes no options; ctest options go to test-release" >&2; exit 2; }
    install_missing
    configure_and_build
    fetch_cgal_data
    export SINEW_CGAL_DATA="$build/cgal-data"
    echo "== release build: the test suite"
    (cd "$build" && ctest --output-on-failure -j "$(nproc)")
    echo "== the Python package: built into a virtual environment, its tests (pytest)"
    "$root/tools/python-test.sh"
    echo "== sanitizer build (address, undefined behaviour, leaks): the test suite"
    "$root/tools/sanitize.sh"
    echo "== fuzzing: 10 s per target in two processes"
    SINEW_FUZZ_FORK=2 "$root/tools/fuzz.sh" 10
    echo "== cross builds: the runtime library for Windows x86-64 and aarch64 Linux"
    "$root/tools/cross.sh"
    echo "== all stages passed"
    ;;
build)
    install_missing
    configure_and_build
    ;;
*)
    echo "usage: tools/run.sh sim [sinew-sim options] | test | test-release [ctest options] | build" >&2
    exit 2
    ;;
esac
