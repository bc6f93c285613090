#!/usr/bin/env bash
# Runs the real-video pipeline (and the videotestsrc ball) with backend=cpu and then
# backend=cuda and checks that both give the same metadata log, line for line, and
# the same overlay frames, byte for byte. Needs a CUDA device.
#
#   pipelines/compare-backends.sh
#
# Environment: as real-video.sh (CLIP, CCL_VIDEO_RAW, THRESHOLD, ...), CCL_BUILD_DIR,
# CCL_OUT_DIR. Outputs: $CCL_OUT_DIR/compare/{cpu,cuda}/ and their -ball twins.
set -euo pipefail
here=$(dirname "$0")
source "$here/lib.sh"

status=0
compare() {  # compare NAME: $ccl_out_root/compare/NAME-{cpu,cuda}
  local a="$ccl_out_root/compare/$1-cpu" b="$ccl_out_root/compare/$1-cuda"
  grep -q "labeling with the cuda backend" "$b/gst-debug.log" ||
    ccl_die "the cuda run did not label on the GPU (see $b/gst-debug.log)"
  ccl_compare_runs "$a" "$b" "$1" || status=1
}

for backend in cpu cuda; do
  CCL_BACKEND=$backend CCL_OUT_DIR="$ccl_out_root/compare" CCL_OUT_NAME=real-video-$backend \
    "$here/real-video.sh" >/dev/null
  CCL_BACKEND=$backend CCL_OUT_DIR="$ccl_out_root/compare" FRAMES=${FRAMES:-30} \
    "$here/testsrc.sh" ball >/dev/null
  mv "$ccl_out_root/compare/testsrc-ball" "$ccl_out_root/compare/ball-$backend"
done
compare real-video
compare ball
echo "outputs in $ccl_out_root/compare/"
exit $status
