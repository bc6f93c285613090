#!/usr/bin/env bash
# The zero-copy pipelines (zero-copy.sh) against the system-memory path: the same
# frames labeled in CUDA memory (backend=cuda), in system memory (backend=cuda,
# zero-copy.sh MEMORY=system), and in system memory on the CPU (backend=cpu) must give
# the same metadata log, line for line, and the same overlay frames, byte for byte.
#
#   pipelines/compare-memory.sh [testsrc] [h264]      (default: both)
#
# Needs an NVIDIA GPU with nvcodec (see zero-copy.sh). Environment: as zero-copy.sh.
# Outputs: $CCL_OUT_DIR/compare-memory/<source>-{cuda-memory,system-memory,cpu}/.
set -euo pipefail
here=$(dirname "$0")
source "$here/lib.sh"

sources=("$@")
[ ${#sources[@]} -gt 0 ] || sources=(testsrc h264)
root="$ccl_out_root/compare-memory"
status=0
ccl_use_plugin
if ! ccl_have cudaupload; then
  echo "$(basename "$0"): no cudaupload: needs GStreamer's nvcodec plugin and an NVIDIA GPU" >&2
  exit "${CCL_GPU_MISSING_EXIT:-1}"
fi
for what in "${sources[@]}"; do
  for run in cuda-memory:cuda:cuda system-memory:system:cuda cpu:system:cpu; do
    IFS=: read -r name memory backend <<<"$run"
    echo "== $what, $name"
    MEMORY=$memory CCL_BACKEND=$backend CCL_OUT_DIR="$root" CCL_OUT_NAME="$what-$name" \
      "$here/zero-copy.sh" "$what" | grep -E '^(zero-copy|frames labeled|element|CUDA contexts|configured|backend)' || status=1
  done
  ccl_compare_runs "$root/$what-cuda-memory" "$root/$what-system-memory" \
    "$what: CUDA memory vs system memory (cuda backend)" || status=1
  ccl_compare_runs "$root/$what-cuda-memory" "$root/$what-cpu" \
    "$what: CUDA memory vs system memory on the CPU" || status=1
done
echo "outputs in $root/"
exit $status
