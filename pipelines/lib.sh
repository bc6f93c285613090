# Sourced by the pipeline scripts: finds the build, makes its uninstalled cudaccl
# plugin visible to gst-launch-1.0, and runs pipelines with their metadata logged.
#
# Environment (all optional):
#   CCL_BUILD_DIR   build folder, relative to the project root or absolute (build)
#   CCL_BACKEND     auto | cuda | cpu (auto)
#   CCL_OUT_DIR     where outputs go (out/pipelines)

ccl_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ccl_build=${CCL_BUILD_DIR:-build}
case "$ccl_build" in /*) ;; *) ccl_build="$ccl_root/$ccl_build" ;; esac
ccl_backend=${CCL_BACKEND:-auto}
ccl_out_root=${CCL_OUT_DIR:-$ccl_root/out/pipelines}
case "$ccl_out_root" in /*) ;; *) ccl_out_root="$ccl_root/$ccl_out_root" ;; esac

ccl_die() {
  echo "$(basename "$0"): $*" >&2
  exit 1
}

# Builds the plugin when the build folder is configured but the plugin is missing,
# then points GStreamer at it (keeping any registry the caller chose).
ccl_use_plugin() {
  local plugin="$ccl_build/plugin/libgstcudaccl.so"
  if [ ! -f "$plugin" ]; then
    [ -f "$ccl_build/build.ninja" ] ||
      ccl_die "no build in $ccl_build: run 'meson setup $ccl_build && meson compile -C $ccl_build' (or scripts/setup first)"
    meson compile -C "$ccl_build" gstcudaccl >/dev/null || ccl_die "building the plugin failed"
  fi
  export GST_PLUGIN_PATH="$ccl_build/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
  export GST_REGISTRY=${GST_REGISTRY:-$ccl_build/pipelines-registry.bin}
  gst-inspect-1.0 cudaccl >/dev/null 2>&1 ||
    ccl_die "gst-inspect-1.0 cannot load cudaccl from $ccl_build/plugin"
}

ccl_have() { gst-inspect-1.0 "$1" >/dev/null 2>&1; }

# ccl_clip NAME: path of a clip of Debian's python3-mecavideo (pymecavideo's physics
# clips), fetched once with apt-get download + dpkg-deb -x into the cache
# CCL_VIDEO_DIR (<build>/testdata/video), never installed.
ccl_clip() {
  local name=$1 pkg=python3-mecavideo dir=${CCL_VIDEO_DIR:-$ccl_build/testdata/video} work
  if [ ! -f "$dir/$name" ]; then
    echo "fetching $pkg's clips into $dir" >&2
    mkdir -p "$dir"
    work=$(mktemp -d "$dir/fetch.XXXXXX")
    # The package lists may be missing on a fresh machine; refresh them once as root.
    if ! apt-cache show "$pkg" >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
      apt-get update -qq >/dev/null 2>&1 || true
    fi
    if ! (cd "$work" && apt-get download -q=2 -o APT::Sandbox::User=root "$pkg" >apt.log 2>&1); then
      echo "apt-get download $pkg failed: $(tail -n 2 "$work/apt.log" | tr '\n' ' ')" >&2
      rm -rf "$work"
      echo "$(basename "$0"): no clip $name (set CCL_VIDEO_DIR to a filled cache)" >&2
      # Tests set CCL_CLIP_MISSING_EXIT=77 so that an offline machine skips them.
      exit "${CCL_CLIP_MISSING_EXIT:-1}"
    fi
    dpkg-deb -x "$work"/${pkg}_*.deb "$work/root"
    # Renamed, not copied, into place ($work is inside $dir): a script running at the
    # same time sees each clip whole or not at all, never a clip still being written.
    local f
    for f in "$work"/root/usr/share/pymecavideo/data/video/*; do
      mv -f "$f" "$dir/"
    done
    rm -rf "$work"
  fi
  [ -f "$dir/$name" ] || ccl_die "$pkg has no clip $name (see $dir)"
  echo "$dir/$name"
}

# ccl_raw_source FILE WxH@FPS: sets w, h, fps and source, the head of a pipeline
# that reads FILE's raw I420 frames.
ccl_raw_source() {
  local geometry=$2 rest
  w=${geometry%%x*}; rest=${geometry#*x}; h=${rest%@*}; fps=${geometry#*@}
  source=(filesrc location="$1" ! rawvideoparse format=i420 width="$w" height="$h"
          framerate="$fps"/1)
}

# ccl_video_source CLIP WxH@FPS: sets source and source_desc for the clip scripts:
# CCL_VIDEO_RAW's raw frames when set (geometry CCL_VIDEO_RAW_CAPS, else the second
# argument; also sets w, h, fps), else CLIP (ccl_clip) decoded (also sets clip_path).
# Returns ccl_clip's status when the clip cannot be had.
ccl_video_source() {
  if [ -n "${CCL_VIDEO_RAW:-}" ]; then
    [ -f "$CCL_VIDEO_RAW" ] || ccl_die "no raw frames at $CCL_VIDEO_RAW"
    ccl_raw_source "$CCL_VIDEO_RAW" "${CCL_VIDEO_RAW_CAPS:-$2}"
    source_desc="raw I420 ${w}x$h from $CCL_VIDEO_RAW"
  else
    clip_path=$(ccl_clip "$1") || return
    source_desc=$clip_path
    source=(filesrc location="$clip_path" ! decodebin ! videoconvert)
  fi
}

# ccl_find_python WANTED NEEDED: prints the interpreter for the helper scripts:
# CCL_PYTHON when set, else the first of /usr/bin/python3 and python3 that runs the
# Python code WANTED (e.g. 'import matplotlib'), else (returning 1, so that the caller
# can say what goes missing) the first that runs NEEDED, else nothing (returning 2).
ccl_find_python() {
  local p
  if [ -n "${CCL_PYTHON:-}" ]; then
    echo "$CCL_PYTHON"
    return 0
  fi
  for p in /usr/bin/python3 python3; do
    if "$p" -c "$1" >/dev/null 2>&1; then echo "$p"; return 0; fi
  done
  for p in /usr/bin/python3 python3; do
    if "$p" -c "$2" >/dev/null 2>&1; then echo "$p"; return 1; fi
  done
  return 2
}

# ccl_h264_clip: path of an H.264 MP4 of the real clip (retroMars2018.avi, re-encoded
# with x264enc, cached beside the clips), or CCL_H264_CLIP when set. The GPU hosts
# have NVDEC but no encoder: make it here and carry it.
ccl_h264_clip() {
  local dir=${CCL_VIDEO_DIR:-$ccl_build/testdata/video} src out
  if [ -n "${CCL_H264_CLIP:-}" ]; then
    [ -f "$CCL_H264_CLIP" ] || ccl_die "no H.264 clip at $CCL_H264_CLIP"
    echo "$CCL_H264_CLIP"
    return
  fi
  out="$dir/retroMars2018-h264.mp4"
  if [ ! -f "$out" ]; then
    ccl_have x264enc || ccl_die "no H.264 clip at $out and no x264enc to make one (gstreamer1.0-plugins-ugly; or set CCL_H264_CLIP)"
    src=$(ccl_clip retroMars2018.avi)
    # High profile, 4:2:0, 8 bits: what NVDEC decodes on every GPU with one.
    gst-launch-1.0 -q filesrc location="$src" ! decodebin ! videoconvert ! video/x-raw,format=I420 \
      ! x264enc speed-preset=medium key-int-max=25 ! video/x-h264,profile=high \
      ! h264parse ! mp4mux ! filesink location="$out.part" >/dev/null ||
      ccl_die "encoding $src into H.264 failed"
    mv "$out.part" "$out"
  fi
  echo "$out"
}

# ccl_compare_runs A B NAME: compares two runs' metadata logs line for line and
# their PNG frames byte for byte; prints the verdict, returns 1 when they differ.
ccl_compare_runs() {
  local a=$1 b=$2 name=$3 frames differ=0 status=0 f
  frames=$(($(wc -l <"$a/frames.csv") - 1))
  if [ "$frames" -gt 0 ] && cmp -s "$a/metadata.log" "$b/metadata.log"; then
    echo "$name: metadata identical: $frames frames, $(wc -c <"$a/metadata.log") bytes of messages"
  else
    echo "$name: metadata DIFFERS ($frames frames in $a); first difference:"
    diff "$a/metadata.log" "$b/metadata.log" | head -n 4 | cut -c1-400
    status=1
  fi
  for f in "$a"/frame-*.png; do
    [ -f "$f" ] || continue
    cmp -s "$f" "$b/$(basename "$f")" || differ=$((differ + 1))
  done
  if [ $differ -eq 0 ]; then
    echo "$name: overlay frames identical: $(find "$a" -name 'frame-*.png' | wc -l) PNG files"
  else
    echo "$name: $differ overlay frames DIFFER"
    status=1
  fi
  return $status
}

# ccl_fresh_dir DIR: an empty output folder.
ccl_fresh_dir() {
  rm -rf "$1"
  mkdir -p "$1"
}

# ccl_launch OUT_DIR PIPELINE...: runs gst-launch-1.0 -m with the pipeline (whose
# cudaccl is named "ccl" and posts messages); keeps its output in
# OUT_DIR/gst-launch.log, the debug log in OUT_DIR/gst-debug.log (apart, so that no
# debug line lands inside a message line), the element's per-frame messages in
# OUT_DIR/metadata.log (one line per frame, identical for every backend) and a
# per-frame summary in OUT_DIR/frames.csv. Returns gst-launch-1.0's status.
ccl_launch() {
  local out=$1 rc=0
  shift
  # cudaccl's INFO line names the backend it picked (auto may fall back to cpu).
  GST_DEBUG=${GST_DEBUG:-cudaccl:4} GST_DEBUG_NO_COLOR=1 GST_DEBUG_FILE="$out/gst-debug.log" \
    gst-launch-1.0 -m "$@" >"$out/gst-launch.log" 2>&1 || rc=$?
  sed -n 's/^Got message #[0-9]* from element "ccl" (element): //p' "$out/gst-launch.log" \
    >"$out/metadata.log"
  {
    echo "timestamp_ns,total_components,reported_components,threshold"
    sed -E 's/.*timestamp=\(guint64\)([0-9]+).*total-components=\(uint\)([0-9]+), reported-components=\(uint\)([0-9]+), threshold=\(uint\)([0-9]+).*/\1,\2,\3,\4/' \
      < <(grep '^cudaccl,' "$out/metadata.log")
  } >"$out/frames.csv"
  if [ $rc -ne 0 ]; then
    echo "gst-launch-1.0 failed (exit $rc); the end of $out/gst-launch.log:" >&2
    grep -h -E "ERROR|WARNING|Additional debug|^[^G0]" "$out/gst-launch.log" "$out/gst-debug.log" |
      tail -n 15 >&2
  fi
  return $rc
}

