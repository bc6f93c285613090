#!/usr/bin/env bash
# Decodes a clip (see real-video.sh) into raw I420 frames, for hosts that have
# GStreamer but no decoders (the GPU machines' minimal runtime): real-video.sh reads
# them back with CCL_VIDEO_RAW=FILE CCL_VIDEO_RAW_CAPS=WxH@FPS, bit for bit the frames
# that decodebin gives here.
#
#   pipelines/export-raw.sh [OUTPUT_FILE]      (default $CCL_OUT_DIR/raw/<clip>.i420)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

clip=${CLIP:-retroMars2018.avi}
clip_path=$(ccl_clip "$clip")
raw=${1:-$ccl_out_root/raw/${clip%.*}.i420}
mkdir -p "$(dirname "$raw")"

caps=$(gst-launch-1.0 -v filesrc location="$clip_path" ! decodebin ! videoconvert \
  ! video/x-raw,format=I420 ! filesink location="$raw" 2>&1 |
  sed -n 's/.*filesink0.GstPad:sink: caps = //p' | head -n 1)
width=$(sed -n 's/.*width=(int)\([0-9]*\).*/\1/p' <<<"$caps")
height=$(sed -n 's/.*height=(int)\([0-9]*\).*/\1/p' <<<"$caps")
fps=$(sed -n 's/.*framerate=(fraction)\([0-9]*\)\/1.*/\1/p' <<<"$caps")
[ -n "$width" ] && [ -n "$height" ] && [ -n "$fps" ] || ccl_die "could not read the decoded caps: $caps"
frames=$(($(stat -c %s "$raw") / (width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2))))
echo "raw I420 frames of $clip: $raw ($frames frames)"
echo "read back with: CCL_VIDEO_RAW=$raw CCL_VIDEO_RAW_CAPS=${width}x$height@$fps pipelines/real-video.sh"
