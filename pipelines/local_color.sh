#!/usr/bin/env bash
# cudaccl's local threshold and color range on real pictures, two parts:
#
#   page   a still image with uneven light: page.png of Debian's python3-skimage, a
#          photographed book page lit from one side (real light, not a made-up
#          vignette), taken from the gray test-image cache of
#          tests/common/fetch-testdata.sh, which holds it inverted: the ink is the
#          bright side. Labeled twice, overlay=fill, each to an overlay PNG:
#            local  foreground=local block-size=31 offset=-10: ink brighter than the
#                   mean of its 31x31 window by more than 10 (on the page as
#                   photographed, dark ink, the same is threshold-mode=below
#                   offset=10)
#            otsu   threshold-mode=otsu: one level for the whole page
#   ball   a colored object: the first FRAMES frames of balle-jbart.mp4 of Debian's
#          python3-mecavideo (720x576, a yellow tennis ball thrown across a room) with
#          foreground=color color-low="<20,80,80>" color-high="<40,255,255>"
#          (yellow: hues 40-80 degrees, saturated, not dark) close-radius=2
#          min-area=30, tracking, overlay=foreground+boxes+trails: PNG frames, MJPEG
#          AVI, metadata log, trajectory plot
#
# then a table from the metadata logs (local_color/lc_summary.py): per run the frames,
# components, frames with a component and the largest component's share of the frame.
#
#   pipelines/local_color.sh [--docs]
#
# --docs writes the picture of docs/FOREGROUND.md, docs/foreground-local.png (the
# page's local run above its Otsu run, local_color/docs_picture.py); without it the
# picture goes to the output folder's docs/.
#
# Environment:
#   PARTS           which parts, of "page ball" (both)
#   FRAMES          frames of the clip (all 255)
#   BLOCK_SIZE (31), OFFSET (-10)                      the page's local run
#   COLOR_LOW ("<20,80,80>"), COLOR_HIGH ("<40,255,255>"), CLOSE_RADIUS (2),
#   MIN_AREA (30)                                       the clip's color run
#   LC_CHECK=1      assert what the runs are meant to show (the test does): local
#                   finds 100 or more components on the page, none of 1 % of it, and
#                   Otsu's level one of more than 10 %; the color run finds a component
#                   in 80 % of the clip's frames and none of 1 % of the frame (exit 1
#                   otherwise)
#   CCL_TESTDATA_DIR  the test-image cache (<build>/testdata), filled by
#                   tests/common/fetch-testdata.sh with the build's ccl-import-image
#   CLIP, CCL_VIDEO_DIR, CCL_VIDEO_RAW, CCL_VIDEO_RAW_CAPS   the clip, as in
#                   background.sh (CCL_VIDEO_RAW: raw I420 frames of balle-jbart.mp4
#                   for hosts without decoders; CCL_VIDEO_RAW_CAPS 720x576@25)
#   CCL_PYTHON      interpreter for the helpers (the plot needs matplotlib, the
#                   table does not)
#   plus CCL_BACKEND, CCL_BUILD_DIR, CCL_OUT_DIR (see lib.sh). Outputs:
#   $CCL_OUT_DIR/local_color/page/{input,local,otsu}.png (+ run folders),
#   $CCL_OUT_DIR/local_color/ball/, summary.txt, summary.csv
#
# Missing inputs (no network for the packages) exit with CCL_CLIP_MISSING_EXIT (1;
# the test sets 77, a skip).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
helpers="$ccl_root/pipelines/local_color"

docs=0
for arg in "$@"; do
  case "$arg" in
  --docs) docs=1 ;;
  *) ccl_die "unknown argument '$arg' (--docs or nothing)" ;;
  esac
done
read -r -a parts <<<"${PARTS:-page ball}"
for p in "${parts[@]}"; do
  case "$p" in page | ball) ;; *) ccl_die "unknown part '$p' in PARTS (page, ball)" ;; esac
done
if [ $docs -eq 1 ] && [[ " ${parts[*]} " != *" page "* ]]; then
  parts+=(page)
fi
if [ -n "${FRAMES:-}" ]; then
  [[ "$FRAMES" =~ ^[1-9][0-9]*$ ]] || ccl_die "FRAMES must be a positive number"
fi

ccl_use_plugin
# An element without the two models would refuse the properties only at run time.
inspect=$(gst-inspect-1.0 cudaccl 2>/dev/null)
if ! grep -q 'block-size' <<<"$inspect" || ! grep -q 'color-low' <<<"$inspect"; then
  ccl_die "the cudaccl of $ccl_build has no foreground=local / foreground=color (block-size, color-low): rebuild it"
fi
if ! python=$(ccl_find_python 'import matplotlib' 'pass'); then
  [ -n "$python" ] || ccl_die "no python3 for the summary (set CCL_PYTHON)"
  echo "local_color: $python has no matplotlib: no trajectory plot" >&2
fi

root="$ccl_out_root/local_color"
ccl_fresh_dir "$root"
logs=()
check=()
status=0

