#!/usr/bin/env bash
# What tracking costs inside the element: cudaccl's own per-frame time (its
# transform, from entry to the last metadata attached, as it logs at GST_DEBUG level 6)
# and its GPU time, with tracking on and off, for test patterns in CUDA memory.
#
#   source .gpu-runtime/env.sh && bench/tracking_element.sh [-n FRAMES] [-o CSV]
#       [-s "1920x1080 3840x2160"] [-p "ball snow"] [-c "65536 1000"]
#
# -c lists max-components values: snow has 150,000-600,000 components a frame, so
# max-components sets how many are reported (and tracked). The first fifth of the
# frames are left out (start-up, first tracks); medians over the rest.
set -euo pipefail

frames=60
csv=tracking_element.csv
sizes="1920x1080 3840x2160"
patterns="ball snow"
caps_list="65536 1000"
while getopts "n:o:s:p:c:h" opt; do
  case $opt in
    n) frames=$OPTARG ;;
    o) csv=$OPTARG ;;
    s) sizes=$OPTARG ;;
    p) patterns=$OPTARG ;;
    c) caps_list=$OPTARG ;;
    *) sed -n '2,12p' "$0"; exit 2 ;;
  esac
done
command -v gst-launch-1.0 >/dev/null || { echo "tracking_element: gst-launch-1.0 not found (source .gpu-runtime/env.sh)" >&2; exit 1; }

log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "size,pattern,max_components,tracking,reported,element_us,gpu_us" >"$csv"
printf '%-10s %-6s %8s %-8s %9s %12s %9s\n' size pattern max-comp tracking reported "element us" "GPU us"
for size in $sizes; do
  w=${size%x*}; h=${size#*x}
  for pattern in $patterns; do
    for cap in $caps_list; do
      [ "$pattern" = ball ] && [ "$cap" != "${caps_list%% *}" ] && continue
      for tracking in true false; do
        GST_DEBUG=cudaccl:6 GST_DEBUG_NO_COLOR=1 gst-launch-1.0 -q videotestsrc pattern="$pattern" \
          num-buffers="$frames" ! "video/x-raw,format=NV12,width=$w,height=$h" ! cudaupload \
          ! cudaccl backend=cuda tracking="$tracking" max-components="$cap" roi-meta=false \
          ! fakesink 2>"$log" >/dev/null
        # "...: N components, R reported, ..., GPU G ns, wall W ns"
        read -r reported element gpu < <(sed -n 's/.* components, \([0-9]*\) reported, .*GPU \([0-9]*\) ns, wall \([0-9]*\) ns.*/\1 \3 \2/p' "$log" |
          awk -v skip=$((frames / 5)) 'NR > skip { r[++n] = $1; e[n] = $2; g[n] = $3 }
            function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
              return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
            END { if (!n) { print "0 0 0"; exit } printf "%d %.1f %.1f\n", r[n], median(e, n) / 1000, median(g, n) / 1000 }')
        printf '%-10s %-6s %8s %-8s %9s %12s %9s\n' "$size" "$pattern" "$cap" "$tracking" "$reported" "$element" "$gpu"
        echo "$size,$pattern,$cap,$tracking,$reported,$element,$gpu" >>"$csv"
      done
    done
  done
done
