#!/usr/bin/env bash
# Counting with cudaccl's lines and zones, on the synthetic tracking scene
# (tracking/make_scene.py: discs crossing, merging, vanishing and splitting): a
# vertical and a horizontal counting line and a zone in the bottom right corner. The
# overlay (boxes, trails and overlay=events: the lines, the zone and their counts) is
# written as PNG frames and an MJPEG AVI (when jpegenc and avimux are installed), the
# element's messages (per frame counts, one cudaccl-event per crossing, entry and
# exit) into metadata.log, and the final counts are compared with the scene's truth,
# the crossings and entries of the discs' centers on the paths they were drawn on
# (events/count_truth.py). Exits 1 when a count differs.
#
#   pipelines/events.sh
#
# Environment:
#   SCENE_FRAMES    frames of the scene (60; the story is stretched to fit)
#   LINES, ZONES    the element's lines and zones values, for the 480x320 scene
#   CCL_PYTHON      interpreter with numpy (see lib.sh)
#   plus CCL_BACKEND, CCL_BUILD_DIR, CCL_OUT_DIR (see lib.sh). Outputs:
#   $CCL_OUT_DIR/events/
set -euo pipefail
source "$(dirname "$0")/lib.sh"

ccl_use_plugin
inspect=$(gst-inspect-1.0 cudaccl 2>/dev/null)
if ! grep -q 'zone-filter' <<<"$inspect" || ! grep -q '): events ' <<<"$inspect"; then
  ccl_die "the cudaccl of $ccl_build cannot count or draw events (lines, overlay=events): rebuild it"
fi
python=$(ccl_find_python 'import numpy') || ccl_die "no python3 with numpy for the scene (set CCL_PYTHON)"

out="$ccl_out_root/events"
ccl_fresh_dir "$out"
frames=${SCENE_FRAMES:-60}
lines=${LINES:-<<240,0,240,319>,<0,160,479,160>>}
zones=${ZONES:-<<300,220,479,220,479,319,300,319>>}

raw="$out/scene.i420"
desc=$("$python" "$ccl_root/pipelines/tracking/make_scene.py" "$raw" --frames "$frames")
geometry=$(sed -n 's/.*caps \([0-9]*x[0-9]*@[0-9]*\).*/\1/p' <<<"$desc" | head -n 1)
[ -n "$geometry" ] || ccl_die "make_scene.py said nothing usable: $desc"
ccl_raw_source "$raw" "$geometry"
echo "events: synthetic discs, ${w}x$h, $frames frames, backend=$ccl_backend"
echo "events: lines=$lines zones=$zones"

ccl_launch_frames "$out" counted.avi \
  "${source[@]}" ! video/x-raw,format=I420 \
  ! cudaccl name=ccl backend="$ccl_backend" post-messages=true post-events=true \
      tracking=true track-max-lost=15 threshold=90 threshold-mode=above min-area=20 \
      connectivity=8 lines="$lines" zones="$zones" overlay=boxes+trails+events
ccl_report_labeled "$out"

# The properties' values as count_truth.py takes them: "x1,y1,x2,y2;..." and so on.
flat() { sed -e 's/^<<//' -e 's/>>$//' -e 's/>, *</;/g' -e 's/ //g' <<<"$1"; }
echo
"$python" "$ccl_root/pipelines/events/count_truth.py" "$out/metadata.log" \
  --frames "$frames" --width "$w" --height "$h" \
  --lines "$(flat "$lines")" --zones "$(flat "$zones")" --csv "$out/counts.csv"