# ccl_launch_frames OUT_DIR AVI PIPELINE...: ccl_launch of PIPELINE (ending in the
# cudaccl named "ccl", drawing its overlay) into OUT_DIR, the frames written as
# OUT_DIR/frame-NNNN.png and, when jpegenc and avimux are installed, as the MJPEG
# video OUT_DIR/AVI. Returns gst-launch-1.0's status.
ccl_launch_frames() {
  local out=$1 avi=$2 video_branch=()
  shift 2
  if ccl_have jpegenc && ccl_have avimux; then
    video_branch=(t. ! queue ! jpegenc ! avimux ! filesink location="$out/$avi")
  fi
  ccl_launch "$out" "$@" ! videoconvert ! tee name=t \
    t. ! queue ! pngenc ! multifilesink location="$out/frame-%04d.png" \
    "${video_branch[@]}"
}

# ccl_report_labeled OUT_DIR: ccl_report, after dying when no frame was labeled.
ccl_report_labeled() {
  [ "$(($(wc -l <"$1/frames.csv") - 1))" -gt 0 ] ||
    ccl_die "no frame was labeled (see $1/gst-launch.log)"
  ccl_report "$1"
}

# ccl_report OUT_DIR: says where the outputs are and what the frames held.
ccl_report() {
  local out=$1 frames
  frames=$(($(wc -l <"$out/frames.csv") - 1))
  echo "backend: $(sed -n 's/.*labeling with the \([a-z]*\) backend.*/\1/p' "$out/gst-debug.log" | head -n 1)${ccl_backend:+ (asked: $ccl_backend)}"
  echo "frames labeled: $frames"
  if [ "$frames" -gt 0 ]; then
    awk -F, 'NR > 1 { t += $2; r += $3; if ($2 > m) m = $2 } END {
      printf "components per frame: mean %.1f, max %d; reported per frame: mean %.1f\n", t / (NR - 1), m, r / (NR - 1) }' \
      "$out/frames.csv"
  fi
  echo "outputs in $out:"
  (cd "$out" && ls -1 | awk '/^frame-[0-9]+\.png$/ { n++; next } { print "  " $0 } END { if (n) print "  frame-NNNN.png (" n " overlay frames)" }')
}

