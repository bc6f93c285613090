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

cache=${1:?usage: fetch-testdata.sh CACHE_DIR [IMPORT_TOOL]}
import_tool=${2:-${CCL_IMPORT_IMAGE:-}}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
images="$cache/gray"
failed="$cache/FAILED"

exec 9>"$cache/.lock"
flock 9

[ -f "$images/MANIFEST" ] && exit 0

if [ -f "$failed" ] && [ -n "$(find "$failed" -mmin -10 2>/dev/null)" ]; then
  echo "an earlier fetch failed (retried after 10 minutes): $(cat "$failed")" >&2
  exit 1
fi

fail() {
  echo "$*" > "$failed"
  echo "$*" >&2
  exit 1
}

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

for tool in apt-get dpkg-deb jbgtopbm; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is not installed (scripts/setup installs it)"
done
[ -n "$import_tool" ] && [ -x "$import_tool" ] ||
  fail "no ccl-import-image to decode the images (build it: meson compile ccl-import-image)"

work=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT

download() {
  local pkg=$1
  # The package lists may be missing on a fresh machine; refresh them once as root.
  if ! apt-cache show "$pkg" >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq >/dev/null 2>&1 || true
  fi
  (cd "$work" && apt-get download -q=2 -o Acquire::Retries=1 -o Acquire::http::Timeout=30 \
      -o APT::Sandbox::User=root "$pkg" >"$work/apt-$pkg.log" 2>&1) ||
    fail "apt-get download $pkg failed: $(tail -n 2 "$work/apt-$pkg.log" | tr '\n' ' ')"
  dpkg-deb -x "$work"/"$pkg"_*.deb "$work/root" || fail "dpkg-deb -x $pkg failed"
}

download "$jbig_pkg"
download "$skimage_pkg"

staging="$work/images"
mkdir -p "$staging"
: > "$staging/MANIFEST"
# import_gray NAME SOURCE [--invert]
import_gray() {
  "$import_tool" "$2" "$staging/$1.pgm" ${3:-} || fail "ccl-import-image could not decode $2"
  echo "$1 $1.pgm" >> "$staging/MANIFEST"
}
for i in 1 2 3 4 5 6 7 8; do
  jbgtopbm "$work/root/$jbig_dir/ccitt$i.jbg" "$work/ccitt$i.pbm" ||
    fail "jbgtopbm could not decode ccitt$i.jbg"
  import_gray "ccitt$i" "$work/ccitt$i.pbm" --invert
done
for f in "${skimage_files[@]}"; do
  [ -f "$work/root/$skimage_dir/$f" ] || fail "$skimage_pkg has no $f"
  name=${f%.*}
  invert=""
  case "$name" in horse|page|text|bw_text) invert=--invert ;; esac
  import_gray "skimage_$name" "$work/root/$skimage_dir/$f" $invert
done

rm -rf "$images" "$failed"
mv "$staging" "$images"
echo "test images ready in $images"
