#!/bin/sh
# Runs every command README.md shows, so that none can go stale:
#   sh readme_commands.sh README TOOLS_DIR SOURCE_DIR SCRATCH
# A command is an indented line (four spaces; a trailing backslash joins the
# next) whose first word is build/tools/..., tools/..., xvfb-run, cmake or cc;
# other indented lines are code (C, CMake). In README order, in SCRATCH, where
# data/ and tests/data/ are the source tree's (the README's paths) and
# docs/pictures/ an empty folder of its own (a screenshot lands there, not in
# the source tree):
#   build/tools/X ...   run with TOOLS_DIR/X, shortened: --frames (-n) above
#                       5 become 5, a sinew-sim or sinew-viewer without them
#                       gets --frames 5, and --cut-frame above 3 becomes 3
#                       (a step of the README's implicit multigrid cloth takes
#                       1.4 s on lavapipe; the same options otherwise);
#   xvfb-run ...        the same, when xvfb-run and the viewer are there;
#   tools/run.sh X      not run (it builds and runs the whole suite, this test
#                       among it): X must be one of run.sh's subcommands. What
#                       `tools/run.sh sim` runs is the default scene, which
#                       tool_sim_default_scene runs and the README's
#                       `build/tools/sinew-sim --picture ...` here;
#   tools/bench.sh S, tools/hpbd-figures.sh
#                       not run (minutes to an hour; they rewrite docs/): the
#                       script must exist and name the suite S in its usage;
#   cmake --install, cc app.c
#                       package_find_package_and_pkg_config does both.
# Any other command fails the test until it is given a rule here. A failure
# names the README's command and shows the end of its output.
set -u
readme=$1
tools=$2
src=$3
scratch=$4

rm -rf "$scratch"
mkdir -p "$scratch/tests" "$scratch/docs/pictures" || exit 1
ln -s "$src/data" "$scratch/data"
ln -s "$src/tests/data" "$scratch/tests/data"
cd "$scratch" || exit 1

# One command a line, continuation lines joined, trailing comments dropped.
awk '
function flush() { if (cmd != "") print cmd; cmd = "" }
/^    / {
    line = substr($0, 5)
    if (cmd == "") {
        split(line, w, " ")
        if (w[1] !~ /^(build\/|tools\/)/ && w[1] != "xvfb-run" && w[1] != "cmake" && w[1] != "cc") next
    } else {
        sub(/^ +/, "", line)
    }
    cont = line ~ /\\$/
    if (cont) sub(/ *\\$/, " ", line)
    cmd = cmd line
    if (!cont) { sub(/ +#.*$/, "", cmd); sub(/ +$/, "", cmd); flush() }
    next
}
{ flush() }
END { flush() }' "$readme" > commands.txt

failed=0
ran=0
checked=0
n=0
while IFS= read -r cmd; do
    n=$((n + 1))
    first=${cmd%% *}
    case "$first" in
    build/tools/* | xvfb-run)
        case "$cmd" in
        *build/tools/*) ;;
        *) echo "README command $n has no rule: $cmd"; failed=$((failed + 1)); continue ;;
        esac
        tool=$(printf '%s\n' "$cmd" | sed 's#.*build/tools/\([^ ]*\).*#\1#')
        if [ ! -x "$tools/$tool" ]; then
            if [ "$tool" = sinew-viewer ]; then
                echo "skipped (no sinew-viewer in this build): $cmd"
                continue
            fi
            echo "README command $n names a tool this build lacks ($tool): $cmd"
            failed=$((failed + 1))
            continue
        fi
        if [ "$first" = xvfb-run ] && ! command -v xvfb-run > /dev/null; then
            echo "skipped (no xvfb-run): $cmd"
            continue
        fi
        run=$(printf '%s\n' "$cmd" | sed "s#build/tools/#$tools/#g" | awk '{
            for (i = 1; i < NF; i++) {
                if (($i == "--frames" || $i == "-n") && $(i + 1) + 0 > 5) $(i + 1) = 5
                if ($i == "--cut-frame" && $(i + 1) + 0 > 3) $(i + 1) = 3
                if ($i == "--frames" || $i == "-n") frames = 1
            }
            if (!frames && tool ~ /^sinew-(sim|viewer)$/) $0 = $0 " --frames 5"
            print }' tool="$tool")
        echo "== $cmd"
        [ "$run" = "$cmd" ] || echo "   as: $run"
        start=$(date +%s)
        sh -c "$run" > "command-$n.log" 2>&1
        rc=$?
        echo "   exit $rc, $(($(date +%s) - start)) s"
        if [ $rc -ne 0 ]; then
            echo "README command $n failed (exit $rc): $cmd"
            tail -n 20 "command-$n.log" | sed 's/^/   | /'
            failed=$((failed + 1))
        fi
        ran=$((ran + 1))
        ;;
    tools/run.sh)
        set -- $cmd
        sub=${2:-sim}
        # run.sh's usage: "usage: tools/run.sh sim [options] | test | ..."
        subs=$(sh "$src/tools/run.sh" no-such-subcommand 2>&1 | sed 's#^usage: tools/run.sh##' | tr '|' '\n' |
            awk '{ print $1 }')
        if printf '%s\n' "$subs" | grep -qx -- "$sub"; then
            echo "== $cmd: a subcommand of run.sh (not run here)"
        else
            echo "README command $n: run.sh has no subcommand $sub: $cmd"
            failed=$((failed + 1))
        fi
        checked=$((checked + 1))
        ;;
    tools/bench.sh | tools/hpbd-figures.sh)
        set -- $cmd
        script=$src/$1
        suite=${2:-}
        if [ ! -x "$script" ]; then
            echo "README command $n: no executable $1: $cmd"
            failed=$((failed + 1))
        elif [ -n "$suite" ] && ! sed -n '2,4p' "$script" | grep -q "[[|]$suite[]|]"; then
            echo "README command $n: $1 names no suite $suite in its usage: $cmd"
            failed=$((failed + 1))
        else
            echo "== $cmd: exists (not run here: minutes to an hour, it rewrites docs/)"
        fi
        checked=$((checked + 1))
        ;;
    cmake | cc)
        case "$cmd" in
        "cmake --install "* | "cc app.c "*)
            echo "== $cmd: run by package_find_package_and_pkg_config"
            checked=$((checked + 1))
            ;;
        *) echo "README command $n has no rule: $cmd"; failed=$((failed + 1)) ;;
        esac
        ;;
    *)
        echo "README command $n has no rule: $cmd"
        failed=$((failed + 1))
        ;;
    esac
done < commands.txt

if [ "$failed" -ne 0 ]; then
    echo "$failed of $n README commands failed"
    exit 1
fi
echo "all $n README commands passed: $ran run, $checked checked without running"
