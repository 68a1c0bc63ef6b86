#!/bin/sh
# sinew on a real GPU in one command (docs/benchmarks/README.md, "On a GPU machine").
#
#   tools/gpu-check.sh prepare
#       here, on Debian 12: builds build-gpu/ (release, no debug information),
#       packs what travels into gpu-carry.tar.xz (the executables stripped,
#       with .gl/) and downloads into .gl/ the Debian packages the binaries need on a
#       machine that has an NVIDIA driver and nothing else (the Vulkan loader,
#       the validation layers, Criterion and the libraries the tools link),
#       with CGAL's models and TetGen for the tests that read them.
#   tools/gpu-check.sh run [OUT] [SECONDS] ["SUITE ..."]
#       there, in the repository root, gpu-carry.tar.xz carried and unpacked: every
#       benchmark suite at GPU sizes, one after another, then the GPU tests
#       with validation (synchronization validation included), six executables
#       at a time, in about SECONDS (default 450) all together; the suites
#       named (default: clusters world selfcol gpu gpbd hpbd pd implicit collider mgpbd; overlap and stiff on
#       request)
#       or none (""); SINEW_GPU_TESTS="test_memory ..." runs only those tests. Writes
#       OUT/gpu-check.tar.gz (default OUT: $OUT, else ./gpu-check-out) holding <device>/ as docs/benchmarks/ keeps it:
#       tests/ (each test executable's result and log), each suite's
#       bench.json or CSV files, and run.txt (device, driver, date, commit,
#       what ran and how long).
#   tools/gpu-check.sh unpack FILE
#       back here: unpacks the tarball into docs/benchmarks/<device>/ and makes
#       the pages and plots from each bench.json (sinew-bench --report).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-gpu"
gl="$root/.gl"
cmd="${1:-}"
[ $# -gt 0 ] && shift

# The packages the test executables and tools link beyond libc (ldd on
# build-gpu/tests/test_gpbd and build-gpu/tools/sinew-bench on Debian 12), the
# loader, the validation layers and TetGen (with its library, libtet1.5).
# The loader and GLVND go into / there (the NVIDIA driver's Vulkan library
# needs GLVND's dispatch library); the rest under /tmp/gl.
root_packages="libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2"
packages="vulkan-validationlayers libcjson1 libassimp5 libdraco7 libminizip1 libpng16-16
libcriterion3 libgit2-1.5 libnanomsg5 libffi8 libmbedtls14 libmbedx509-1 libmbedcrypto7 libhttp-parser2.9
libssh2-1 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libkeyutils1 libssl3 libpcre2-8-0
libcom-err2 tetgen libtet1.5"

prepare() {
    cd "$root"
    grep -qx '/.gl/' .git/info/exclude 2>/dev/null || echo /.gl/ >>.git/info/exclude
    mkdir -p "$gl" /tmp/amd64/partial
    o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
    # shellcheck disable=SC2086
    apt-get $o update -qq
    # shellcheck disable=SC2086
    (cd "$gl" && rm -f ./*.deb && apt-get $o download $root_packages $packages >/dev/null)
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-g0 >/dev/null
    cmake --build "$build" -j "$(nproc)"
    # What only the build knows: where the sources were (tests open their data
    # by absolute path) and which tests are the GPU tier.
    printf '%s\n' "$root" >"$build/gpu-check-source"
    git -C "$root" describe --always --dirty >"$build/gpu-check-commit" 2>/dev/null || echo unknown >"$build/gpu-check-commit"
    (cd "$build" && ctest -N -L gpu | sed -n 's/^ *Test *#[0-9]*: *//p' | grep -v '^test_.\+_portable$' >gpu-check-tests)
    # The CGAL models the GPU tests and the collider suite read (the whole
    # archive is too large to travel).
    if [ ! -f "$build/cgal-data/meshes/tet-shuffled.off" ]; then
        tmp=$(mktemp -d)
        (cd "$tmp" && apt-get download libcgal-demo >/dev/null && dpkg -x libcgal-demo_*.deb x &&
            tar xzf x/usr/share/doc/libcgal-dev/data.tar.gz data/meshes)
        mkdir -p "$build/cgal-data/meshes"
        for m in elephant mask_cone torus_quad bunny00 armadillo ellipsoid cube_quad cube sphere 3torus cow bones elk \
            elephant-with-holes pig blob open_cube cube-shuffled tet-shuffled; do
            cp "$tmp/data/meshes/$m.off" "$build/cgal-data/meshes/"
        done
        rm -rf "$tmp"
    fi
    # Only executables and data travel, stripped, in one xz archive (a
    # device call carries 64 MiB at most): object files, static libraries
    # and the CPU tests' executables stay out.
    carry="$build-carry"
    rm -rf "$carry"
    mkdir -p "$carry"
    (cd "$build" && find . -path ./CMakeFiles -prune -o -path '*/CMakeFiles' -prune -o -type f \
        ! -name '*.o' ! -name '*.a' -print | while read -r f; do
        case "$f" in ./tests/test_*) grep -qx "$(basename "$f")" gpu-check-tests || continue ;; esac
        mkdir -p "$carry/$(dirname "$f")" && cp "$f" "$carry/$f"
    done)
    find "$carry" -type f -perm -u+x | while read -r f; do strip "$f" 2>/dev/null || true; done
    (cd "$root" && rm -rf build-gpu.carry && mv "$carry" build-gpu.carry &&
        tar cJf gpu-carry.tar.xz --transform 's,^build-gpu.carry,build-gpu,' build-gpu.carry .gl && rm -rf build-gpu.carry)
    grep -qx '/gpu-carry.tar.xz' .git/info/exclude 2>/dev/null || echo /gpu-carry.tar.xz >>.git/info/exclude
    du -sh "$root/gpu-carry.tar.xz"
    echo "carry: gpu-carry.tar.xz; there: tar xJf gpu-carry.tar.xz && tools/gpu-check.sh run"
}

run() {
    out="${1:-${OUT:-$root/gpu-check-out}}"
    budget="${2:-450}"
    suites="${3-clusters world selfcol gpu gpbd hpbd pd implicit collider mgpbd}"
    start=$(date +%s)
    left() { echo $((budget - ($(date +%s) - start))); }
    # The loader and GLVND go into / (the device machine may have neither);
    # everything else stays under /tmp/gl, found through the library and
    # layer paths.
    mkdir -p /tmp/gl
    for f in "$gl"/*.deb; do
        p=$(basename "$f" | sed 's/_.*//')
        case " $root_packages " in
        *" $p "*) dpkg -x "$f" / ;;
        *) dpkg -x "$f" /tmp/gl ;;
        esac
    done
    ldconfig
    export LD_LIBRARY_PATH="/tmp/gl/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export VK_LAYER_PATH=/tmp/gl/usr/share/vulkan/explicit_layer.d
    export PATH="/tmp/gl/usr/bin:$PATH"
    export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
    if ! "$build/tools/sinew-info" >/dev/null 2>&1; then
        export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    fi
    if ! "$build/tools/sinew-info" >/dev/null 2>&1; then
        VK_LOADER_DEBUG=error,warn,driver "$build/tools/sinew-info" 2>&1 | tail -20
        echo "gpu-check: no Vulkan device" >&2
        exit 1
    fi
    # The tests were built to find their data where the sources were.
    src=$(cat "$build/gpu-check-source")
    if [ ! -e "$src" ]; then
        mkdir -p "$(dirname "$src")" && ln -s "$root" "$src"
    fi
    [ -d "$build/cgal-data/meshes" ] && export SINEW_CGAL_DATA="$build/cgal-data"
    mkdir -p "$build/tests/out"

    device=$("$build/tools/sinew-info" 2>/dev/null | sed -n 's/^device: *//p')
    slug=$(printf '%s' "$device" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//' | cut -c1-48)
    # Everything is gathered apart and only the tarball goes to OUT (a device
    # machine sends back few files).
    work=$(mktemp -d)
    res="$work/$slug"
    mkdir -p "$res" "$out"
    {
        echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "commit: $(cat "$build/gpu-check-commit")"
        "$build/tools/sinew-info" 2>&1
        nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>/dev/null || true
    } >"$res/run.txt"
    cat "$res/run.txt"

    # Every benchmark suite at GPU sizes, one after another (they time the GPU:
    # nothing else runs beside them), each within its share of the time.
    suite() { # NAME SECONDS [options]
        name=$1 secs=$2
        shift 2
        [ "$(left)" -gt 30 ] || { echo "suite $name: no time left" >>"$res/run.txt"; return 0; }
        [ "$secs" -le "$(left)" ] || secs=$(left)
        dir="$res/$name"
        [ "$name" = gpu ] && dir="$res" # the cloth suites' page is the device's own
        mkdir -p "$dir"
        t0=$(date +%s)
        rc=0
        timeout "$secs" "$build/tools/sinew-bench" --suite "$@" --no-plots -o "$dir" >"$dir/$name-log.txt" 2>&1 ||
            rc=$?
        echo "suite $name ($*): exit $rc in $(($(date +%s) - t0)) s" | tee -a "$res/run.txt"
    }
    for name in $suites; do
        case "$name" in
        gpu) suite gpu 150 gpu ;;
        gpbd) suite gpbd 60 gpbd ;;
        hpbd) suite hpbd 30 hpbd ;;
        pd) suite pd 40 pd --frames 120 ;;
        implicit) suite implicit 60 implicit ;;
        collider) suite collider 30 collider ;;
        overlap) suite overlap 40 overlap ;;
        clusters) suite clusters 40 clusters ;;
        # 1 to 64 bodies, each alone and as one world; 20 steps each way
        world) suite world 40 world --steps 20 ;;
        selfcol) suite selfcol 40 selfcol ;;
        # MGPBD at 102K tetrahedra: a lazy outer iteration part by part, beside
        # the old lazy path (--compare-old) and Jacobi XPBD's sweeps
        mgpbd) suite mgpbd 90 mgpbd --model bunny00.off --lattice --squash 0 --particle-mass 1 --xpbd-jacobi 0.1 \
            --tets 100000 --bar-cells 0 --outer 6 --outer-budget 0 --xpbd-sweeps 10000 --xpbd-budget 10 \
            --compare-old 3 ;;
        # the stiff cantilever at 103 680 tetrahedra: MGPBD against XPBD at
        # equal wall time a step, 10, 20 and 30 ms steps, with pictures
        stiff) suite stiff 300 stiff --bar-cells 12 ;;
        *) echo "gpu-check: no suite $name" >&2 ;;
        esac
    done

    # The GPU tests, with validation (the fixture turns it on), six at a time.
    tests_left=$(left)
    [ "$tests_left" -ge 60 ] || tests_left=60
    echo "tests: $tests_left s left" >>"$res/run.txt"
    mkdir -p "$res/tests"
    (cd "$build/tests" && SINEW_ENGINE_ASSET="$build/tests/out/engine.snw" &&
        export SINEW_ENGINE_ASSET &&
        "$build/tools/sinew-prep" --grid 24x24 --size 1x1 --pin-corners -q -o "$SINEW_ENGINE_ASSET" &&
        grep '^test_' "$build/gpu-check-tests" | grep -v '^test_engine_asset$' |
        { if [ -n "${SINEW_GPU_TESTS:-}" ]; then grep -x -F "$(printf '%s\n' $SINEW_GPU_TESTS)"; else cat; fi; } |
        timeout "$tests_left" xargs -P 6 -I{} sh -c "timeout $tests_left ./{} --jobs 4 \
            >'$res/tests/{}.txt' 2>&1; echo \"{}: exit \$?\" >>'$res/tests/results.txt'") || true
    # The phase as a whole ends in time (each wave of six would otherwise
    # have the whole budget): a test cut short has a log and no exit line.
    for f in "$res"/tests/test_*.txt; do
        t=$(basename "$f" .txt)
        grep -q "^$t: exit" "$res/tests/results.txt" 2>/dev/null || echo "$t: cut short (the time budget)" >>"$res/tests/results.txt"
    done
    for f in "$res"/tests/test_*.txt; do
        t=$(basename "$f" .txt)
        if grep -q 'Assertion [Ff]ailed' "$f"; then echo "$t: assertion failed" >>"$res/tests/results.txt"; fi
    done
    # The folding cloth test at the benchmark's 64 x 64 too (5 s on a GPU).
    if [ "$(left)" -gt 20 ] && [ -x "$build/tests/test_selfcol_fold" ]; then
        rc=0
        (cd "$build/tests" && SINEW_FOLD_SIZE=64 SINEW_FOLD_STEPS=150 timeout "$(left)" ./test_selfcol_fold --jobs 1 --verbose \
            >"$res/tests/test_selfcol_fold_64.txt" 2>&1) || rc=$?
        echo "test_selfcol_fold (64 x 64): exit $rc" >>"$res/tests/results.txt"
    fi
    sort "$res/tests/results.txt" -o "$res/tests/results.txt" || true
    cat "$res/tests/results.txt" | tee -a "$res/run.txt"
    grep -h '^\[====\] Synthesis' "$res"/tests/test_*.txt | tee -a "$res/run.txt" || true
    echo "total: $(($(date +%s) - start)) s" | tee -a "$res/run.txt"
    (cd "$work" && tar czf "$out/gpu-check.tar.gz" "$slug")
    echo "results: $out/gpu-check.tar.gz"
}

unpack() {
    tarball="$1"
    tmp=$(mktemp -d)
    tar xzf "$tarball" -C "$tmp"
    slug=$(ls "$tmp")
    dst="$root/docs/benchmarks/$slug"
    mkdir -p "$dst"
    cp -r "$tmp/$slug/." "$dst/"
    rm -rf "$tmp"
    for j in "$dst"/bench.json "$dst"/*/bench.json; do
        [ -f "$j" ] && "$root/build/tools/sinew-bench" --report "$j" -o "$(dirname "$j")" >/dev/null 2>&1 ||
            echo "no page made from $j"
    done
    echo "results: $dst"
}

case "$cmd" in
prepare) prepare ;;
run) run "$@" ;;
unpack) unpack "$@" ;;
*)
    echo "usage: tools/gpu-check.sh prepare | run [OUT] [SECONDS] [\"SUITE ...\"] | unpack FILE" >&2
    exit 2
    ;;
esac
