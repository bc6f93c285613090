#!/usr/bin/env bash
# A V4L2 webcam through cudaccl, shown live with the overlay (for users who have a
# camera; this project's CI and build machines have none).
#
#   pipelines/webcam.sh
#
# Environment: DEVICE (/dev/video0), WIDTH x HEIGHT (640 x 480), THRESHOLD_MODE
# (otsu), MIN_AREA (50), SINK (autovideosink; with FRAMES=N and no display the
# frames go to PNG files instead), CCL_BACKEND, CCL_BUILD_DIR, CCL_OUT_DIR.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

device=${DEVICE:-/dev/video0}
[ -e "$device" ] || ccl_die "no camera at $device (set DEVICE=/dev/videoN)"
ccl_use_plugin
ccl_have v4l2src || ccl_die "v4l2src is missing: install gstreamer1.0-plugins-good"

props=(backend="$ccl_backend" threshold-mode="${THRESHOLD_MODE:-otsu}"
       min-area="${MIN_AREA:-50}" overlay=fill+boxes+centroids)
camera=(v4l2src device="$device")
[ -n "${FRAMES:-}" ] && camera+=(num-buffers="$FRAMES")
camera+=(! videoconvert ! videoscale
         ! video/x-raw,format=NV12,width="${WIDTH:-640}",height="${HEIGHT:-480}")

if [ -n "${FRAMES:-}" ] && [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  out="$ccl_out_root/webcam"
  ccl_fresh_dir "$out"
  ccl_launch "$out" "${camera[@]}" ! cudaccl name=ccl post-messages=true "${props[@]}" \
    ! videoconvert ! pngenc ! multifilesink location="$out/frame-%04d.png"
  ccl_report "$out"
else
  echo "webcam: $device through cudaccl (${props[*]}); close the window or press Ctrl-C to stop"
  gst-launch-1.0 "${camera[@]}" ! cudaccl "${props[@]}" ! videoconvert \
    ! fpsdisplaysink video-sink="${SINK:-autovideosink}" text-overlay=true
fi
