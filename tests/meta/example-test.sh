#!/usr/bin/env bash
# pipelines/examples/ccl-meta-print run on videotestsrc frames with the CPU backend:
# its frame and component lines, the track column while the element tracks (its
# default) and none with --no-tracking, the counts of --lines and --zones. Prints
# TAP, one case per check.
#
#   example-test.sh CCL_META_PRINT
set -uo pipefail

exe=$1
# shellcheck source=../common/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../common/tap.sh"

echo "1..8"

out=$("$exe" --backend cpu --frames 5 --components 2>&1)
status=$?
frames=$(grep -c '^frame ' <<<"$out")
if [ $status -eq 0 ] && grep -q '^5 frames$' <<<"$out" && [ "$frames" -eq 5 ] &&
   grep -q '^    #[0-9]* box ' <<<"$out"; then
  ok "5 frames, one line each, and their components"
else
  not_ok "5 frames, one line each, and their components" "exit $status
$out"
fi

# Per frame: the track ids of its component lines, checked in awk (ids are 64-bit:
# compared as strings of digits, never as numbers).
problems=$(awk '
  /^frame / { tracking = ($0 ~ /, tracking$/); delete seen; nframes += tracking; next }
  /^    #/ {
    has = match($0, / track [0-9]+( |$)/)
    if (!tracking) { if (has || $0 ~ / velocity /) print "a track without tracking: " $0; next }
    if (!has) { print "no track id: " $0; next }
    id = substr($0, RSTART + 7, RLENGTH - 7); sub(/ $/, "", id)
    if (id ~ /^0+$/) print "track id 0: " $0
    if (id in seen) print "track " id " twice in a frame"
    seen[id] = 1
    if ($0 ~ / parent 0+ /) print "parent 0 printed: " $0
    if ($0 !~ / velocity \(-?[0-9.]+, -?[0-9.]+\)$/) print "no velocity: " $0
  }
  END { if (!nframes) print "NO-TRACKING" }' <<<"$out")
if [ "$problems" = "NO-TRACKING" ]; then
  skip "every component line names its track, ids unique and nonzero" \
    "the element did not track (tracking off or unsupported)"
elif [ -z "$problems" ]; then
  ok "every component line names its track, ids unique and nonzero"
else
  not_ok "every component line names its track, ids unique and nonzero" "$problems"
fi

# The ball of videotestsrc is one object moving steadily: one track throughout.
ids=$(grep '^    #' <<<"$out" | sed -n 's/.* track \([0-9]*\).*/\1/p' | sort -u)
if [ "$problems" = "NO-TRACKING" ]; then
  skip "the ball keeps its track id over the 5 frames" "the element did not track"
elif [ "$ids" = "1" ]; then
  ok "the ball keeps its track id over the 5 frames"
else
  not_ok "the ball keeps its track id over the 5 frames" "ids: $(echo $ids)"
fi

out=$("$exe" --backend cpu --frames 3 --components --no-tracking 2>&1)
status=$?
if [ $status -eq 0 ] && grep -q '^3 frames$' <<<"$out" && grep -q '^    #' <<<"$out"; then
  ok "--no-tracking runs"
else
  not_ok "--no-tracking runs" "exit $status
$out"
fi
if ! grep -q ', tracking$' <<<"$out" && ! grep -q ' track [0-9]' <<<"$out"; then
  ok "--no-tracking prints no track"
else
  not_ok "--no-tracking prints no track" "$out"
fi
# --analytics: the GstAnalytics entries (GStreamer 1.24 and newer) hold the same
# boxes and track ids as the GstCclMeta lines, in the same order.
out=$("$exe" --backend cpu --frames 5 --components --analytics 2>&1)
status=$?
if [ $status -eq 2 ] && grep -q 'needs a build with' <<<"$out"; then
  skip "--analytics prints one entry per component" "built without GstAnalytics (GStreamer < 1.24)"
  skip "the analytics entries equal the GstCclMeta components" "built without GstAnalytics"
else
  ccl_lines=$(sed -n 's/^    #[0-9]* box \([0-9,]* [0-9x]*\) .* track \([0-9]*\).*/\1 \2/p' <<<"$out")
  od_lines=$(sed -n 's/^    od cudaccl-component box \([0-9,]* [0-9x]*\) confidence 1.00 track \([0-9]*\).*/\1 \2/p' <<<"$out")
  if [ $status -eq 0 ] && [ "$(grep -c '^    od ' <<<"$out")" -eq "$(grep -c '^    #' <<<"$out")" ] &&
     [ -n "$od_lines" ]; then
    ok "--analytics prints one entry per component"
  else
    not_ok "--analytics prints one entry per component" "exit $status
$out"
  fi
  if [ -n "$ccl_lines" ] && [ "$ccl_lines" = "$od_lines" ]; then
    ok "the analytics entries equal the GstCclMeta components"
  else
    not_ok "the analytics entries equal the GstCclMeta components" "meta:
$ccl_lines
analytics:
$od_lines"
  fi
fi
# --lines and --zones: the ball crosses a vertical line and enters a zone; every frame
# prints the counts, and the last frame's counts equal the events printed.
out=$("$exe" --backend cpu --frames 240 --threshold 128 --lines "<<160,0,160,239>>" \
  --zones "<<0,0,150,0,150,239,0,239>>" 2>&1)
status=$?
printed=$(grep -c '^    line 0: ' <<<"$out")
last=$(grep '^    line 0: ' <<<"$out" | tail -n 1)
forward=$(grep -c '^    event line-forward 0 ' <<<"$out")
backward=$(grep -c '^    event line-backward 0 ' <<<"$out")
entries=$(grep -c '^    event zone-enter 0 ' <<<"$out")
last_zone=$(grep '^    zone 0: ' <<<"$out" | tail -n 1)
if [ $status -eq 0 ] && [ "$printed" -eq 240 ] && [ $((forward + backward)) -gt 0 ] &&
   [ "$last" = "    line 0: $forward forward, $backward backward" ] && [ "$entries" -gt 0 ] &&
   grep -q "^    zone 0: [0-9]* inside, $entries entries, " <<<"$last_zone"; then
  ok "--lines and --zones print each frame's counts, and the events add up to them"
else
  not_ok "--lines and --zones print each frame's counts, and the events add up to them" \
    "exit $status, $printed count lines, events $forward forward $backward backward $entries entries, last: $last / $last_zone"
fi
exit $((failed > 0))
