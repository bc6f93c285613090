#!/usr/bin/env bash
# Per-frame time of cudaccl itself, with frames in CUDA memory (videotestsrc !
# cudaupload ! cudaccl ! fakesink: cudaccl labels the uploader's memory in place) and,
# for comparison, in system memory (videotestsrc ! cudaccl ! fakesink: the element
# stages the luma plane through pinned memory). Two numbers per frame, both from the
# element's own log (GST_DEBUG=cudaccl:6):
#   wall  CPU time of the element's transform_ip, entry to return (waits for the GPU
#         included: the buffer leaves finished)
#   GPU   the CUDA events around the frame's work on the element's stream (label,
#         plus overlay and transfers when there are any)
# The first WARMUP frames are left out; the median and the 90th percentile of the rest
# are reported.
#
#   pipelines/zero-copy-timing.sh
#
# Environment: FRAMES (60), WARMUP (5), SIZES ("1920x1080 3840x2160"), PATTERNS
# ("ball snow"), OVERLAYS ("none fill+boxes"), MEMORIES ("cuda system"), plus
# CCL_BUILD_DIR, CCL_OUT_DIR. Outputs: $CCL_OUT_DIR/zero-copy-timing/timing.csv and a
# log per run.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

frames=${FRAMES:-60}
warmup=${WARMUP:-5}
ccl_use_plugin
ccl_have cudaupload || ccl_die "no cudaupload: needs GStreamer's nvcodec plugin and an NVIDIA GPU"
out="$ccl_out_root/zero-copy-timing"
ccl_fresh_dir "$out"

# stats FIELD: median and 90th percentile (us) of "FIELD <ns> ns" over the frames
# after the warm-up, from stdin.
stats() {
  grep -o "$1 [0-9]* ns" | awk -v skip="$warmup" '{ if (++n > skip && $2 < 1e18) print $2 / 1000 }' |
    sort -g | awk '{ v[NR] = $1 } END {
      if (NR == 0) { print ","; exit }
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      p = v[int(0.9 * (NR - 1)) + 1]
      printf "%.1f,%.1f\n", m, p }'
}

csv="$out/timing.csv"
echo "size,pattern,overlay,memory,frames,components_median,wall_median_us,wall_p90_us,gpu_median_us,gpu_p90_us" >"$csv"
printf "%-10s %-5s %-10s %-7s %10s %10s %9s %9s %9s\n" size pattern overlay memory components \
  "wall us" "wall p90" "GPU us" "GPU p90"
for size in ${SIZES:-1920x1080 3840x2160}; do
  w=${size%x*} h=${size#*x}
  for pattern in ${PATTERNS:-ball snow}; do
    # As testsrc.sh: the ball is one component; snow reports its 200 largest.
    case $pattern in
      snow) props="threshold=200 min-area=4 max-components=200" ;;
      *) props="threshold=128" ;;
    esac
    for overlay in ${OVERLAYS:-none fill+boxes}; do
      for memory in ${MEMORIES:-cuda system}; do
        upload=""
        [ "$memory" = cuda ] && upload="! cudaupload"
        log="$out/$size-$pattern-$overlay-$memory.log"
        # shellcheck disable=SC2086
        if ! GST_DEBUG=cudaccl:6 GST_DEBUG_NO_COLOR=1 gst-launch-1.0 -q videotestsrc pattern="$pattern" \
            num-buffers="$frames" ! video/x-raw,format=NV12,width="$w",height="$h",framerate=30/1 \
            $upload ! cudaccl name=ccl backend=cuda overlay="$overlay" $props ! fakesink \
            >"$log" 2>&1; then
          printf "%-10s %-5s %-10s %-7s failed (see %s)\n" "$size" "$pattern" "$overlay" "$memory" "$log"
          echo "$size,$pattern,$overlay,$memory,failed,,,,," >>"$csv"
          continue
        fi
        wanted="host"
        [ "$memory" = cuda ] && wanted="CUDA"
        n=$(grep -c ", $wanted memory, GPU " "$log" || true)
        comps=$(grep -o '[0-9]* components,' "$log" | awk '{ print $1 }' | sort -n |
                awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
        wall=$(stats wall <"$log")
        gpu=$(stats GPU <"$log")
        echo "$size,$pattern,$overlay,$memory,$n,$comps,$wall,$gpu" >>"$csv"
        printf "%-10s %-5s %-10s %-7s %10s %10s %9s %9s %9s\n" "$size" "$pattern" "$overlay" "$memory" \
          "$comps" "${wall%,*}" "${wall#*,}" "${gpu%,*}" "${gpu#*,}"
      done
    done
  done
done
echo "frames per run: $frames ($warmup warm-up frames left out); table in $csv"
