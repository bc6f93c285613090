#!/usr/bin/env bash
# cudaccl's tracking, shown twice: on the real clip (planets on black, as in
# real-video.sh) and on a synthetic scene of moving discs (crossing and parallel
# paths, one vanishing for a few frames, one splitting). Each run writes the overlay
# (fill, boxes, centroids and each track's trail, in a color fixed per track id) as
# PNG frames and an MJPEG AVI (when jpegenc and avimux are installed), the per-frame
# metadata log with the track ids, and a trajectory plot with one line per track.
#
#   pipelines/tracking.sh [clip] [scene]       (default: both)
#
# The scene is made by tracking/make_scene.py (numpy) as raw I420 frames and read
# back with rawvideoparse, so that run needs no decoder; the plot needs matplotlib.
#
# Environment:
#   CLIP, CCL_VIDEO_DIR, CCL_VIDEO_RAW, CCL_VIDEO_RAW_CAPS   the clip, as in
#                   real-video.sh (CCL_VIDEO_RAW: raw I420 frames for hosts without
#                   decoders, see export-raw.sh)
#   TRACK_MAX_LOST  frames a track may go unseen and keep its id (15)
#   OVERLAY         (fill+boxes+centroids+trails)
#   SCENE_FRAMES    frames of the synthetic scene (60; the story is stretched to fit)
#   CCL_PYTHON      interpreter for the helpers (the first of /usr/bin/python3 and
#                   python3 that has numpy and matplotlib)
#   plus CCL_BACKEND, CCL_BUILD_DIR, CCL_OUT_DIR (see lib.sh). Outputs:
#   $CCL_OUT_DIR/tracking/{clip,scene}/
set -euo pipefail
source "$(dirname "$0")/lib.sh"
helpers="$ccl_root/pipelines/tracking"

runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(clip scene)
for r in "${runs[@]}"; do
  case "$r" in clip | scene) ;; *) ccl_die "unknown run '$r' (clip or scene)" ;; esac
done

ccl_use_plugin
# An element built before tracking would reject the properties only at run time,
# after a confusing warning: say it up front.
inspect=$(gst-inspect-1.0 cudaccl 2>/dev/null)
if ! grep -q 'track-max-lost' <<<"$inspect" || ! grep -q 'trails' <<<"$inspect"; then
  ccl_die "the cudaccl of $ccl_build has no tracking (track-max-lost, overlay=trails): rebuild it"
fi

if ! python=$(ccl_find_python 'import numpy, matplotlib' 'import numpy'); then
  [ -n "$python" ] || ccl_die "no python3 with numpy for the synthetic scene (set CCL_PYTHON)"
  echo "tracking: $python has no matplotlib: the runs go without trajectory plots" >&2
fi

root="$ccl_out_root/tracking"
mkdir -p "$root"
overlay=${OVERLAY:-fill+boxes+centroids+trails}
max_lost=${TRACK_MAX_LOST:-15}

# track_run NAME TITLE THRESHOLD MIN_AREA PLOT_MIN_AREA SOURCE...: one tracked run
# into $root/NAME, then its trajectory plot and summary.
track_run() {
  local name=$1 title=$2 threshold=$3 min_area=$4 plot_min_area=$5 out
  shift 5
  out="$root/$name"
  ccl_launch_frames "$out" tracked.avi \
    "$@" ! video/x-raw,format=I420 \
    ! cudaccl name=ccl backend="$ccl_backend" post-messages=true \
        tracking=true track-max-lost="$max_lost" \
        threshold="$threshold" threshold-mode=above min-area="$min_area" \
        overlay="$overlay" connectivity=8
  ccl_report_labeled "$out"
  "$python" "$helpers/plot_tracks.py" "$out/metadata.log" "$out/trajectories.png" \
    --csv "$out/tracks.csv" --min-area "$plot_min_area" --title "$title"
}

status=0
summary=()

for r in "${runs[@]}"; do
  echo
  case "$r" in
  clip)
    clip=${CLIP:-retroMars2018.avi}
    # Without the clip the scene still runs; the status says the clip was missing.
    if ! ccl_video_source "$clip" 1024x768@10; then
      status=${CCL_CLIP_MISSING_EXIT:-1}
      echo "tracking clip: skipped, no clip $clip" >&2
      continue
    fi
    ccl_fresh_dir "$root/clip"
    echo "tracking clip: $source_desc, backend=$ccl_backend, track-max-lost=$max_lost"
    # The plot leaves out the letters of the captions (tens of pixels each; the
    # date's digits change every frame): what moves are the planets.
    track_run clip "${clip%.*}" "${THRESHOLD:-40}" "${MIN_AREA:-10}" "${PLOT_MIN_AREA:-200}" \
      "${source[@]}"
    ;;
  scene)
    ccl_fresh_dir "$root/scene"
    raw="$root/scene/scene.i420"
    desc=$("$python" "$helpers/make_scene.py" "$raw" --frames "${SCENE_FRAMES:-60}")
    geometry=$(sed -n 's/.*caps \([0-9]*x[0-9]*@[0-9]*\).*/\1/p' <<<"$desc" | head -n 1)
    [ -n "$geometry" ] || ccl_die "make_scene.py said nothing usable: $desc"
    ccl_raw_source "$raw" "$geometry"
    echo "tracking scene: synthetic discs, ${w}x$h, backend=$ccl_backend, track-max-lost=$max_lost"
    sed 1d <<<"$desc"
    track_run scene "synthetic scene" 90 20 0 "${source[@]}"
    ;;
  esac
  out="$root/$r"
  summary+=("$r: overlay frames $out/frame-NNNN.png")
  [ -f "$out/tracked.avi" ] && summary+=("$r: video $out/tracked.avi")
  [ -f "$out/trajectories.png" ] && summary+=("$r: trajectory plot $out/trajectories.png")
  summary+=("$r: metadata $out/metadata.log, one row per tracked component $out/tracks.csv")
done

echo
printf 'tracking: %s\n' "${summary[@]}"
exit "$status"
