#!/usr/bin/env bash
# Fills the color part of the test-image cache: the color photographs of python3-skimage,
# kept as the package ships them (PNG / JPEG) because the quality suite decodes them
# itself (it links OpenCV anyway, for its MOG2 peer). The gray cache of
# tests/common/fetch-testdata.sh stores gray PGM only, which cannot give a color scene.
# Same approach as that script (the functions of tests/common/fetch-lib.sh): apt-get
# download + dpkg-deb -x, no installation.
#
#   fetch-color.sh CACHE_DIR
#
# Result: CACHE_DIR/color/ with the photographs and a MANIFEST, one line per image:
#   <name> <file relative to color/>
# A filled cache is used as it is, offline. Parallel callers serialize on a lock file of
# their own (the gray fetch may run beside this one); a failed fetch is remembered for
# a while so that repeated runs do not hammer the mirror.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../common/fetch-lib.sh"

cache=${1:?usage: fetch-color.sh CACHE_DIR}
fetch_start "$cache" color color-FAILED .lock-color "color fetch"

pkg=python3-skimage
dir=usr/lib/python3/dist-packages/skimage/data
# Scenes for backgrounds and photographs to cut object textures from.
files=(coffee.png chelsea.png rocket.jpg motorcycle_left.png astronaut.png ihc.png retina.jpg)

fetch_need apt-get dpkg-deb
fetch_workdir fetch-color
fetch_package "$pkg"

for f in "${files[@]}"; do
  [ -f "$work/root/$dir/$f" ] || fetch_fail "$pkg has no $f"
  cp "$work/root/$dir/$f" "$staging/$f"
  echo "${f%.*} $f" >> "$staging/MANIFEST"
done

fetch_publish
echo "color test images ready in $images"
