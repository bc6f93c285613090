#!/usr/bin/env bash
# cudaccl's background model on a real clip from a fixed camera: a ball thrown across
# a room (balle-jbart.mp4 of Debian's python3-mecavideo, 720x576, 255 frames at 25 fps:
# a dark board under a lit ceiling and wall, an arm that throws and then rests). Three
# runs of the same frames:
#
#   background  foreground=background close-radius=2 min-area=100, tracking,
#               overlay=boxes+trails: what moves is found and tracked, the lit
#               wall is not; PNG frames, MJPEG AVI, metadata log, trajectory plot
#   foreground  the same with overlay=foreground+boxes+trails: every pixel the model
#               calls foreground is tinted, also those of components that min-area
#               drops (specks of noise at the board's edges)
#   otsu        today's foreground=threshold threshold-mode=otsu with the same cleanup,
#               tracking and overlay: one level for the whole frame, so the lit
#               ceiling and wall become one component of over a third of the frame
#               (the ball, brighter than the board, is found too)
#
# then a table from the metadata logs (fg_summary.py): per run the frames, mean
# reported components, and the largest component's share of the frame, left out the
# first 10 frames (the model's first frame is its background, and it settles while
# the arm throws). The background and foreground runs differ only in what is drawn:
# their metadata logs must be identical.
#
#   pipelines/background.sh [--docs]
#
# --docs writes the pictures of docs/FOREGROUND.md into docs/ (foreground-otsu.png,
# foreground-background.png: one frame, picked by background/docs_pictures.py, of
# the otsu and foreground runs; foreground-trajectories.png: the background run's
# plot), each under 300 KB. Without it they go to the output folder's docs/.
#
# Of the package's clips this one suits best: the camera stands still, the ball
# crosses the whole frame for ten seconds. The others are short (16 frames: g1.avi,
# g2.avi, a cyclist), start with a title card whose scene then vanishes
# (Force_constante.avi, Principe_inertie.avi, Effet_force_magnetique.ogv), or do not
# decode here (balle1-vp9.avi).
#
# Environment:
#   CLIP, CCL_VIDEO_DIR, CCL_VIDEO_RAW, CCL_VIDEO_RAW_CAPS   the clip, as in
#                   real-video.sh (CCL_VIDEO_RAW: raw I420 frames for hosts without
#                   decoders, made by CLIP=balle-jbart.mp4 export-raw.sh;
#                   CCL_VIDEO_RAW_CAPS defaults to 720x576@25)
#   FRAMES          label only the first N frames (all)
#   MIN_AREA (100), CLOSE_RADIUS (2), OPEN_RADIUS (0), HISTORY (500),
#   VARIANCE_THRESHOLD (16), TRACK_MAX_LOST (15), OVERLAY (boxes+trails)
#   RUNS            which runs, of "background foreground otsu" (all three)
#   SKIP            frames left out of the table (10)
#   BG_CHECK=1      assert what the runs are meant to show (the test does): after
#                   SKIP frames, foreground=background reports a component in at least
#                   80 % of the frames and never one over 5 % of the frame; otsu has
#                   one over 5 % in most frames (exit 1 otherwise)
#   PLOT_MIN_FRAMES tracks seen in fewer frames are left out of the plot (25: the
#                   ball, and the few edges that light up while the camera shakes)
#   DOCS_FRAME      the frame of the docs pictures (picked from the log)
#   CCL_PYTHON      interpreter for the helpers (the first of /usr/bin/python3 and
#                   python3 that has matplotlib; the plot and the docs pictures need
#                   it and PIL, the table does not)
#   plus CCL_BACKEND, CCL_BUILD_DIR, CCL_OUT_DIR (see lib.sh). Outputs:
#   $CCL_OUT_DIR/background/{background,foreground,otsu}/, summary.txt, summary.csv
set -euo pipefail
source "$(dirname "$0")/lib.sh"
helpers="$ccl_root/pipelines/background"

docs=0
for arg in "$@"; do
  case "$arg" in
  --docs) docs=1 ;;
  *) ccl_die "unknown argument '$arg' (--docs or nothing)" ;;
  esac
done
read -r -a runs <<<"${RUNS:-background foreground otsu}"
for r in "${runs[@]}"; do
  case "$r" in background | foreground | otsu) ;; *) ccl_die "unknown run '$r' in RUNS" ;; esac
done
if [ $docs -eq 1 ]; then
  runs=(background foreground otsu)
  [ -z "${FRAMES:-}" ] || ccl_die "--docs shows the whole clip: unset FRAMES"
fi

ccl_use_plugin
# An element without the background model would reject the properties only at run
# time, after a confusing warning: say it up front.
inspect=$(gst-inspect-1.0 cudaccl 2>/dev/null)
if ! grep -q 'variance-threshold' <<<"$inspect" || ! grep -q 'close-radius' <<<"$inspect" ||
  ! grep -q '(0x00000010): foreground' <<<"$inspect"; then
  ccl_die "the cudaccl of $ccl_build has no background model (foreground=background, history, close-radius, overlay=foreground): rebuild it"
fi

if ! python=$(ccl_find_python 'import matplotlib' 'pass'); then
  [ -n "$python" ] || ccl_die "no python3 for the summary (set CCL_PYTHON)"
  echo "background: $python has no matplotlib: no trajectory plot" >&2
fi

