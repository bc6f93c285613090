#!/usr/bin/env bash
# Frames that stay on the GPU: cudaccl between NVIDIA's CUDA elements on
# video/x-raw(memory:CUDAMemory), all of them in one CUDA context, with the overlay
# drawn into the decoder's (or uploader's) own memory. Writes PNG frames and the
# per-frame metadata log like real-video.sh, and checks what makes it zero-copy.
#
#   pipelines/zero-copy.sh testsrc   videotestsrc ! cudaupload ! cudaccl ! cudadownload ! ...
#   pipelines/zero-copy.sh h264      filesrc ! qtdemux ! h264parse ! nvh264dec ! cudaccl ! cudadownload ! ...
#
# Needs an NVIDIA GPU and GStreamer's nvcodec plugin (cudaupload, cudadownload,
# nvh264dec); the h264 source also qtdemux and h264parse.
#
# Checks (MEMORY=cuda): every frame was labeled in CUDA memory of the element's own
# context (its per-frame log says "CUDA memory"; memory of another context would be
# read through the host, with a warning), and the pipeline announced exactly one CUDA
# context, the one the element uses.
#
# Environment:
#   MEMORY          cuda (the zero-copy path) or system: the same frames in system
#                   memory, for comparisons (see compare-memory.sh): videotestsrc
#                   straight into cudaccl, or nvh264dec made to output system memory
#                   (a caps filter). Not "cudadownload ! cudaccl": 1.22's cudadownload
#                   may hand over GstCudaMemory under system memory caps, which
#                   cudaccl then labels on the GPU as well.
#   FRAMES (60), WIDTH x HEIGHT (640 x 480), PATTERN (ball), FORMAT (NV12): testsrc
#   CCL_H264_CLIP   the H.264 MP4 (default: the real clip of real-video.sh re-encoded
#                   with x264enc here, see ccl_h264_clip in lib.sh)
#   THRESHOLD, MIN_AREA, OVERLAY, plus CCL_BACKEND, CCL_BUILD_DIR, CCL_OUT_DIR (lib.sh).
#   Outputs: $CCL_OUT_DIR/zero-copy-<source>-<memory>/ (CCL_OUT_NAME renames it).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

what=${1:-testsrc}
memory=${MEMORY:-cuda}
frames=${FRAMES:-60}
case "$memory" in cuda | system) ;; *) ccl_die "MEMORY must be cuda or system, not '$memory'" ;; esac

ccl_use_plugin
needs=(cudaupload cudadownload)
[ "$memory" = cuda ] || [ "$what" = h264 ] || needs=()
for e in ${needs[@]+"${needs[@]}"}; do
  if ! ccl_have "$e"; then
    echo "$(basename "$0"): no $e: needs GStreamer's nvcodec plugin and an NVIDIA GPU" >&2
    # Tests set CCL_GPU_MISSING_EXIT=77 so that machines without a GPU skip them.
    exit "${CCL_GPU_MISSING_EXIT:-1}"
  fi
done

case "$what" in
  testsrc)
    width=${WIDTH:-640}
    height=${HEIGHT:-480}
    source=(videotestsrc pattern="${PATTERN:-ball}" num-buffers="$frames"
            ! video/x-raw,format="${FORMAT:-NV12}",width="$width",height="$height",framerate=30/1)
    to_cuda=(cudaupload)
    to_system=()  # videotestsrc makes system memory
    source_desc="videotestsrc pattern=${PATTERN:-ball}, $frames frames of ${width}x$height ${FORMAT:-NV12}"
    defaults=(128 1 fill+boxes+centroids)
    ;;
  h264)
    for e in qtdemux h264parse nvh264dec; do ccl_have "$e" || ccl_die "no $e in this GStreamer"; done
    clip=$(ccl_h264_clip)
    source=(filesrc location="$clip" ! qtdemux ! h264parse ! nvh264dec)
    to_cuda=()
    to_system=(video/x-raw)  # no memory feature: the decoder outputs system memory
    source_desc="$clip through nvh264dec"
    defaults=(40 10 fill+boxes+centroids)
    ;;
  *) ccl_die "source must be testsrc or h264, not '$what'" ;;
