#!/bin/sh
# The cross builds, for CI: the runtime library alone (no tools, no tests), with
# warnings as errors, for Windows x86-64 (mingw-w64) in build-cross-windows/ and
# for aarch64 Linux in build-cross-aarch64/, with the toolchain files of
# cmake/toolchains/, so that nothing POSIX-only or x86-only creeps into it.
# Installs the Debian packages it needs when missing, checks what was built with
# file(1) and prints how long each build took. Builds, never runs, what it makes.
#   tools/cross.sh                     both targets
#   tools/cross.sh windows|aarch64     one
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
# The host's glslc compiles the shaders; the Vulkan and volk headers are the
# host's too (platform-independent). The mingw-w64 compiler with the win32
# thread model is enough: the runtime starts no threads.
packages="cmake make file glslc libvulkan-dev libvulkan-volk-dev \
gcc-mingw-w64-x86-64-win32 gcc-aarch64-linux-gnu libc6-dev-arm64-cross"

sudo_if_needed() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

install_missing() {
    missing=""
    for p in $packages; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        echo "installing:$missing"
        sudo_if_needed apt-get update -qq
        sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
    fi
}

# cross NAME TOOLCHAIN PATTERN FILE...: configures and builds in build-cross-NAME/,
# then checks that file(1) describes each FILE (in that folder) by PATTERN.
cross() {
    name=$1 toolchain=$2 pattern=$3
    shift 3
    build="$root/build-cross-$name"
    start=$(date +%s)
    cmake -S "$root" -B "$build" --toolchain "$root/cmake/toolchains/$toolchain.cmake" \
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_COMPILE_WARNING_AS_ERROR=ON \
        -DSINEW_BUILD_TOOLS=OFF -DSINEW_BUILD_TESTS=OFF >/dev/null ||
        { echo "cross.sh: configuring for $name failed" >&2; exit 1; }
    cmake --build "$build" -j "$jobs"
    for f in "$@"; do
        what=$(file -bL "$build/$f")
        echo "$name: $f: $what"
        echo "$what" | grep -Eq "$pattern" ||
            { echo "cross.sh: build-cross-$name/$f is not what $name needs ($pattern)" >&2; exit 1; }
    done
    echo "== $name: built in $(($(date +%s) - start)) s"
}

# The shared library, and the object the static one (libsinew.a) holds alone.
windows() {
    cross windows mingw-w64-x86_64 '^PE32\+ executable \(DLL\).*x86-64|^Intel amd64 COFF object' \
        libsinew.dll sinew_runtime.o
}

aarch64() {
    cross aarch64 aarch64-linux-gnu '^ELF 64-bit LSB (shared object|relocatable), ARM aarch64' \
        libsinew.so sinew_runtime.o
}

target="${1:-all}"
case "$target" in
all | windows | aarch64) ;;
*)
    echo "usage: tools/cross.sh [windows | aarch64]" >&2
    exit 2
    ;;
esac
install_missing
case "$target" in
all)
    windows
    aarch64
    ;;
*) "$target" ;;
esac
echo "== cross builds passed"
