#!/usr/bin/env bash
# The metadata library as an application sees it once installed: meson install into a
# scratch DESTDIR, then the C example compiled with `pkg-config --cflags --libs
# gstreamer-ccl-1.0` against the staged files and run through the installed plugin,
# and the installed typelib loaded from Python. Prints TAP, one case per check.
#
#   install-test.sh BUILD_DIR EXAMPLE_C [PYTHON]
#
# The staged .pc file still names the configured prefix (DESTDIR only moves the
# files), so pkg-config evaluates it with prefix set to DESTDIR/prefix; the
# packages it requires are looked up unchanged from the system.
set -uo pipefail

build=$1
example=$2
python=${3:-/usr/bin/python3}
# The library's ABI version (soversion in plugin/meta/meson.build): applications
# record this name, so it changes only with the ABI, on purpose.
soname=libgstccl-1.0.so.1
stage=$(mktemp -d "${TMPDIR:-/tmp}/ccl-install.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# shellcheck source=../common/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../common/tap.sh"

echo "1..9"

install_or_bail "$build" "$stage/root" 9

pc=$(find "$stage/root" -name gstreamer-ccl-1.0.pc | head -n 1)
if [ -z "$pc" ]; then
  not_ok "gstreamer-ccl-1.0.pc is installed"
  for i in $(seq 3 9); do skip "installed check $i" "no pkg-config file"; done
  exit 1
fi
ok "gstreamer-ccl-1.0.pc is installed (${pc#"$stage/root"})"

pcdir=$(dirname "$pc")
prefix=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=prefix gstreamer-ccl-1.0)
staged_prefix="$stage/root$prefix"
ccl_pc() { PKG_CONFIG_PATH=$pcdir pkg-config --define-variable=prefix="$staged_prefix" "$@"; }
libdir=$(ccl_pc --variable=libdir gstreamer-ccl-1.0)
includedir=$(ccl_pc --variable=includedir gstreamer-ccl-1.0)

missing=""
for f in "$includedir/gstreamer-1.0/gst/ccl/gstcclmeta.h" \
         "$includedir/gstreamer-1.0/gst/ccl/gstcclalgorithm.h" \
         "$includedir/gstreamer-1.0/gst/ccl/ccl-prelude.h" \
         "$libdir/libgstccl-1.0.so" "$libdir/$soname"; do
  [ -e "$f" ] || missing+=" ${f#"$stage/root"}"
