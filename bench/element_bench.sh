#!/usr/bin/env bash
# Element-level benchmark (issue 6 item 2): pipeline throughput and per-frame element
# time of cudaccl with system memory and with CUDA memory, at 1920x1080 and 3840x2160,
# against the same pipeline without cudaccl.
#
# On the GPU host (GStreamer from .gpu-runtime, plugin from the build it was made for):
#   source .gpu-runtime/env.sh && bench/element_bench.sh [-n FRAMES] [-o CSV]
#       [-p "ball snow"] [-s "1920x1080 3840x2160"] [-m "system cuda"] [-e "extra cudaccl props"]
#       [-r REPETITIONS]
# (.gpu-runtime made with GPU_RUNTIME_PLUGINS="coretracers imagefreeze" so the
# latency tracer and imagefreeze are there.)
#
# Method: the source is one videotestsrc frame repeated by imagefreeze, so the
# pipeline costs what the transfers and cudaccl cost, not the CPU drawing test
# patterns. Each pipeline runs with FRAMES/10 and with FRAMES frames, REPETITIONS
# (3) times each, least wall time of each kept; the difference of the two over the
# difference of the frame counts is the time per frame without start-up (plugin
# loading, CUDA context). The element's own time
# per frame is the latency tracer's element-latency of cudaccl (buffer in to buffer
# out, CPU and GPU wait together), median, from a third run with N/10 frames, which
# includes the tracer's own records. A fourth run, without the tracer, reads the GPU
# time per frame that the element logs (GST_DEBUG=cudaccl:6) and its wall time in
# transform_ip (entry to that log line: the element's own work, GPU waits included).
# Noise frames (pattern snow) run FRAMES/10 (34,038 components per 4K frame, 8-connected).
set -euo pipefail

frames=1000
csv=element_bench.csv
patterns="ball snow"
sizes="1920x1080 3840x2160"
memories="system cuda"
extra="algorithm=ha4 connectivity=8"
# Per-frame times below this are lost in the start-up jitter of the runs compared.
resolution_us=2
reps=3
while getopts "n:o:p:s:m:e:r:h" opt; do
  case $opt in
    n) frames=$OPTARG ;;
    r) reps=$OPTARG ;;
    o) csv=$OPTARG ;;
    p) patterns=$OPTARG ;;
    s) sizes=$OPTARG ;;
    m) memories=$OPTARG ;;
    e) extra=$OPTARG ;;
    *) sed -n '2,20p' "$0"; exit 2 ;;
  esac
done
errlog=$(mktemp)
trap 'rm -f "$errlog"' EXIT

command -v gst-launch-1.0 >/dev/null || { echo "element_bench: gst-launch-1.0 not found (source .gpu-runtime/env.sh)" >&2; exit 1; }
gst-inspect-1.0 cudaccl >/dev/null 2>&1 || { echo "element_bench: element cudaccl not found (GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-})" >&2; exit 1; }
for e in imagefreeze cudaupload cudadownload; do
  gst-inspect-1.0 "$e" >/dev/null 2>&1 || { echo "element_bench: element $e missing from the runtime" >&2; exit 1; }
done
have_tracer=0
# Read whole before grep: grep -q quitting early would fail the pipe (pipefail).
tracer_probe=$(GST_TRACERS=latency GST_DEBUG=GST_TRACER:7 gst-launch-1.0 -q fakesrc num-buffers=1 ! fakesink 2>&1 || true)
grep -q latency <<<"$tracer_probe" && have_tracer=1

# source SIZE PATTERN N: N frames of one test-pattern frame, NV12 (what decoders give).
source_of() {
  local w=${1%x*} h=${1#*x}
  echo "videotestsrc num-buffers=1 pattern=$2 ! video/x-raw,format=NV12,width=$w,height=$h,framerate=30/1 ! imagefreeze num-buffers=$3"
}

# pipeline SIZE PATTERN N MEMORY WITH_CCL
pipeline() {
  local src ccl=""
  src=$(source_of "$1" "$2" "$3")
  [ "$5" = yes ] && ccl="cudaccl name=ccl backend=cuda $extra !"
  if [ "$4" = cuda ]; then
    echo "$src ! cudaupload ! video/x-raw(memory:CUDAMemory) ! $ccl cudadownload ! fakesink sync=false"
  else
    echo "$src ! $ccl fakesink sync=false"
  fi
}

# Least wall seconds of $reps gst-launch runs (start-up jitter only ever adds time).
wall() {
  local best="" t i
  for i in $(seq "$reps"); do
    t=$(wall_once "$1")
    [ "$t" = failed ] && { echo failed; return; }
    if [ -z "$best" ] || awk "BEGIN { exit !($t < $best) }"; then best=$t; fi
  done
  echo "$best"
}

# Wall seconds of one gst-launch run.
wall_once() {
  local t0 t1
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  if ! gst-launch-1.0 -q $1 >/dev/null 2>"$errlog"; then
    echo failed
    return
  fi
  t1=$(date +%s.%N)
  calc "$t1 - $t0"
}

calc() { awk "BEGIN { printf \"%.9f\", $1 }"; }

median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) print ""; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

