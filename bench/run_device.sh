#!/usr/bin/env bash
# Runs both benchmarks on the GPU host in one go and leaves their CSVs and logs in
# OUT_DIR. Run from the project root, after building here and packing the runtime:
#
#   bench/run_device.sh BUILD_DIR OUT_DIR [ccl_bench arguments...]
#
# BUILD_DIR holds bench/ccl_bench and the plugin (plugin/libgstcudaccl.so);
# .gpu-runtime (gpu-runtime.sh BUILD_DIR, with GPU_RUNTIME_PLUGINS="coretracers
# imagefreeze") supplies GStreamer and the shared libraries. CCL_TESTDATA_DIR must
# point at a filled test-image cache: the GPU host has no network to fetch it.
set -uo pipefail
build=${1:?usage: run_device.sh BUILD_DIR OUT_DIR [ccl_bench args]}
out=${2:?usage: run_device.sh BUILD_DIR OUT_DIR [ccl_bench args]}
shift 2
mkdir -p "$out"
# shellcheck disable=SC1091
source .gpu-runtime/env.sh
export GST_PLUGIN_PATH
GST_PLUGIN_PATH=$(find "$PWD/$build" -name 'libgstcudaccl.so' -printf '%h\n' | head -n 1)

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv | tee "$out/gpu.txt"

"$build/bench/ccl_bench" --csv "$out/bench.csv" "$@" 2>&1 | tee "$out/bench.log"
bench_rc=${PIPESTATUS[0]}

if [ -n "$GST_PLUGIN_PATH" ]; then
  bench/element_bench.sh -o "$out/element.csv" 2>&1 | tee "$out/element.log"
else
  echo "run_device: no libgstcudaccl.so under $build, element benchmark skipped" | tee "$out/element.log"
fi
exit "$bench_rc"
