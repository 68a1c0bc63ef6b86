#!/bin/sh
# Builds the libFuzzer targets (clang, ASan + UBSan; the fuzz preset, in
# build-fuzz/) and runs each in turn:
#
#   tools/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 30); TARGETs among asset obj off cloth fabric msh
# tetgen mtx checkpoint prep ply stl gltf (default: all but gltf; ply, stl and gltf need assimp).
# gltf runs only when named: assimp's glTF importer crashes within seconds on
# inputs our code cannot screen (tests/fuzz/assimp-known/). With
# SINEW_FUZZ_FORK=N set, each target runs in N parallel processes.
#
# Each target starts from a working copy of its committed seeds
# (tests/fuzz/corpus/<target>/, never written) in build-fuzz/corpus/<target>/,
# which keeps what it finds from run to run, and replays its regressions
# (tests/fuzz/regressions/<target>/) first. A crash, leak or timeout is saved
# in build-fuzz/artifacts/<target>/, its path printed, and the script exits 1
# after the remaining targets have run. Logs: build-fuzz/logs/. docs/fuzzing.md.
# Needs the base packages (tools/run.sh build installs them); installs clang
# and the libFuzzer runtime itself.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"
fuzz="$root/tests/fuzz"

usage() {
    echo "usage: tools/fuzz.sh [SECONDS] [asset|obj|off|cloth|fabric|msh|tetgen|mtx|checkpoint|prep|ply|stl|gltf ...]" >&2
    exit 2
}

seconds="${1:-30}"
[ $# -gt 0 ] && shift
case "$seconds" in '' | *[!0-9]*) usage ;; esac
fork="${SINEW_FUZZ_FORK:-}"
case "$fork" in *[!0-9]*) usage ;; esac

sudo_if_needed() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Whether clang can build and link a fuzz target.
have_libfuzzer() {
    command -v clang >/dev/null 2>&1 || return 1
    probe=$(mktemp -d)
    printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' >"$probe/probe.c"
    if clang -fsanitize=fuzzer,address,undefined "$probe/probe.c" -o "$probe/probe" >/dev/null 2>&1; then
        linked=0
    else
        linked=1
    fi
    rm -rf "$probe"
    return $linked
}

# Debian names the runtime libclang-rt-dev (the default clang's) or
# libclang-rt-14-dev; where neither exists it comes with clang itself.
install_clang() {
    have_libfuzzer && return 0
    sudo_if_needed apt-get update -qq
    runtime=""
    for p in libclang-rt-dev libclang-rt-14-dev; do
        if apt-cache show "$p" >/dev/null 2>&1; then
            runtime="$p"
            break
        fi
    done
    echo "installing: clang $runtime"
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang $runtime >/dev/null
    if ! have_libfuzzer; then
        echo "error: clang cannot link -fsanitize=fuzzer: the libFuzzer runtime is missing" >&2
        exit 1
    fi
}

# The longest input each target is given (bytes): a little more than its
# largest seed, so mutations stay small and fast.
max_len() {
    case "$1" in
    asset | ply | stl) echo 16384 ;;
    msh) echo 32768 ;;
    tetgen) echo 8192 ;;
    obj | off | gltf) echo 8192 ;;
    cloth | fabric | mtx | prep) echo 4096 ;;
    checkpoint) echo 8192 ;;
    *) return 1 ;;
    esac
}

dictionary() {
    case "$1" in
    cloth) echo "$fuzz/dict/obj.dict" ;;
    *) echo "$fuzz/dict/$1.dict" ;;
    esac
}

install_clang
cmake --preset fuzz -S "$root" >/dev/null
cmake --build "$build" -j "$(nproc)"

# Leaks inside assimp are assimp's (tests/fuzz/lsan.supp says which).
export LSAN_OPTIONS="suppressions=$fuzz/lsan.supp:print_suppressions=0"

targets="$*"
if [ -z "$targets" ]; then
    targets="asset obj off cloth fabric msh tetgen mtx checkpoint prep ply stl"
    echo "fuzz_gltf: not run unless named (assimp's own crashes, docs/fuzzing.md)"
fi
mkdir -p "$build/logs"
failed=""
for t in $targets; do
    len=$(max_len "$t") || usage
    exe="$build/tests/fuzz/fuzz_$t"
    if [ ! -x "$exe" ]; then
        echo "fuzz_$t: not built (PLY, STL and glTF need assimp): skipped"
        continue
    fi
    corpus="$build/corpus/$t"
    artifacts="$build/artifacts/$t"
    log="$build/logs/$t.log"
    mkdir -p "$corpus" "$artifacts"
    for seed in "$fuzz/corpus/$t"/*; do
        [ -f "$seed" ] && cp "$seed" "$corpus/"
    done
    # libFuzzer writes new inputs to the first directory only.
    set -- "$corpus"
    [ -d "$fuzz/regressions/$t" ] && set -- "$@" "$fuzz/regressions/$t"
    asan=""
    case "$t" in
    # assimp leaks on many malformed STL and glTF files (tests/fuzz/lsan.supp):
    # a leak check after each would slow the run twentyfold, and what leaks
    # would reach the RSS limit. So these run without leak checks, in child
    # processes that libFuzzer restarts; fuzz_ply checks our side for leaks.
    # assimp also asks for 64 GB on some glTF files (tests/fuzz/assimp-known/):
    # malloc fails there as it does without ASan, and assimp reports it.
    stl | gltf)
        set -- "$@" -detect_leaks=0 -fork="${fork:-1}"
        asan="allocator_may_return_null=1"
        ;;
    *) [ -n "$fork" ] && set -- "$@" -fork="$fork" ;;
    esac
    # Fork mode would otherwise carry on past a crash, timeout or OOM.
    case "$*" in *-fork=*) set -- "$@" -ignore_crashes=0 -ignore_timeouts=0 -ignore_ooms=0 ;; esac
    echo "fuzz_$t: ${seconds} s, inputs up to $len bytes"
    if ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}$asan" "$exe" -max_total_time="$seconds" -max_len="$len" \
        -timeout=10 -rss_limit_mb=2048 -dict="$(dictionary "$t")" -artifact_prefix="$artifacts/" \
        -print_final_stats=1 "$@" >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
        [ -n "$runs" ] || runs=$(sed -n 's/^#\([0-9]*\): cov.*/\1/p' "$log" | tail -n 1) # fork mode
        echo "fuzz_$t: ok, ${runs:-?} runs, corpus of $(ls "$corpus" | wc -l) inputs"
    else
        failed="$failed $t"
        tail -n 40 "$log"
        reproducer=$(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)
        echo "fuzz_$t: FAILED; reproducer: ${reproducer:-none written, see $log}"
        [ -n "$reproducer" ] && echo "  replay: $exe $reproducer"
    fi
done

if [ -n "$failed" ]; then
    echo "fuzzing found problems in:$failed (docs/fuzzing.md: turning a crash into a regression test)" >&2
    exit 1
fi
