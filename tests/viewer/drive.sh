#!/bin/sh
# Drives sinew-viewer the way a person would, inside a virtual X server: run as
#   xvfb-run -a sh drive.sh VIEWER LOG [ASSET]
# (the default scene, or ASSET: a soft body too).
# Presses the left button on the middle of the cloth and drags up 120 pixels
# slowly, lets go, pauses, steps once, resumes, switches to the second solver,
# orbits with the right button, switches to the third (MGPBD for a soft body),
# quits with q. Events go through the XTEST extension
# (xdotool), as a real mouse and keyboard's would. The viewer's own lines in
# LOG say what it did; the test reads them.
set -eu
viewer=$1
log=$2
asset=${3:-}
"$viewer" $asset --size 480x360 --validation > "$log" 2>&1 &
pid=$!
wid=$(timeout 60 xdotool search --sync --onlyvisible --name '^sinew$' | head -n 1)
sleep 2
xdotool mousemove --window "$wid" 240 175
sleep 0.5
xdotool mousedown 1
# Slowly, 6 pixels at a time: a pin jumping far in one step would be a
# runaway step, which the health check rolls back, and frames are slow under
# the sanitizers.
dy=0
while [ $dy -lt 120 ]; do
    dy=$((dy + 6))
    sleep 0.4
    xdotool mousemove --window "$wid" 240 $((175 - dy))
done
sleep 2
xdotool mouseup 1
sleep 0.5
xdotool key space
sleep 0.3
xdotool key n
sleep 0.3
xdotool key space
sleep 0.3
xdotool key 2
sleep 0.5
# The viewer reads the buttons' state once a frame: hold long enough for
# slow frames to see each position.
xdotool mousemove --window "$wid" 300 200 mousedown 3
sleep 1.5
xdotool mousemove --window "$wid" 330 200
sleep 1.5
xdotool mousemove --window "$wid" 360 200
sleep 1.5
xdotool mouseup 3
sleep 1
xdotool key 3
sleep 1.5
xdotool key q
timeout 60 sh -c "while kill -0 $pid 2> /dev/null; do sleep 0.2; done"
wait $pid
