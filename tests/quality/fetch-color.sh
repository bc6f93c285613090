#!/usr/bin/env bash
# Fills the color part of the test-image cache: the color photographs of python3-skimage,
# kept as the package ships them (PNG / JPEG) because the quality suite decodes them
# itself (it links OpenCV anyway, for its MOG2 peer). The gray cache of
# tests/common/fetch-testdata.sh stores gray PGM only, which cannot give a color scene.
# Same approach as that script: apt-get download + dpkg-deb -x, no installation.
#
#   fetch-color.sh CACHE_DIR
#
# Result: CACHE_DIR/color/ with the photographs and a MANIFEST, one line per image:
#   <name> <file relative to color/>
# A filled cache is used as it is, offline. Parallel callers serialize on a lock file of
# their own (the gray fetch may run beside this one); a failed fetch is remembered for
# a while so that repeated runs do not hammer the mirror.
set -euo pipefail

cache=${1:?usage: fetch-color.sh CACHE_DIR}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
images="$cache/color"
failed="$cache/color-FAILED"

exec 9>"$cache/.lock-color"
flock 9

[ -f "$images/MANIFEST" ] && exit 0

if [ -f "$failed" ] && [ -n "$(find "$failed" -mmin -10 2>/dev/null)" ]; then
  echo "an earlier color fetch failed (retried after 10 minutes): $(cat "$failed")" >&2
  exit 1
fi

fail() {
  echo "$*" > "$failed"
  echo "$*" >&2
  exit 1
}

pkg=python3-skimage
dir=usr/lib/python3/dist-packages/skimage/data
# Scenes for backgrounds and photographs to cut object textures from.
files=(coffee.png chelsea.png rocket.jpg motorcycle_left.png astronaut.png ihc.png retina.jpg)

for tool in apt-get dpkg-deb; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is not installed (scripts/setup installs it)"
done

work=$(mktemp -d "$cache/fetch-color.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The package lists may be missing on a fresh machine; refresh them once as root.
if ! apt-cache show "$pkg" >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
  apt-get update -qq >/dev/null 2>&1 || true
fi
(cd "$work" && apt-get download -q=2 -o Acquire::Retries=1 -o Acquire::http::Timeout=30 \
    -o APT::Sandbox::User=root "$pkg" >"$work/apt.log" 2>&1) ||
  fail "apt-get download $pkg failed: $(tail -n 2 "$work/apt.log" | tr '\n' ' ')"
dpkg-deb -x "$work"/"$pkg"_*.deb "$work/root" || fail "dpkg-deb -x $pkg failed"

staging="$work/images"
mkdir -p "$staging"
: > "$staging/MANIFEST"
for f in "${files[@]}"; do
  [ -f "$work/root/$dir/$f" ] || fail "$pkg has no $f"
  cp "$work/root/$dir/$f" "$staging/$f"
  echo "${f%.*} $f" >> "$staging/MANIFEST"
done

rm -rf "$images" "$failed"
mv "$staging" "$images"
echo "color test images ready in $images"
