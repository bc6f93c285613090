#!/usr/bin/env bash
# Fills the color part of the test-image cache: the color photographs of python3-skimage,
# decoded once here (OpenCV's Python module, which scripts/setup installs) into binary
# PPM, so that the quality suite reads them with a few lines of its own and needs no
# image codec library (it then runs on a GPU host that has none). The gray cache of
# tests/common/fetch-testdata.sh stores gray PGM only, which cannot give a color scene.
# Same approach as that script (the functions of tests/common/fetch-lib.sh): apt-get
# download + dpkg-deb -x, no installation.
#
#   fetch-color.sh CACHE_DIR
#
# Result: CACHE_DIR/color/ with the photographs and a MANIFEST, one line per image:
#   <name> <file relative to color-ppm/>
# A filled cache is used as it is, offline. Parallel callers serialize on a lock file of
# their own (the gray fetch may run beside this one); a failed fetch is remembered for
# a while so that repeated runs do not hammer the mirror.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../common/fetch-lib.sh"

cache=${1:?usage: fetch-color.sh CACHE_DIR}
fetch_start "$cache" color-ppm color-FAILED .lock-color "color fetch"

pkg=python3-skimage
dir=usr/lib/python3/dist-packages/skimage/data
# Scenes for backgrounds and photographs to cut object textures from.
files=(coffee.png chelsea.png rocket.jpg motorcycle_left.png astronaut.png ihc.png retina.jpg)

fetch_need apt-get dpkg-deb python3
# The first Python with OpenCV's module (a virtual environment may come first in PATH).
py=
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c "import cv2" 2>/dev/null; then py=$candidate; break; fi
done
[ -n "$py" ] || fetch_fail "no python3 with the cv2 module (python3-opencv) to decode the photographs"
fetch_workdir fetch-color
fetch_package "$pkg"

for f in "${files[@]}"; do
  [ -f "$work/root/$dir/$f" ] || fetch_fail "$pkg has no $f"
  "$py" -c 'import sys, cv2
img = cv2.imread(sys.argv[1], cv2.IMREAD_COLOR)
sys.exit(0 if img is not None and cv2.imwrite(sys.argv[2], img) else 1)' \
    "$work/root/$dir/$f" "$staging/${f%.*}.ppm" || fetch_fail "cannot convert $f to PPM (python3-opencv)"
  echo "${f%.*} ${f%.*}.ppm" >> "$staging/MANIFEST"
done

fetch_publish
echo "color test images ready in $images"
