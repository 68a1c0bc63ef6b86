#!/bin/sh
# Regenerates the benchmark page of this machine's Vulkan device:
#   tools/bench.sh [quick|gpu|gpbd|hpbd|pd|implicit|collider|clusters|selfcol|overlap|accuracy|accuracy-implicit|accuracy-cloth|accuracy-settle|mgpbd|world|all] [sinew-bench options]   (default quick)
# builds (release), runs sinew-bench and writes docs/benchmarks/<device>/
# (README.md, bench.json, plots; the gpbd suite, the GPBD paper's cube impact,
# in docs/benchmarks/<device>/gpbd/, the hpbd suite, the HPBD paper's figure 7,
# in docs/benchmarks/<device>/hpbd/, the pd suite, the red-black mass-spring
# paper's figures 3 and 4, in docs/benchmarks/<device>/pd/, the implicit suite, the
# constrainable multigrid paper's table 1, in docs/benchmarks/<device>/implicit/, the
# collider suite, a mesh collider's costs, in docs/benchmarks/<device>/collider/, the
# mgpbd suite, the MGPBD paper's convergence against XPBD, in docs/benchmarks/<device>/mgpbd/, the
# clusters suite, Gauss-Seidel colour by colour against clustered passes, in
# docs/benchmarks/<device>/clusters/, the selfcol suite, self-collision's cost and
# effect, in .../selfcol/, the overlap suite in .../overlap/, the accuracy suite,
# where bodies come to rest against their exact equilibrium, in .../accuracy/,
# its implicit solver beside GPBD's default cost in .../accuracy-implicit/, the
# static error estimate of cloth against its true error in .../accuracy-cloth/, how
# long the implicit solver takes to settle the finest beam in .../accuracy-settle/, the
# world suite, many bodies as one world against each alone, in .../world/),
# comparing with the previous bench.json
# there (run to run) and including the peers' results in peers.jsonl there
# (cloth suites), made by
#   tools/peers/setup.sh && tools/peers/run.sh docs/benchmarks/<device>/peers.jsonl
# (slow: tens of minutes; run it when the peers or the machine change).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
suite="${1:-quick}"
[ $# -gt 0 ] && shift
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"

if ! command -v gnuplot >/dev/null 2>&1 || ! dpkg-query -W libcjson-dev >/dev/null 2>&1; then
    sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd=sudo
    $sudo_cmd apt-get update -qq
    $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox libcjson-dev >/dev/null
fi
"$root/tools/run.sh" build
# CGAL's models for the collider and mgpbd suites, when tools/run.sh test has fetched them.
[ -z "${SINEW_CGAL_DATA:-}" ] && [ -d "$root/build/cgal-data/meshes" ] && export SINEW_CGAL_DATA="$root/build/cgal-data"

device=$("$root/build/tools/sinew-info" 2>/dev/null | sed -n 's/^device: *//p')
slug=$(printf '%s' "$device" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//' | cut -c1-48)
out="$root/docs/benchmarks/$slug"
[ "$suite" = gpbd ] && out="$out/gpbd"
[ "$suite" = hpbd ] && out="$out/hpbd"
[ "$suite" = pd ] && out="$out/pd"
[ "$suite" = implicit ] && out="$out/implicit"
[ "$suite" = collider ] && out="$out/collider"
[ "$suite" = mgpbd ] && out="$out/mgpbd"
[ "$suite" = clusters ] && out="$out/clusters"
[ "$suite" = selfcol ] && out="$out/selfcol"
[ "$suite" = overlap ] && out="$out/overlap"
[ "$suite" = accuracy ] && out="$out/accuracy"
[ "$suite" = accuracy-implicit ] && out="$out/accuracy-implicit"
[ "$suite" = accuracy-cloth ] && out="$out/accuracy-cloth"
[ "$suite" = accuracy-settle ] && out="$out/accuracy-settle"
[ "$suite" = world ] && out="$out/world"
mkdir -p "$out"

extra=""
[ -s "$out/peers.jsonl" ] && extra="--peers $out/peers.jsonl"
if [ -f "$out/bench.json" ]; then
    cp "$out/bench.json" "$out/previous.json"
    extra="$extra --compare $out/previous.json"
fi
# shellcheck disable=SC2086
"$root/build/tools/sinew-bench" --suite "$suite" -o "$out" $extra "$@"
echo "results: $out/README.md"
