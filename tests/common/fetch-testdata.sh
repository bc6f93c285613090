#!/usr/bin/env bash
# Fills a cache of real test images from Debian packages without installing them:
# apt-get download + dpkg-deb -x, then CCITT fax pages decoded with jbgtopbm.
#
#   fetch-testdata.sh CACHE_DIR
#
# Result: CACHE_DIR/images/ with the images and a MANIFEST, one line per image:
#   <name> <file relative to images/> <invert: 1 when ink is dark and should be foreground>
# A filled cache is used as it is, offline (copy it to a machine without network and
# point CCL_TESTDATA_DIR at it). Parallel callers serialize on a lock file; a failed
# fetch is remembered for a while so that every test binary does not retry it.
set -euo pipefail

cache=${1:?usage: fetch-testdata.sh CACHE_DIR}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
images="$cache/images"
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
for i in 1 2 3 4 5 6 7 8; do
  jbgtopbm "$work/root/$jbig_dir/ccitt$i.jbg" "$staging/ccitt$i.pbm" ||
    fail "jbgtopbm could not decode ccitt$i.jbg"
  echo "ccitt$i ccitt$i.pbm 1" >> "$staging/MANIFEST"
done
for f in "${skimage_files[@]}"; do
  [ -f "$work/root/$skimage_dir/$f" ] || fail "$skimage_pkg has no $f"
  cp "$work/root/$skimage_dir/$f" "$staging/$f"
  name=${f%.*}
  invert=0
  case "$name" in horse|page|text|bw_text) invert=1 ;; esac
  echo "skimage_$name $f $invert" >> "$staging/MANIFEST"
done

rm -rf "$images" "$failed"
mv "$staging" "$images"
echo "test images ready in $images"