clip=${CLIP:-balle-jbart.mp4}
root="$ccl_out_root/background"
ccl_fresh_dir "$root"
if [ -n "${FRAMES:-}" ]; then
  [[ "$FRAMES" =~ ^[1-9][0-9]*$ ]] || ccl_die "FRAMES must be a positive number"
fi

# ccl_video_source exits (77 under the tests) when the package cannot be fetched.
ccl_video_source "$clip" 720x576@25
[ -n "${FRAMES:-}" ] && ccl_first_frames "$root/first-$FRAMES.i420"
overlay=${OVERLAY:-boxes+trails}
min_area=${MIN_AREA:-100}
cleanup=(close-radius="${CLOSE_RADIUS:-2}" open-radius="${OPEN_RADIUS:-0}" min-area="$min_area")
model=(foreground=background history="${HISTORY:-500}"
       variance-threshold="${VARIANCE_THRESHOLD:-16}")

# fg_run NAME OVERLAY PROPERTY...: one run of the clip into $root/NAME.
fg_run() {
  local name=$1 run_overlay=$2 out
  shift 2
  out="$root/$name"
  ccl_fresh_dir "$out"
  echo
  echo "background: run '$name': $* overlay=$run_overlay"
  ccl_launch_frames "$out" tracked.avi \
    "${source[@]}" ! video/x-raw,format=I420 \
    ! cudaccl name=ccl backend="$ccl_backend" post-messages=true \
        tracking=true track-max-lost="${TRACK_MAX_LOST:-15}" connectivity=8 \
        "${cleanup[@]}" "$@" overlay="$run_overlay"
  ccl_report_labeled "$out"
}

echo "background: $source_desc${FRAMES:+ (first $FRAMES frames)}, backend=$ccl_backend"
status=0
for r in "${runs[@]}"; do
  case "$r" in
  background) fg_run background "$overlay" "${model[@]}" ;;
  foreground) fg_run foreground "foreground+$overlay" "${model[@]}" ;;
  otsu) fg_run otsu "$overlay" foreground=threshold threshold-mode=otsu ;;
  esac
done

plot="$root/background/trajectories.png"
if [ -d "$root/background" ]; then
  echo
  "$python" "$ccl_root/pipelines/tracking/plot_tracks.py" "$root/background/metadata.log" \
    "$plot" --csv "$root/background/tracks.csv" --min-frames "${PLOT_MIN_FRAMES:-25}" \
    --list 10 --title "${clip%.*}, foreground=background (tracks of ${PLOT_MIN_FRAMES:-25}+ frames)" ||
    status=1
fi

# The foreground flag only draws: both runs must have reported the same components.
if [ -d "$root/background" ] && [ -d "$root/foreground" ]; then
  echo
  if cmp -s "$root/background/metadata.log" "$root/foreground/metadata.log"; then
    echo "background: the foreground run's metadata is identical to the background run's"
  else
    echo "background: the foreground run's metadata DIFFERS from the background run's (overlay=foreground must only draw)"
    status=1
  fi
fi

logs=()
for r in otsu background; do
  [ -d "$root/$r" ] && logs+=("$r=$root/$r/metadata.log")
done
if [ ${#logs[@]} -gt 0 ]; then
  check=()
  if [ "${BG_CHECK:-0}" = 1 ]; then
    [ ${#logs[@]} -eq 2 ] || ccl_die "BG_CHECK=1 needs the otsu and background runs"
    check=(--check "background,otsu")
  fi
  echo
  echo "background: otsu vs background on the same frames (from the metadata logs)"
  "$python" "$helpers/fg_summary.py" "${logs[@]}" --skip "${SKIP:-10}" \
    --csv "$root/summary.csv" "${check[@]}" | tee "$root/summary.txt" ||
    status=1
fi

docs_dir="$root/docs"
[ $docs -eq 1 ] && docs_dir="$ccl_root/docs"
pictures=0
if [ -f "$plot" ] && [ -d "$root/foreground" ] && [ -d "$root/otsu" ] &&
  "$python" -c 'import PIL' >/dev/null 2>&1; then
  echo
  if "$python" "$helpers/docs_pictures.py" --log "$root/background/metadata.log" \
    --otsu-frames "$root/otsu" --background-frames "$root/foreground" \
    --trajectories "$plot" --out "$docs_dir" ${DOCS_FRAME:+--frame "$DOCS_FRAME"}; then
    pictures=1
  elif [ $docs -eq 1 ]; then
    status=1
  else
    echo "background: no docs pictures (see above)" >&2
  fi
elif [ $docs -eq 1 ]; then
  ccl_die "--docs needs the three runs, the plot (matplotlib) and PIL in $python"
fi

rm -f "$root"/first-*.i420
echo
for r in "${runs[@]}"; do
  out="$root/$r"
  echo "background: $r: overlay frames $out/frame-NNNN.png"
  [ -f "$out/tracked.avi" ] && echo "background: $r: video $out/tracked.avi"
  echo "background: $r: metadata $out/metadata.log"
done
[ -f "$plot" ] && echo "background: trajectory plot $plot"
[ -f "$root/summary.txt" ] && echo "background: summary $root/summary.txt (per frame: $root/summary.csv)"
[ $pictures -eq 1 ] &&
  echo "background: pictures for docs/FOREGROUND.md in $docs_dir/"
exit "$status"
