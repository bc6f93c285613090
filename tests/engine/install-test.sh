#!/usr/bin/env bash
# The engine library as another program sees it once installed: meson install into a
# scratch DESTDIR, then the C++ example compiled with `pkg-config --cflags --libs ccl`
# against the staged files, linked to the installed shared library, and run on a
# small PGM with three blobs. Prints TAP, one case per check.
#
#   install-test.sh BUILD_DIR EXAMPLE_CPP
#
# The staged .pc file still names the configured prefix (DESTDIR only moves the
# files), so pkg-config evaluates it with prefix set to DESTDIR/prefix.
set -uo pipefail

build=$1
example=$2
# The library's ABI version (soversion in kernels/meson.build).
soname=libccl.so.0
stage=$(mktemp -d "${TMPDIR:-/tmp}/ccl-engine-install.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# shellcheck source=../common/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../common/tap.sh"

echo "1..5"

install_or_bail "$build" "$stage/root" 5

pc=$(find "$stage/root" -name ccl.pc | head -n 1)
if [ -z "$pc" ]; then
  not_ok "ccl.pc is installed"
  for i in $(seq 3 5); do skip "installed check $i" "no pkg-config file"; done
  exit 1
fi
pcdir=$(dirname "$pc")
prefix=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=prefix ccl)
ccl_pc() { PKG_CONFIG_PATH=$pcdir pkg-config --define-variable=prefix="$stage/root$prefix" "$@"; }
libdir=$(ccl_pc --variable=libdir ccl)
includedir=$(ccl_pc --variable=includedir ccl)

missing=""
for h in types.h reference.h luma.h tracker.h cuda_engine.h cuda_engine_testing.h; do
  [ -e "$includedir/ccl/$h" ] || missing+=" ccl/$h"
done
for f in "$libdir/libccl.so" "$libdir/$soname"; do [ -e "$f" ] || missing+=" ${f##*/}"; done
recorded=$(readelf -d "$libdir/libccl.so" 2>&1 | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
if [ -z "$missing" ] && [ "$recorded" = "$soname" ] && ! grep -q "$(cd "$build" && pwd)" "$pc"; then
  ok "ccl.pc, the public headers under ccl/ and $soname, no build paths in the .pc file"
else
  not_ok "ccl.pc, the public headers under ccl/ and $soname, no build paths in the .pc file" \
    "missing:${missing:- none}; soname: ${recorded:-none}; $(cat "$pc")"
fi

exe="$stage/label_image"
# Only the shared library: the static one installed beside it must not be picked.
# shellcheck disable=SC2046
if out=$(c++ -std=c++17 -Wall -Wextra -Werror -o "$exe" "$example" $(ccl_pc --cflags --libs ccl) 2>&1); then
  ok "the C++ example compiles against the installed headers and library"
else
  not_ok "the C++ example compiles against the installed headers and library" "$out"
fi

# Three blobs on black, 40x30: a 5x4 box, a 3x3 box and one pixel.
pgm="$stage/blobs.pgm"
python3 - "$pgm" <<'PY'
import sys
w, h = 40, 30
px = bytearray(w * h)
for (x0, y0, bw, bh) in [(2, 3, 5, 4), (20, 10, 3, 3), (35, 25, 1, 1)]:
    for y in range(y0, y0 + bh):
        for x in range(x0, x0 + bw):
            px[y * w + x] = 255
with open(sys.argv[1], "wb") as f:
    f.write(b"P5\n%d %d\n255\n" % (w, h) + bytes(px))
PY
if [ -x "$exe" ]; then
  out=$(LD_LIBRARY_PATH=$libdir "$exe" "$pgm" 128 2 2>&1)
  if [ $? -eq 0 ] && grep -q "^3 components, 2 reported" <<<"$out" &&
     grep -q "^label 1: box 2,3 5x4, area 20, centroid 4.00,4.50$" <<<"$out" &&
     grep -q "^label 2: box 20,10 3x3, area 9" <<<"$out"; then
    ok "the example labels three blobs and reports the two largest, largest first"
  else
    not_ok "the example labels three blobs and reports the two largest, largest first" "$out"
  fi
  needed=$(readelf -d "$exe" 2>&1 | sed -n 's/.*Shared library: \[\(libccl[^]]*\)\].*/\1/p')
  linked=$(LD_LIBRARY_PATH=$libdir ldd "$exe" | awk '/libccl/ { print $3 }')
  if [ "$needed" = "$soname" ] && [ "$(readlink -f "$linked")" = "$(readlink -f "$libdir/$soname")" ]; then
    ok "the example needs $soname and loads the installed one"
  else
    not_ok "the example needs $soname and loads the installed one" "needed: ${needed:-none}; ldd: $linked"
  fi
else
  skip "the example labels three blobs and reports the two largest, largest first" "no example binary"
  skip "the example needs $soname and loads the installed one" "no example binary"
fi
exit $((failed > 0))