echo "size,memory,pattern,pipeline,frames,us_per_frame,fps,added_us_per_frame,overhead_pct,element_latency_med_us,element_gpu_time_med_us,element_wall_med_us,note" > "$csv"
printf "%-10s %-7s %-5s %-9s %10s %9s %9s %9s %11s %8s %8s\n" size memory pattern pipeline "us/frame" fps "added us" overhead "element us" "GPU us" "wall us"
for size in $sizes; do
  for memory in $memories; do
    for pattern in $patterns; do
      base_us=""
      n=$frames
      [ "$pattern" = snow ] && n=$((frames / 10))
      few=$((n / 10))
      [ "$few" -ge 1 ] || few=1
      for with in no yes; do
        name=baseline
        [ "$with" = yes ] && name=cudaccl
        t_few=$(wall "$(pipeline "$size" "$pattern" "$few" "$memory" "$with")")
        t_many=failed
        [ "$t_few" = failed ] || t_many=$(wall "$(pipeline "$size" "$pattern" "$n" "$memory" "$with")")
        if [ "$t_many" = failed ]; then
          why=$(grep -m1 -i -E 'error|erroneous' "$errlog" | tr ',"' ";'" || true)
          printf "%-10s %-7s %-5s %-9s failed: %s\n" "$size" "$memory" "$pattern" "$name" "$why"
          echo "$size,$memory,$pattern,$name,$n,,,,,,,\"failed: $why\"" >> "$csv"
          [ "$with" = no ] && break
          continue
        fi
        us=$(calc "($t_many - $t_few) * 1000000 / ($n - $few)")
        overhead="" added="" lat="" gpu="" wall_us="" note=""
        if awk "BEGIN { exit !($us < $resolution_us) }"; then
          # The frames took less time than gst-launch's start-up varies by (system
          # memory baseline: imagefreeze hands one buffer on): no number to report.
          note="below the method's resolution ($resolution_us us per frame)"
          us="" fps=""
        else
          fps=$(calc "1000000 / $us")
        fi
        if [ "$with" = no ]; then
          base_us=${us:-0}
        else
          # A percentage of a baseline near zero (system memory: imagefreeze hands
          # on one buffer) says nothing; the added time does.
          if awk "BEGIN { exit !($base_us > 20) }"; then
            overhead=$(calc "($us - $base_us) * 100 / $base_us")
          fi
          [ -n "$us" ] && added=$(calc "$us - $base_us")
          log=$(mktemp)
          p=$(pipeline "$size" "$pattern" "$few" "$memory" yes)
          # shellcheck disable=SC2086
          if [ "$have_tracer" = 1 ]; then
            GST_TRACERS="latency(flags=element)" GST_DEBUG="GST_TRACER:7,cudaccl:6" GST_DEBUG_NO_COLOR=1 \
              gst-launch-1.0 -q $p >"$log" 2>&1 || true
          else
            GST_DEBUG="cudaccl:6" GST_DEBUG_NO_COLOR=1 gst-launch-1.0 -q $p >"$log" 2>&1 || true
          fi
          # element-latency records of cudaccl, in ns.
          lat=$(grep 'element-latency' "$log" | grep 'element=(string)ccl' |
                sed -n 's/.*time=(guint64)\([0-9]*\).*/\1/p' | awk '{print $1/1000}' | median || true)
          if [ "$have_tracer" = 1 ]; then
            # The tracer's records (debug level 7, every pad of the pipeline) slow the
            # whole process: the element's own times come from a run without them.
            # shellcheck disable=SC2086
            GST_DEBUG="cudaccl:6" GST_DEBUG_NO_COLOR=1 gst-launch-1.0 -q $p >"$log" 2>&1 || true
          fi
          # The element logs each frame's GPU time (its meta's gpu_time) in ns.
          # (GST_CLOCK_TIME_NONE, 2^64-1, where the backend has no GPU time).
          gpu=$(grep -o 'GPU [0-9]* ns' "$log" | awk '$2 < 1e18 {print $2/1000}' | median || true)
          # And its wall time in transform_ip, entry to the log line: the element's work
          # without the debug logging and tracer records that element-latency includes.
          wall_us=$(grep -o 'wall [0-9]* ns' "$log" | awk '{print $2/1000}' | median || true)
          rm -f "$log"
        fi
        printf "%-10s %-7s %-5s %-9s %10s %9s %9s %9s %11s %8s %8s\n" "$size" "$memory" "$pattern" "$name" \
          "${us:+$(printf '%.1f' "$us")}" "${fps:+$(printf '%.1f' "$fps")}" \
          "${added:+$(printf '%.1f' "$added")}" "${overhead:+$(printf '%.1f%%' "$overhead")}" "${lat:+$(printf '%.1f' "$lat")}" "${gpu:+$(printf '%.1f' "$gpu")}" "${wall_us:+$(printf '%.1f' "$wall_us")}"
        echo "$size,$memory,$pattern,$name,$n,${us:+$(printf '%.2f' "$us")},${fps:+$(printf '%.1f' "$fps")},${added:+$(printf '%.2f' "$added")},${overhead:+$(printf '%.2f' "$overhead")},$lat,$gpu,$wall_us,${note:+\"$note\"}" >> "$csv"
      done
    done
  done
done
echo "CSV: $csv"
