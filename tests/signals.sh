#!/bin/sh
# A tool stopped by a signal in the middle of its work, and what it leaves:
#
#   signals.sh sim PREP SIM DIR SIGNAL STATUS
#     a long sinew-sim run, signalled once its first periodic checkpoint is
#     written, exits with STATUS having written the summary, --json (status
#     "interrupted", the signal, the step), the final mesh and a checkpoint
#     of the step it stopped after, which --resume goes on from;
#   signals.sh tetgen PREP SURFACE DIR SIGNAL STATUS
#     sinew-prep --tetrahedralise, signalled while TetGen (a stand-in that
#     sleeps) runs, exits with STATUS, TetGen stopped and its temporary
#     folder (under a TMPDIR of the test's own) removed.
#
# Prints what it found; the last line is "stopped cleanly" when all holds.
mode=$1 prep=$2 subject=$3 d=$4 sig=$5 want=$6
rm -rf "$d" && mkdir -p "$d" || exit 1

fail() { echo "FAILED: $*"; exit 1; }

# Waits up to 60 s for file $1 to appear.
await() {
    i=0
    while [ ! -e "$1" ]; do
        i=$((i + 1))
        [ $i -le 600 ] || return 1
        sleep 0.1
    done
}

# Signals process $1 and waits for it (at most 60 s: then it is killed); its
# exit status in $status.
stop() {
    kill -"$sig" "$1"
    (sleep 60; kill -KILL "$1") > /dev/null 2>&1 &
    dog=$!
    wait "$1"
    status=$?
    kill "$dog" 2> /dev/null
    echo "exit status $status after SIG$sig (expected $want)"
}

if [ "$mode" = sim ]; then
    "$prep" --grid 8x8 --pin-corners -q -o "$d/g.snw" || fail "no asset"
    "$subject" "$d/g.snw" --frames 10000000 -q --no-png --checkpoint "$d/c.snwc" --checkpoint-every 5 \
        --json "$d/s.json" -o "$d/run" > "$d/summary.txt" 2> "$d/stderr.txt" &
    pid=$!
    await "$d/c.snwc" || { kill -KILL $pid; fail "no checkpoint within 60 s"; }
    stop $pid
    cat "$d/stderr.txt" "$d/summary.txt"
    [ "$status" -eq "$want" ] || fail "exit status $status"
    [ -s "$d/run/final.obj" ] || fail "no final mesh"
    grep -q '"status":[[:space:]]*"interrupted"' "$d/s.json" || fail "the JSON says no interruption"
    grep -q '"interrupted_by":[[:space:]]*"SIG'"$sig"'"' "$d/s.json" || fail "the JSON names no signal"
    step=$(sed -n 's/.*"interrupted_after_step":[[:space:]]*\([0-9]*\).*/\1/p' "$d/s.json")
    grep -q "checkpoint .*c.snwc (step $step)" "$d/summary.txt" || fail "no checkpoint of step $step"
    "$subject" "$d/g.snw" --resume "$d/c.snwc" --frames 2 --no-png -o "$d/resumed" > "$d/resumed.txt" 2>&1 ||
        fail "the resumed run failed: $(cat "$d/resumed.txt")"
    grep -q "resumed at step $step from" "$d/resumed.txt" || fail "not resumed at step $step"
    grep -q "steps *2 of" "$d/resumed.txt" || fail "the resumed run did not take its 2 steps"
    echo "resumed at step $step"
else
    cat > "$d/tetgen" <<SCRIPT
#!/bin/sh
echo \$\$ > "$d/tetgen.pid"
exec sleep 30
SCRIPT
    chmod +x "$d/tetgen"
    mkdir "$d/tmp"
    TMPDIR="$d/tmp" "$prep" "$subject" --tetrahedralise --tetgen "$d/tetgen" -o "$d/x.snw" > "$d/out.txt" 2>&1 &
    pid=$!
    await "$d/tetgen.pid" || { kill -KILL $pid; fail "TetGen did not start within 60 s"; }
    sleep 0.2 # the pid written, the stand-in becomes sleep
    stop $pid
    cat "$d/out.txt"
    tetgen=$(cat "$d/tetgen.pid")
    left=$(ls "$d/tmp")
    if kill -0 "$tetgen" 2> /dev/null; then
        kill "$tetgen"
        fail "TetGen (process $tetgen) still runs"
    fi
    [ -z "$left" ] || fail "left behind in TMPDIR: $left"
    [ "$status" -eq "$want" ] || fail "exit status $status"
    echo "TetGen stopped, no temporary folder left"
fi
echo "stopped cleanly"
