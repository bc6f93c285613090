#!/usr/bin/env bash
# Many cudaccl streams on one GPU, each stream's frames counted over one fixed window
# while all of them run: N pipelines in one gst-launch-1.0 process (one CUDA context),
# N processes (a context each, time-sliced), and N processes under MPS where the GPU
# host has nvidia-cuda-mps-control. Every aggregate is set against the copy bound of
# its case, and one above it is flagged (WARNING).
#
#   source .gpu-runtime/env.sh && bench/multistream.sh [-o CSV] [-b cuda|cpu]
#       [-f "threshold background"] [-m "system cuda device"] [-s "1920x1080"]
#       [-k "1 2 4 8 16"] [-M "pipelines processes mps"] [-u WARMUP_S] [-w WINDOW_S]
#       [-H|--h2d-gbps H2D_GBPS] [-D|--d2d-gbps D2D_GBPS] [-e "extra cudaccl props"]
#   (H2D_GBPS default: measured once at the start, pinned host-to-device copies through
#   the CUDA driver; unmeasurable and not given: no bound, the # lines say so)
# (GPU host: .gpu-runtime made with GPU_RUNTIME_PLUGINS="imagefreeze"; it has
# nvcodec's cudaupload and debugutilsbad's fpsdisplaysink. Needs python3.)
#
# Streams: one videotestsrc frame (pattern ball, NV12) repeated by imagefreeze, so
# that nothing but the transfer and cudaccl bound a stream. Memory:
#   system  host frames; the element uploads through pinned staging what it reads:
#           the luma plane (W*H bytes) for threshold, every plane (1.5*W*H) for
#           background (the model reads color)
#   cuda    imagefreeze ! cudaupload ! video/x-raw(memory:CUDAMemory) ! cudaccl:
#           every frame uploaded whole (1.5*W*H bytes) by cudaupload
#   device  cudaupload ! imagefreeze: uploaded once, the same device frame repeated
#           (frames born on the GPU, as NVDEC gives them): no transfer per frame
# Counting (bench/stream_fps.py): each stream ends in fpsdisplaysink, whose reports
# (frames so far, and its own clock since the first frame) gst-launch-1.0 -v prints
# every 250 ms. Once every stream runs, WARMUP_S (2) pass, then each stream's frames
# are counted over WINDOW_S (5) of wall time, while all of them run. Start-up (plugin
# loading, CUDA contexts) and tear-down fall outside the window.
#
# Bound (backend=cuda): system and cuda memory, aggregate fps <= H2D bandwidth / bytes
# uploaded per frame, the host-to-device rate from pinned memory measured once at the
# start (or -H); all streams share the one link. device memory, <= device memory
# bandwidth (cuMemcpyDtoD, read + write bytes, or -D) / W*H (each frame's luma read
# once): loose, and a repeated frame may partly stay in the L2 cache. backend=cpu: no
# bound (-H/-D given anyway are applied as given: a check of the WARNING path). An
# aggregate above its bound is flagged ABOVE_BOUND with a WARNING on stderr: the
# counting or the premise of the bound is wrong, and the number must not be used.
#
# CSV (after # lines: device, bandwidths, MPS, settings): config,backend,foreground,
# memory,size,mode,streams,fps_min,fps_median,fps_max (per stream),fps_aggregate (their
# sum),gpx_per_s,counted_s_min (shortest stretch over which a stream was counted; its
# reports are 250 ms apart),host_cpu_cores (CPU time of the gst-launch-1.0 processes
# over the window per second: near the host's core count, the host is the limit),
# bytes_per_frame,bound_gbps,bound_fps,pct_of_bound,flag.
# Plot: bench/plot_multistream.py CSV PNG. Time: about 8 s per row plus start-up.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

csv=multistream.csv
backend=cuda
foregrounds="threshold background"
memories=""
sizes="1920x1080"
counts="1 2 4 8 16"
modes=""
warmup=2
window=5
h2d=""
d2d=""
extra=""
# Long spellings of the bandwidth options: --h2d-gbps G (-H), --d2d-gbps G (-D).
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --h2d-gbps=*) args+=(-H "${1#*=}") ;;
    --d2d-gbps=*) args+=(-D "${1#*=}") ;;
    --h2d-gbps) args+=(-H "${2:?--h2d-gbps needs a value}"); shift ;;
    --d2d-gbps) args+=(-D "${2:?--d2d-gbps needs a value}"); shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
set -- ${args[@]+"${args[@]}"}
while getopts "o:b:f:m:s:k:M:u:w:H:D:e:h" opt; do
  case $opt in
    o) csv=$OPTARG ;;
    b) backend=$OPTARG ;;
    f) foregrounds=$OPTARG ;;
    m) memories=$OPTARG ;;
    s) sizes=$OPTARG ;;
    k) counts=$OPTARG ;;
    M) modes=$OPTARG ;;
    u) warmup=$OPTARG ;;
    w) window=$OPTARG ;;
    H) h2d=$OPTARG ;;
    D) d2d=$OPTARG ;;
    e) extra=$OPTARG ;;
    *) sed -n '2,47p' "$0"; exit 2 ;;
  esac
