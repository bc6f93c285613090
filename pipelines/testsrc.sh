#!/usr/bin/env bash
# videotestsrc through cudaccl with the overlay drawn, into PNG frames (and an MJPEG
# AVI when jpegenc and avimux are installed), with the per-frame metadata log.
#
#   pipelines/testsrc.sh [ball|snow]
#
# Environment: FRAMES (60), WIDTH x HEIGHT (640 x 480), CCL_BACKEND, CCL_BUILD_DIR,
# CCL_OUT_DIR (see lib.sh). Outputs: $CCL_OUT_DIR/testsrc-<pattern>/.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

pattern=${1:-${PATTERN:-ball}}
frames=${FRAMES:-60}
width=${WIDTH:-640}
height=${HEIGHT:-480}
case "$pattern" in
  # A white ball on black: one component that moves.
  ball) props="threshold=128 overlay=fill+boxes+centroids overlay-alpha=0.6" ;;
  # Uniform noise: thousands of small components; report the 200 largest.
  snow) props="threshold=200 min-area=4 max-components=200 overlay=fill+boxes" ;;
  *) ccl_die "pattern must be ball or snow, not '$pattern'" ;;
esac

ccl_use_plugin
out="$ccl_out_root/testsrc-$pattern"
ccl_fresh_dir "$out"

echo "testsrc: videotestsrc pattern=$pattern, $frames frames of ${width}x$height, backend=$ccl_backend"
ccl_launch_frames "$out" "testsrc-$pattern.avi" \
  videotestsrc pattern="$pattern" num-buffers="$frames" \
  ! video/x-raw,format=I420,width="$width",height="$height",framerate=30/1 \
  ! cudaccl name=ccl backend="$ccl_backend" post-messages=true $props

written=$(find "$out" -name 'frame-*.png' | wc -l)
[ "$written" -eq "$frames" ] || ccl_die "expected $frames PNG frames in $out, found $written"
[ "$(($(wc -l <"$out/frames.csv") - 1))" -eq "$frames" ] ||
  ccl_die "expected $frames metadata lines in $out/metadata.log"
ccl_report "$out"
