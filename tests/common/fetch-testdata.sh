#!/usr/bin/env bash
# Fills a cache of real test images from Debian packages without installing them:
# apt-get download + dpkg-deb -x, CCITT fax pages decoded with jbgtopbm, then every
# image decoded once by ccl-import-image into an 8-bit binary PGM (gray; dark ink
# inverted so that it is the bright, foreground side).
#
#   fetch-testdata.sh CACHE_DIR [IMPORT_TOOL]
#
# IMPORT_TOOL: the built ccl-import-image (default: env CCL_IMPORT_IMAGE).
# Result: CACHE_DIR/gray/ with the PGM files and a MANIFEST, one line per image:
#   <name> <file relative to gray/>
# A filled cache is used as it is, offline (copy it to a machine without network and
# point CCL_TESTDATA_DIR at it). Parallel callers serialize on a lock file; a failed
# fetch is remembered for a while so that every test binary does not retry it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/fetch-lib.sh"

cache=${1:?usage: fetch-testdata.sh CACHE_DIR [IMPORT_TOOL]}
import_tool=${2:-${CCL_IMPORT_IMAGE:-}}
fetch_start "$cache" gray FAILED .lock fetch

# package -> files to keep (paths inside the package)
jbig_pkg=jbigkit-testdata
jbig_dir=usr/share/jbigkit-testdata
skimage_pkg=python3-skimage
skimage_dir=usr/lib/python3/dist-packages/skimage/data
# Gray and color photographs, microscopy, text and shapes: a spread of component counts
# and sizes. Color images are read as gray.
skimage_files=(
  camera.png coins.png page.png text.png horse.png moon.png cell.png phantom.png
  microaneurysms.png retina.jpg hubble_deep_field.jpg rocket.jpg astronaut.png
  coffee.png chelsea.png brick.png gravel.png grass.png ihc.png clock_motion.png
  motorcycle_left.png logo.png checker_bilevel.png chessboard_GRAY.png block.png
  bw_text.png
)

fetch_need apt-get dpkg-deb jbgtopbm
[ -n "$import_tool" ] && [ -x "$import_tool" ] ||
  fetch_fail "no ccl-import-image to decode the images (build it: meson compile ccl-import-image)"

fetch_workdir fetch
fetch_package "$jbig_pkg"
fetch_package "$skimage_pkg"

# import_gray NAME SOURCE [--invert]
import_gray() {
  "$import_tool" "$2" "$staging/$1.pgm" ${3:-} || fetch_fail "ccl-import-image could not decode $2"
  echo "$1 $1.pgm" >> "$staging/MANIFEST"
}
for i in 1 2 3 4 5 6 7 8; do
  jbgtopbm "$work/root/$jbig_dir/ccitt$i.jbg" "$work/ccitt$i.pbm" ||
    fetch_fail "jbgtopbm could not decode ccitt$i.jbg"
  import_gray "ccitt$i" "$work/ccitt$i.pbm" --invert
done
for f in "${skimage_files[@]}"; do
  [ -f "$work/root/$skimage_dir/$f" ] || fetch_fail "$skimage_pkg has no $f"
  name=${f%.*}
  invert=""
  case "$name" in horse|page|text|bw_text) invert=--invert ;; esac
  import_gray "skimage_$name" "$work/root/$skimage_dir/$f" $invert
done

fetch_publish
echo "test images ready in $images"