done
[ -n "$memories" ] || { [ "$backend" = cuda ] && memories="system cuda device" || memories="system"; }

fail() { echo "multistream: $*" >&2; exit 1; }
command -v gst-launch-1.0 >/dev/null || fail "gst-launch-1.0 not found (source .gpu-runtime/env.sh)"
command -v python3 >/dev/null || fail "python3 not found"
need="cudaccl imagefreeze fpsdisplaysink"
[[ " $memories " == *" cuda "* || " $memories " == *" device "* ]] && need="$need cudaupload"
# Also builds the registry once, before N processes start at the same moment.
for e in $need; do
  gst-inspect-1.0 "$e" >/dev/null 2>&1 || fail "element $e missing (GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-})"
done

# MPS: a daemon already serving the default pipe directory puts every process under
# it (then "processes" is already MPS); else "mps" starts one of our own, in a private
# directory, for that mode only, and stops it after.
mps_tool=$(command -v nvidia-cuda-mps-control || true)
mps_running=no
[ -S /tmp/nvidia-mps/control ] && mps_running=yes
if [ -z "$modes" ]; then
  modes="pipelines processes"
  [ "$backend" = cuda ] && [ -n "$mps_tool" ] && [ "$mps_running" = no ] && modes="$modes mps"
fi
mps_dir=""
mps_note="nvidia-cuda-mps-control ${mps_tool:-not found}; daemon at /tmp/nvidia-mps: $mps_running"
[[ " $modes " == *" mps "* ]] && { [ -n "$mps_tool" ] || fail "mode mps: nvidia-cuda-mps-control not found"; }
[[ " $modes " == *" mps "* ]] && mps_note="$mps_note; mode mps: a daemon of our own per batch of runs"
mps_clients=0
# An MPS daemon of our own, in a private directory, for one batch of mps runs.
start_mps() {
  mps_dir=$(mktemp -d /tmp/multistream-mps.XXXXXX)
  mkdir -p "$mps_dir/pipe" "$mps_dir/log"
  CUDA_MPS_PIPE_DIRECTORY=$mps_dir/pipe CUDA_MPS_LOG_DIRECTORY=$mps_dir/log "$mps_tool" -d ||
    fail "could not start an MPS daemon"
}
stop_mps() {
  if [ -n "$mps_dir" ]; then
    echo quit | CUDA_MPS_PIPE_DIRECTORY=$mps_dir/pipe CUDA_MPS_LOG_DIRECTORY=$mps_dir/log \
      "$mps_tool" >/dev/null 2>&1 || true
    sleep 1
    # Whether the processes reached the daemon: its log names each client.
    local c
    c=$(grep -ci 'new client' "$mps_dir/log/control.log" 2>/dev/null || true)
    mps_clients=$((mps_clients + ${c:-0}))
    rm -rf "$mps_dir"
    mps_dir=""
  fi
}
trap stop_mps EXIT

device=$(nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv,noheader 2>/dev/null | head -n 1 || true)
bw_note="not measured"
if [ "$backend" = cuda ] && { [ -z "$h2d" ] || [ -z "$d2d" ]; }; then
  bw=$(python3 "$here/stream_fps.py" bandwidth || true)
  if [[ $bw == bandwidth* ]]; then
    read -r _ _ pinned _ pageable _ dd _ _ <<<"$bw"
    bw_note="measured: H2D pinned $pinned GB/s, pageable $pageable GB/s; D2D $dd GB/s (read + write)"
    [ -n "$h2d" ] || h2d=$pinned
    [ -n "$d2d" ] || d2d=$dd
  else
    bw_note="measurement failed: ${bw#error }"
  fi
fi
if [ "$backend" != cuda ]; then
  bw_note="backend=$backend: no transfer, no bound"
  # -H/-D given anyway: applied as given (a check of the WARNING path without a GPU).
  [ -z "$h2d$d2d" ] || bw_note="backend=$backend: no transfer; bound only as given by -H/-D"
fi
{
  echo "# device: ${device:-unknown}"
  echo "# bandwidth: $bw_note; bound uses H2D ${h2d:-none} GB/s, device ${d2d:-none} GB/s"
  echo "# mps: $mps_note"
  echo "# warmup ${warmup} s, window ${window} s, extra cudaccl properties: ${extra:-none}"
  echo "config,backend,foreground,memory,size,mode,streams,fps_min,fps_median,fps_max,fps_aggregate,gpx_per_s,counted_s_min,host_cpu_cores,bytes_per_frame,bound_gbps,bound_fps,pct_of_bound,flag"
} >"$csv"
sed -n 's/^# /multistream: /p' "$csv"

