#!/usr/bin/env bash
# A Jetson CSI camera (nvarguscamerasrc, Jetson Linux / JetPack) through cudaccl on
# the Jetson's integrated GPU. Documented here; it runs only on a Jetson, with the
# plugin built there from the same source (meson setup build -Dgpu_archs=8.7 for
# Orin; CUDA 12 from JetPack).
#
#   pipelines/jetson-camera.sh
#
# The camera delivers NV12 in NVMM (device) memory; nvvidconv copies it to system
# memory for cudaccl (whose CUDA backend uploads only the Y plane), and back for the
# display sink. The CUDA-memory path (docs/CONTRACT.md) avoids those copies where
# memory:CUDAMemory caps are available.
#
# Environment: SENSOR_ID (0), WIDTH x HEIGHT @ FPS (1920 x 1080 @ 30), THRESHOLD_MODE
# (otsu), MIN_AREA (100), CCL_BUILD_DIR.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

pipeline=(nvarguscamerasrc sensor-id="${SENSOR_ID:-0}"
  ! "video/x-raw(memory:NVMM),width=${WIDTH:-1920},height=${HEIGHT:-1080},framerate=${FPS:-30}/1,format=NV12"
  ! nvvidconv ! video/x-raw,format=NV12
  ! cudaccl backend=cuda threshold-mode="${THRESHOLD_MODE:-otsu}" min-area="${MIN_AREA:-100}"
      overlay=boxes+centroids
  ! nvvidconv ! "video/x-raw(memory:NVMM),format=NV12"
  ! nv3dsink sync=false)

if ! gst-inspect-1.0 nvarguscamerasrc >/dev/null 2>&1; then
  echo "jetson-camera: nvarguscamerasrc is not here (it ships with Jetson Linux)."
  echo "On a Jetson this script runs:"
  printf '  gst-launch-1.0'
  for arg in "${pipeline[@]}"; do
    case "$arg" in *[\(\)]*) printf " '%s'" "$arg" ;; *) printf ' %s' "$arg" ;; esac
  done
  echo
  exit 2
fi
ccl_use_plugin
gst-launch-1.0 "${pipeline[@]}"
