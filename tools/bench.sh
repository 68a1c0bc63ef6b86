#!/bin/sh
# Regenerates the benchmark page of this machine's Vulkan device:
#   tools/bench.sh [quick|gpu|all]      (default quick)
# builds (release), runs the peers when tools/peers/setup.sh has been run, runs
# sinew-bench and writes docs/benchmarks/<device>/ (README.md, bench.json, plots).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
suite="${1:-quick}"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"

if ! command -v gnuplot >/dev/null 2>&1 || ! dpkg-query -W libcjson-dev >/dev/null 2>&1; then
    sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd=sudo
    $sudo_cmd apt-get update -qq
    $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox libcjson-dev >/dev/null
fi
"$root/tools/run.sh" build

device=$("$root/build/tools/sinew-info" 2>/dev/null | sed -n 's/^device: *//p')
slug=$(printf '%s' "$device" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//' | cut -c1-48)
out="$root/docs/benchmarks/$slug"
mkdir -p "$out"

peers=""
if [ -d "$root/tools/peers/build" ] && [ -x "$root/tools/peers/run.sh" ]; then
    rm -f "$out/peers.jsonl"
    "$root/tools/peers/run.sh" "$out/peers.jsonl" || echo "warning: some peers failed"
    [ -s "$out/peers.jsonl" ] && peers="--peers $out/peers.jsonl"
fi
# shellcheck disable=SC2086
"$root/build/tools/sinew-bench" --suite "$suite" -o "$out" $peers
echo "results: $out/README.md"