# ---- page: local threshold next to Otsu's level ----
page_part() {
  local testdata=${CCL_TESTDATA_DIR:-$ccl_build/testdata} import="$ccl_build/tests/common/ccl-import-image"
  local page dir=$root/page
  if [ ! -f "$testdata/gray/MANIFEST" ]; then
    [ -x "$import" ] || meson compile -C "$ccl_build" ccl-import-image >/dev/null ||
      ccl_die "no ccl-import-image in $ccl_build to fill the test-image cache"
    if ! "$ccl_root/tests/common/fetch-testdata.sh" "$testdata" "$import"; then
      echo "$(basename "$0"): no test images in $testdata (set CCL_TESTDATA_DIR to a filled cache)" >&2
      exit "${CCL_CLIP_MISSING_EXIT:-1}"
    fi
  fi
  page="$testdata/gray/skimage_page.pgm"
  [ -f "$page" ] || ccl_die "the test-image cache $testdata has no skimage_page.pgm"
  mkdir -p "$dir"
  echo "local_color: page: $page (skimage's page.png, inverted: ink bright), backend=$ccl_backend"
  gst-launch-1.0 -q filesrc location="$page" ! pnmdec ! videoconvert ! pngenc \
    ! filesink location="$dir/input.png" >/dev/null || ccl_die "could not decode $page"

  # page_run NAME PROPERTY...: the page through cudaccl into $dir/NAME.png.
  page_run() {
    local name=$1 out
    shift
    out="$dir/$name"
    ccl_fresh_dir "$out"
    echo
    echo "local_color: page, run '$name': $*"
    # RGBx: the overlay in color (the local test reads its BT.601 luma, the page's
    # gray value exactly).
    ccl_launch "$out" filesrc location="$page" ! pnmdec ! videoconvert \
      ! video/x-raw,format=RGBx \
      ! cudaccl name=ccl backend="$ccl_backend" post-messages=true overlay=fill "$@" \
      ! videoconvert ! pngenc ! filesink location="$dir/$name.png" || status=1
    ccl_report_labeled "$out"
    logs+=("page-$name=$out/metadata.log")
  }
  page_run local foreground=local block-size="${BLOCK_SIZE:-31}" offset="${OFFSET:--10}"
  page_run otsu foreground=threshold threshold-mode=otsu
  check+=(--check-local page-local,page-otsu)

  local docs_dir="$root/docs"
  [ $docs -eq 1 ] && docs_dir="$ccl_root/docs"
  if "$python" -c 'import PIL' >/dev/null 2>&1; then
    mkdir -p "$docs_dir"
    "$python" "$helpers/docs_picture.py" "$dir/local.png" "$dir/otsu.png" \
      "$docs_dir/foreground-local.png" || status=1
  elif [ $docs -eq 1 ]; then
    ccl_die "--docs needs PIL in $python"
  fi
}

# ---- ball: a color range on a clip ----
ball_part() {
  local clip=${CLIP:-balle-jbart.mp4} out=$root/ball
  ccl_video_source "$clip" 720x576@25
  ccl_fresh_dir "$out"
  [ -n "${FRAMES:-}" ] && ccl_first_frames "$root/first-$FRAMES.i420"
  echo
  echo "local_color: ball: $source_desc${FRAMES:+ (first $FRAMES frames)}, backend=$ccl_backend"
  ccl_launch_frames "$out" tracked.avi \
    "${source[@]}" ! video/x-raw,format=I420 \
    ! cudaccl name=ccl backend="$ccl_backend" post-messages=true tracking=true \
        foreground=color color-low="${COLOR_LOW:-<20,80,80>}" \
        color-high="${COLOR_HIGH:-<40,255,255>}" close-radius="${CLOSE_RADIUS:-2}" \
        min-area="${MIN_AREA:-30}" overlay=foreground+boxes+trails || status=1
  ccl_report_labeled "$out"
  rm -f "$root"/first-*.i420
  logs+=("ball-color=$out/metadata.log")
  check+=(--check-color ball-color)
  echo
  "$python" "$ccl_root/pipelines/tracking/plot_tracks.py" "$out/metadata.log" \
    "$out/trajectories.png" --csv "$out/tracks.csv" --min-frames 10 --list 5 \
    --title "${clip%.*}, foreground=color (tracks of 10+ frames)" ||
    echo "local_color: no trajectory plot (see above)" >&2
}

for p in "${parts[@]}"; do
  case "$p" in
  page) page_part ;;
  ball) ball_part ;;
  esac
done

[ "${LC_CHECK:-0}" = 1 ] || check=()
echo
echo "local_color: the runs, from their metadata logs"
"$python" "$helpers/lc_summary.py" "${logs[@]}" --csv "$root/summary.csv" "${check[@]}" |
  tee "$root/summary.txt" || status=1

echo
if [ -d "$root/page" ]; then
  echo "local_color: page: input $root/page/input.png, foreground=local $root/page/local.png, Otsu $root/page/otsu.png"
fi
if [ -d "$root/ball" ]; then
  what="frames $root/ball/frame-NNNN.png"
  [ -f "$root/ball/tracked.avi" ] && what="$what, video $root/ball/tracked.avi"
  [ -f "$root/ball/trajectories.png" ] && what="$what, trajectories $root/ball/trajectories.png"
  echo "local_color: ball (foreground=color): $what"
fi
echo "local_color: summary $root/summary.txt (per frame: $root/summary.csv)"
exit "$status"