# ccl_first_frames RAW: after ccl_video_source, the source becomes the clip's first
# $FRAMES frames, decoded once into RAW (raw I420; with CCL_VIDEO_RAW cut from that file)
# that every run reads: a pipeline cut short behind the decoder (identity eos-after)
# lets a different few frames through each time, and the runs must see the same ones.
ccl_first_frames() {
  local raw=$1 caps bytes
  if [ -n "${CCL_VIDEO_RAW:-}" ]; then
    head -c "$((FRAMES * (w * h + 2 * ((w + 1) / 2) * ((h + 1) / 2))))" "$CCL_VIDEO_RAW" >"$raw"
  else
    # The whole output is kept: when no caps come, its end says why.
    local decode_log="$raw.log"
    gst-launch-1.0 -v "${source[@]}" ! video/x-raw,format=I420 ! queue \
      ! identity eos-after="$((FRAMES + 8))" ! filesink location="$raw" >"$decode_log" 2>&1
    caps=$(sed -n 's/.*filesink0.GstPad:sink: caps = //p' "$decode_log" | head -n 1)
    w=$(sed -n 's/.*width=(int)\([0-9]*\).*/\1/p' <<<"$caps")
    h=$(sed -n 's/.*height=(int)\([0-9]*\).*/\1/p' <<<"$caps")
    fps=$(sed -n 's/.*framerate=(fraction)\([0-9]*\)\/1.*/\1/p' <<<"$caps")
    [ -n "$w" ] && [ -n "$h" ] && [ -n "$fps" ] ||
      ccl_die "could not decode $clip_path (caps: $caps); the end of gst-launch-1.0's output:
$(tail -n 15 "$decode_log")"
    bytes=$((FRAMES * (w * h + 2 * ((w + 1) / 2) * ((h + 1) / 2))))
    [ "$(stat -c %s "$raw")" -ge "$bytes" ] || ccl_die "$clip has fewer than $FRAMES frames"
    truncate -s "$bytes" "$raw"
  fi
  ccl_raw_source "$raw" "${w}x$h@$fps"
}
