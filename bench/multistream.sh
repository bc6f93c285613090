#!/usr/bin/env bash
# Many cudaccl instances on one GPU: aggregate frames per second for N streams, as N
# pipelines in one gst-launch-1.0 process and as N processes, with CUDA memory.
#
#   source .gpu-runtime/env.sh && bench/multistream.sh [-n FRAMES] [-o CSV]
#       [-s "1280x720 1920x1080"] [-k "1 2 4 8 16"] [-e "extra cudaccl props"]
# (.gpu-runtime made with GPU_RUNTIME_PLUGINS="imagefreeze".)
#
# Each stream uploads one videotestsrc frame (pattern ball, NV12) and imagefreeze
# repeats it in CUDA memory, so that nothing but cudaccl bounds the pipeline. A
# configuration runs twice, with FRAMES/5 and FRAMES frames per stream; the difference
# of the wall times over the difference of the frame counts leaves start-up (plugin
# loading, CUDA contexts) out. Aggregate fps = N streams x frames / that time. The
# plot (bench/plot_multistream.py) sets each curve against N x its one-stream rate.
set -euo pipefail

frames=2000
csv=multistream.csv
sizes="1280x720 1920x1080"
counts="1 2 4 8 16"
extra=""
while getopts "n:o:s:k:e:h" opt; do
  case $opt in
    n) frames=$OPTARG ;;
    o) csv=$OPTARG ;;
    s) sizes=$OPTARG ;;
    k) counts=$OPTARG ;;
    e) extra=$OPTARG ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
  esac
done
command -v gst-launch-1.0 >/dev/null || { echo "multistream: gst-launch-1.0 not found (source .gpu-runtime/env.sh)" >&2; exit 1; }
for e in cudaccl imagefreeze cudaupload; do
  gst-inspect-1.0 "$e" >/dev/null 2>&1 || { echo "multistream: element $e missing" >&2; exit 1; }
done

# One stream's chain: W H FRAMES.
chain() {
  echo "videotestsrc pattern=ball num-buffers=1 ! video/x-raw,format=NV12,width=$1,height=$2" \
    "! cudaupload ! imagefreeze num-buffers=$3 ! cudaccl backend=cuda $extra" \
    "! fakesink sync=false"
}

now() { date +%s.%N; }

# Wall seconds of N streams of FRAMES frames: MODE is "pipelines" (one process) or
# "processes".
run() {
  local mode=$1 n=$2 w=$3 h=$4 f=$5 t0 i desc=()
  t0=$(now)
  if [ "$mode" = pipelines ]; then
    for ((i = 0; i < n; i++)); do desc+=($(chain "$w" "$h" "$f")); done
    gst-launch-1.0 -q "${desc[@]}" >/dev/null || { echo "multistream: pipeline failed" >&2; return 1; }
  else
    local pids=()
    for ((i = 0; i < n; i++)); do
      # shellcheck disable=SC2046
      gst-launch-1.0 -q $(chain "$w" "$h" "$f") >/dev/null & pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || { echo "multistream: a process failed" >&2; return 1; }; done
  fi
  awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.6f\n", b - a }'
}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/device: /' || true
echo "mode,size,streams,frames,fps_aggregate,us_per_frame_per_stream" >"$csv"
printf '%-9s %-10s %7s %14s %18s\n' mode size streams "aggregate fps" "us/frame/stream"
short=$((frames / 5))
for size in $sizes; do
  w=${size%x*}; h=${size#*x}
  for mode in pipelines processes; do
    for n in $counts; do
      a=$(run "$mode" "$n" "$w" "$h" "$short")
      b=$(run "$mode" "$n" "$w" "$h" "$frames")
      read -r fps us < <(echo "$a $b" | awk -v n="$n" -v d=$((frames - short)) \
        '{ t = $2 - $1; if (t <= 0) { print "0 0"; exit } printf "%.0f %.1f\n", n * d / t, t / d * 1e6 }')
      printf '%-9s %-10s %7d %14s %18s\n' "$mode" "$size" "$n" "$fps" "$us"
      echo "$mode,$size,$n,$frames,$fps,$us" >>"$csv"
    done
  done
done