esac

ccl_props=(name=ccl backend="$ccl_backend" post-messages=true threshold="${THRESHOLD:-${defaults[0]}}"
           min-area="${MIN_AREA:-${defaults[1]}}" overlay="${OVERLAY:-${defaults[2]}}")
# No caps filter on the CUDA path: cudaccl's own preference has to keep the frames on
# the GPU.
if [ "$memory" = cuda ]; then
  middle=()
  [ ${#to_cuda[@]} -eq 0 ] || middle=("${to_cuda[@]}" !)
  middle+=(cudaccl "${ccl_props[@]}" ! cudadownload)
else
  middle=()
  [ ${#to_system[@]} -eq 0 ] || middle=("${to_system[@]}" !)
  middle+=(cudaccl "${ccl_props[@]}")
fi

out="$ccl_out_root/${CCL_OUT_NAME:-zero-copy-$what-$memory}"
ccl_fresh_dir "$out"
echo "zero-copy: $source_desc, cudaccl in $memory memory, backend=$ccl_backend"
# cudaccl:6 logs each frame's memory and times; GST_CONTEXT:5 the context traffic.
export GST_DEBUG=${GST_DEBUG:-cudaccl:6,GST_CONTEXT:5}
ccl_launch "$out" \
  "${source[@]}" ! "${middle[@]}" \
  ! videoconvert ! pngenc ! multifilesink location="$out/frame-%04d.png"

labeled=$(($(wc -l <"$out/frames.csv") - 1))
[ "$labeled" -gt 0 ] || ccl_die "no frame was labeled (see $out/gst-launch.log)"
[ "$what" != testsrc ] || [ "$labeled" -eq "$frames" ] || ccl_die "labeled $labeled of $frames frames"

# What the element says about each frame and its context.
debug="$out/gst-debug.log"
on_device=$(grep -c ', CUDA memory, GPU ' "$debug" || true)
on_host=$(grep -c ', host memory, GPU ' "$debug" || true)
ours=$(sed -n 's/.*cudaccl.*CUDA context .* (\(0x[0-9a-f]*\)) on device.*/\1/p' "$debug" | head -n 1)
announced=$(sed -n 's/.*posting have context (0x[0-9a-f]*) message with CUDA context (\(0x[0-9a-f]*\)).*/\1/p' \
  "$debug" | sort -u)
{
  echo "frames labeled: $labeled; in CUDA memory of the element's context: $on_device, in host memory: $on_host"
  echo "element's CUDA context: ${ours:-none}"
  echo "CUDA contexts announced in the pipeline: $(echo "$announced" | grep -c . || true) (${announced//$'\n'/ })"
  grep -m1 'configured for' "$debug" | sed 's/.*configured for/configured for/' || true
} | tee "$out/zero-copy.txt"

if [ "$memory" = cuda ]; then
  [ "$on_device" -eq "$labeled" ] ||
    ccl_die "only $on_device of $labeled frames were labeled in CUDA memory of the element's context"
  [ "$(echo "$announced" | grep -c .)" -eq 1 ] && [ "$announced" = "$ours" ] ||
    ccl_die "not one CUDA context for the whole pipeline (element: ${ours:-none}; announced: $announced)"
  ! grep -q "another CUDA context" "$out/gst-launch.log" "$debug" || ccl_die "frames came in another CUDA context"
  echo "zero-copy: every frame labeled in place in the pipeline's one CUDA context"
elif [ "$on_host" -ne "$labeled" ]; then
  # An upstream CUDA element may back system memory caps with GstCudaMemory of the
  # element's context; cudaccl then labels those frames on the GPU too.
  echo "note: $on_device of $labeled frames came as GstCudaMemory under system memory caps"
fi
ccl_report "$out"