# chain MEMORY W H FOREGROUND: one stream, up to cudaccl (stream_fps.py adds the sink).
chain() {
  local src="videotestsrc num-buffers=1 pattern=ball ! video/x-raw,format=NV12,width=$2,height=$3,framerate=30/1"
  local ccl="cudaccl backend=$backend foreground=$4 $extra"
  case $1 in
    system) echo "$src ! imagefreeze ! $ccl" ;;
    cuda) echo "$src ! imagefreeze ! cudaupload ! video/x-raw(memory:CUDAMemory) ! $ccl" ;;
    device) echo "$src ! cudaupload ! video/x-raw(memory:CUDAMemory) ! imagefreeze ! $ccl" ;;
    *) fail "unknown memory $1 (system, cuda, device)" ;;
  esac
}

# bound MEMORY W H FOREGROUND -> "BYTES GBPS" (GBPS empty: no bound)
bound() {
  local px=$(($2 * $3))
  case $1 in
    system) if [ "$4" = threshold ]; then echo "$px ${h2d}"; else echo "$((px * 3 / 2)) ${h2d}"; fi ;;
    cuda) echo "$((px * 3 / 2)) ${h2d}" ;;
    device) echo "$px ${d2d}" ;;
  esac
}

printf '%-34s %-9s %3s %10s %10s %10s %11s %7s %5s %10s %6s\n' config mode N "fps min" median max aggregate "Gpx/s" cores bound "%"
warnings=0
for size in $sizes; do
  w=${size%x*}; h=${size#*x}
  for fg in $foregrounds; do
    for memory in $memories; do
      config="$fg-$memory-$size"
      desc=$(chain "$memory" "$w" "$h" "$fg")
      read -r bytes gbps <<<"$(bound "$memory" "$w" "$h" "$fg") "
      for mode in $modes; do
        if [ "$mode" = mps ]; then start_mps; fi
        for n in $counts; do
          env=()
          run_mode=$mode
          if [ "$mode" = mps ]; then
            env=(CUDA_MPS_PIPE_DIRECTORY="$mps_dir/pipe" CUDA_MPS_LOG_DIRECTORY="$mps_dir/log")
            run_mode=processes
          fi
          out=$(env ${env[@]+"${env[@]}"} python3 "$here/stream_fps.py" run --mode "$run_mode" --streams "$n" \
                  --warmup "$warmup" --window "$window" -- "$desc" || true)
          result=$(grep '^result fps ' <<<"$out" || true)
          counted=$(awk '/^stream / { print $8 }' <<<"$out" | sort -g | head -n 1)
          cores=$(awk '/^cpu cores / { print $3 }' <<<"$out")
          if [ -z "$result" ]; then
            why=$(grep -m1 '^error' <<<"$out" | sed 's/^error //; s/,/;/g' || true)
            printf '%-34s %-9s %3d failed: %s\n' "$config" "$mode" "$n" "${why:-no output}"
            echo "$config,$backend,$fg,$memory,$size,$mode,$n,,,,,,,,$bytes,$gbps,,,\"failed: ${why//\"/\'}\"" >>"$csv"
            continue
          fi
          # min, median, max, sum of the per-stream rates; Gpx/s; the bound and its share.
          read -r fmin fmed fmax agg gpx bfps pct <<<"$(tr ' ' '\n' <<<"${result#result fps }" | sort -g |
            awk -v px=$((w * h)) -v bytes="$bytes" -v gbps="$gbps" '
              { v[NR] = $1; s += $1 }
              END {
                med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                b = "-"; p = "-"
                if (gbps != "") { b = sprintf("%.0f", gbps * 1e9 / bytes); p = sprintf("%.1f", 100 * s / b) }
                printf "%.1f %.1f %.1f %.1f %.3f %s %s\n", v[1], med, v[NR], s, s * px / 1e9, b, p
              }')"
          flag=""
          if [ "$bfps" != "-" ] && awk "BEGIN { exit !($agg > $bfps) }"; then
            flag=ABOVE_BOUND
            warnings=$((warnings + 1))
            echo "WARNING: $config $mode N=$n: aggregate $agg fps is above the bound $bfps fps ($bytes bytes per frame at $gbps GB/s): the measurement or the bound is wrong" >&2
          fi
          [ "$fmin" = 0.0 ] && flag="${flag:+$flag }STALLED_STREAM"
          printf '%-34s %-9s %3d %10s %10s %10s %11s %7s %5s %10s %6s %s\n' "$config" "$mode" "$n" \
            "$fmin" "$fmed" "$fmax" "$agg" "$gpx" "$cores" "$bfps" "$pct" "$flag"
          [ "$bfps" = "-" ] && bfps="" && pct=""
          echo "$config,$backend,$fg,$memory,$size,$mode,$n,$fmin,$fmed,$fmax,$agg,$gpx,$counted,$cores,$bytes,$gbps,$bfps,$pct,$flag" >>"$csv"
        done
        if [ "$mode" = mps ]; then stop_mps; fi
      done
    done
  done
done
if [[ " $modes " == *" mps "* ]]; then
  echo "multistream: the MPS daemons saw $mps_clients client connections"
  echo "# mps: the daemons saw $mps_clients client connections" >>"$csv"
fi
[ "$warnings" -eq 0 ] || echo "WARNING: $warnings aggregates above their bound (flag ABOVE_BOUND in $csv)" >&2
echo "CSV: $csv ($warnings above their bound)"
