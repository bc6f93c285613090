#!/usr/bin/env bash
# Fills the color part of the test-image library's cache: the color photographs and
# drawings of python3-skimage, decoded once by ccl-import-image --rgb into 8-bit binary
# PPM, so that what reads them (tests/common/color_images.h: the color-range tests, on
# the CPU and on a GPU machine) needs no image codecs. Same approach as
# fetch-testdata.sh (the functions of fetch-lib.sh): apt-get download + dpkg-deb -x,
# no installation; a cache of its own (rgb/), so that a gray cache filled before this
# script existed stays valid.
#
#   fetch-rgb.sh CACHE_DIR [IMPORT_TOOL]
#
# Result: CACHE_DIR/rgb/ with the PPM files and a MANIFEST, one line per image:
#   <name> <file relative to rgb/>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/fetch-lib.sh"

cache=${1:?usage: fetch-rgb.sh CACHE_DIR [IMPORT_TOOL]}
import_tool=${2:-${CCL_IMPORT_IMAGE:-}}
fetch_start "$cache" rgb rgb-FAILED .lock-rgb "rgb fetch"

pkg=python3-skimage
dir=usr/lib/python3/dist-packages/skimage/data
# Photographs (skin, fur, a red cup, a flag, stained tissue, a retina, a night sky)
# and drawings of saturated colors: hues all round the circle, some odd sizes.
files=(
  astronaut.png chelsea.png coffee.png rocket.jpg motorcycle_left.png ihc.png retina.jpg
  hubble_deep_field.jpg color.png logo.png
)

fetch_need apt-get dpkg-deb
[ -n "$import_tool" ] && [ -x "$import_tool" ] ||
  fetch_fail "no ccl-import-image to decode the images (build it: meson compile ccl-import-image)"
fetch_workdir fetch-rgb
fetch_package "$pkg"

for f in "${files[@]}"; do
  [ -f "$work/root/$dir/$f" ] || fetch_fail "$pkg has no $f"
  name=skimage_${f%.*}
  "$import_tool" "$work/root/$dir/$f" "$staging/$name.ppm" --rgb ||
    fetch_fail "ccl-import-image could not decode $f"
  echo "$name $name.ppm" >> "$staging/MANIFEST"
done

fetch_publish
echo "color test images ready in $images"
