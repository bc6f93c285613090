#!/usr/bin/env bash
# A real video clip through cudaccl: decoded (decodebin), labeled, written with the
# overlay as PNG frames (and an MJPEG AVI when jpegenc and avimux are installed),
# plus the per-frame metadata log (gst-launch-1.0 -m, post-messages=true).
#
#   pipelines/real-video.sh
#
# The clip comes from Debian's python3-mecavideo (pymecavideo's physics clips),
# fetched once with apt-get download + dpkg-deb -x into a cache, never installed.
#
# Environment:
#   CLIP            file of the package's data/video folder (retroMars2018.avi:
#                   planets on black, 1024x768, 25 frames; balle-jbart.mp4 is a
#                   thrown ball, 720x576, 255 frames)
#   CCL_VIDEO_DIR   the clip cache (<build>/testdata/video)
#   CCL_VIDEO_RAW   raw I420 frames to read instead of decoding the clip (hosts
#                   without decoders; see export-raw.sh), with CCL_VIDEO_RAW_CAPS
#                   "WIDTHxHEIGHT@FPS" (1024x768@25)
#   THRESHOLD (40), THRESHOLD_MODE (above), MIN_AREA (10), OVERLAY
#   (fill+boxes+centroids), ALGORITHM (ha4), CONNECTIVITY (8), plus CCL_BACKEND,
#   CCL_BUILD_DIR, CCL_OUT_DIR (see lib.sh). Outputs: $CCL_OUT_DIR/real-video/
#   (CCL_OUT_NAME renames the last folder).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

clip=${CLIP:-retroMars2018.avi}

ccl_use_plugin

ccl_video_source "$clip" 1024x768@25

out="$ccl_out_root/${CCL_OUT_NAME:-real-video}"
ccl_fresh_dir "$out"

echo "real-video: $source_desc, backend=$ccl_backend"
ccl_launch_frames "$out" labeled.avi \
  "${source[@]}" ! video/x-raw,format=I420 \
  ! cudaccl name=ccl backend="$ccl_backend" post-messages=true \
      threshold="${THRESHOLD:-40}" threshold-mode="${THRESHOLD_MODE:-above}" \
      min-area="${MIN_AREA:-10}" overlay="${OVERLAY:-fill+boxes+centroids}" \
      algorithm="${ALGORITHM:-ha4}" connectivity="${CONNECTIVITY:-8}"

ccl_report_labeled "$out"