done
recorded=$(readelf -d "$libdir/libgstccl-1.0.so" 2>&1 | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
if [ -z "$missing" ] && [ "$recorded" = "$soname" ] && ! grep -q "$(cd "$build" && pwd)" "$pc"; then
  ok "headers and library ($soname) under the pkg-config file's prefix, no build paths in it"
else
  not_ok "headers and library ($soname) under the pkg-config file's prefix, no build paths in it" \
    "missing:${missing:- none}; soname: ${recorded:-none}; $(cat "$pc")"
fi

# Our own flags from the staged file (the relocated prefix must not reach the
# packages it requires: pkgconf's traversal depth that stops at the named package
# differs between versions), those of the packages it requires from the system.
requires=$(ccl_pc --print-requires gstreamer-ccl-1.0 | awk '{ print $1 }' | xargs)
own=""
for depth in 1 2; do
  own=$(ccl_pc --maximum-traverse-depth=$depth --cflags --libs gstreamer-ccl-1.0 2>/dev/null)
  [[ "$own" == *-lgstccl-1.0* ]] && break
done
# pkg-config 0.29 (Debian 11) has no traversal limit: the relocated prefix then also
# reaches the required packages, whose paths under it do not exist and do no harm (the
# system's flags for them follow).
[[ "$own" == *-lgstccl-1.0* ]] || own=$(ccl_pc --cflags --libs gstreamer-ccl-1.0)
# shellcheck disable=SC2086
flags="$own $(pkg-config --cflags --libs $requires)"
exe="$stage/ccl-meta-print"
# shellcheck disable=SC2086
check "the C example compiles against the installed files ($requires)" \
  cc -Wall -Wextra -Wno-unused-parameter -Werror -o "$exe" "$example" $flags -lm

plugin=$(find "$stage/root" -name libgstcudaccl.so | head -n 1)
run_env=(env "LD_LIBRARY_PATH=$libdir" "GST_PLUGIN_PATH=${plugin%/*}"
         "GST_REGISTRY=$stage/registry.bin" "GI_TYPELIB_PATH=$libdir/girepository-1.0")
if [ -x "$exe" ] && [ -n "$plugin" ]; then
  out=$("${run_env[@]}" "$exe" --backend cpu --frames 5 2>&1)
  if [ $? -eq 0 ] && grep -q "^5 frames$" <<<"$out" && grep -q "^frame    4 .*components" <<<"$out"; then
    ok "the installed C example prints 5 frames through the installed plugin"
  else
    not_ok "the installed C example prints 5 frames through the installed plugin" "$out"
  fi
  linked=$("${run_env[@]}" ldd "$exe" | awk '/libgstccl-1.0/ { print $3 }')
  needed=$(readelf -d "$exe" 2>&1 | sed -n 's/.*Shared library: \[\(libgstccl-1.0[^]]*\)\].*/\1/p')
  if [ "$needed" = "$soname" ] &&
     [ "$(readlink -f "$linked")" = "$(readlink -f "$libdir/$soname")" ]; then
    ok "the example needs $soname and loads the installed one"
  else
    not_ok "the example needs $soname and loads the installed one" \
      "needed: ${needed:-none}; ldd: $linked"
  fi
else
  skip "the installed C example prints 5 frames through the installed plugin" \
    "no example binary or no installed plugin"
  skip "the example needs $soname and loads the installed one" "no example binary"
fi

gir=$(find "$stage/root" -name GstCcl-1.0.gir | head -n 1)
typelib=$(find "$stage/root" -name GstCcl-1.0.typelib | head -n 1)
if [ -z "$typelib" ]; then
  skip "GstCcl-1.0.gir and .typelib are installed" "built without introspection"
  skip "Python loads the installed typelib" "built without introspection"
  skip "Python reads a meta through the installed typelib" "built without introspection"
  exit $((failed > 0))
fi
if [ -n "$gir" ] && [ "${typelib%/*}" = "$libdir/girepository-1.0" ] &&
   grep -q '<package name="gstreamer-ccl-1.0"/>' "$gir"; then
  ok "GstCcl-1.0.gir and .typelib are installed (${typelib#"$stage/root"})"
else
  not_ok "GstCcl-1.0.gir and .typelib are installed" "gir: $gir; typelib: $typelib"
fi

if ! "$python" -c 'import gi' 2>/dev/null; then
  skip "Python loads the installed typelib" "no PyGObject for $python"
  skip "Python reads a meta through the installed typelib" "no PyGObject for $python"
  exit $((failed > 0))
fi
# shellcheck disable=SC2016
check "Python loads the installed typelib" "${run_env[@]}" "$python" -c '
import sys, gi
# PyGObject 3.52 and newer run on girepository 3.0 (GLib 2.80) and refuse the old 2.0.
try:
    gi.require_version("GIRepository", "3.0")
    from gi.repository import GIRepository
    repository = GIRepository.Repository.dup_default()
except ValueError:
    gi.require_version("GIRepository", "2.0")
    from gi.repository import GIRepository
    repository = GIRepository.Repository.get_default()
gi.require_version("GstCcl", "1.0")
from gi.repository import GstCcl
path = repository.get_typelib_path("GstCcl")
sys.exit(0 if path == sys.argv[1] else "typelib loaded from %s" % path)
' "$typelib"
check "Python reads a meta through the installed typelib" "${run_env[@]}" "$python" -c '
import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstCcl", "1.0")
from gi.repository import Gst, GstCcl
Gst.init(None)
c = GstCcl.Component()
c.label, c.area, c.sum_x, c.sum_y = 1, 4, 10, 6
c.track_id, c.parent_id = 2**40 + 3, 7
buf = Gst.Buffer.new()
GstCcl.Meta.add(buf, 8, 8, 1, [c]).tracking = True
m = GstCcl.buffer_get_meta(buf)
assert (m.width, m.total_count, m.n_components) == (8, 1, 1), (m.width, m.n_components)
assert m.get_component(0).get_centroid() == (2.5, 1.5)
assert m.tracking and m.find_track(2**40 + 3).parent_id == 7
e = GstCcl.Event()
e.kind, e.index, e.track_id = GstCcl.EventKind.ZONE_ENTER, 0, 3
assert m.set_event_counts([2**40], [1], [1], [1], [0], [e])
assert tuple(m.get_line_counts(0)) == (True, 2**40, 1) and not m.get_line_counts(1)[0]
assert m.get_event(0).kind.value_nick == "zone-enter" and m.get_event(1) is None
'
exit $((failed > 0))
