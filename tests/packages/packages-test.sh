#!/usr/bin/env bash
# The Debian packages (debian/, docs/PACKAGES.md) as a user gets them: built CPU-only
# with dpkg-buildpackage from a copy of the source tree, checked with lintian, then
# installed with apt into a throwaway copy of a bare Debian 12 root (debootstrap's
# minbase and nothing else: every dependency comes from the packages' own Depends),
# where the element, a pipeline, both examples against the installed .pc files, the
# typelib and the Python package are tried. Output is TAP, one line per check.
#
#   packages-test.sh SOURCE_DIR
#
# Caches (beside the platform suite's roots, CCL_ROOTS_DIR, default
# /var/cache/cudaccl/roots): the root itself (scripts/debian-root, bookworm-bare), the
# runtime packages apt downloads into it (bookworm-bare.apt/), and the built .debs,
# keyed by a hash of the source tree (packages/<hash>/; the newest two are kept).
# CCL_PACKAGES_REBUILD=1 builds the packages even when the cache has them;
# CCL_PACKAGES_DIR=DIR tests the .deb files (and the .changes) in DIR instead of
# building any: the CUDA packages, for example, built elsewhere.
set -uo pipefail

src=$(cd "${1:?usage: packages-test.sh SOURCE_DIR}" && pwd)
suite=bookworm-bare
roots_dir=${CCL_ROOTS_DIR:-/var/cache/cudaccl/roots}
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; [ -z "${2:-}" ] || sed 's/^/# /' <<<"$2"; }
finish() { echo "1..$n"; exit $failed; }

if [ "$(id -u)" -ne 0 ]; then
  echo "1..0 # SKIP installing packages into a Debian root needs root (chroot, mounts)"
  exit 0
fi
if ! command -v debootstrap >/dev/null && [ ! -x /usr/sbin/debootstrap ]; then
  echo "1..0 # SKIP debootstrap is missing (scripts/setup installs it)"
  exit 0
fi
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
missing=""
for t in dpkg-buildpackage dh lintian; do command -v $t >/dev/null || missing+=" $t"; done
if [ -n "$missing" ]; then
  not_ok "build tools present" "missing:$missing (scripts/setup installs debhelper, dh-python and lintian)"
  finish
fi

t_all=$SECONDS
# The bare root is made (or found) while the packages build: one waits on the
# network and the disk, the other on the compiler.
mkdir -p "$roots_dir"
root_log=$(mktemp "${TMPDIR:-/tmp}/ccl-packages-root.XXXXXX")
work=""
trap 'rm -rf "$root_log" "$root_log.lintian" ${work:+"$work"}' EXIT
"$src/scripts/debian-root" ensure "$suite" >"$root_log" 2>&1 &
root_pid=$!

# The source: what git tracks or would track (the working tree as it is, edits
# included, no build folders); without git, the tree minus build and output folders.
list_sources() {
  if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$src" && git ls-files -co --exclude-standard -z) |
      while IFS= read -r -d '' f; do
        case $f in obj-*/*) continue ;; esac  # a dpkg-buildpackage run in the tree itself
        [ -e "$src/$f" ] && printf '%s\0' "$f"
      done
  else
    (cd "$src" && find . \( -path './build*' -o -path './obj-*' -o -path './out' -o -path './.git' \
       -o -path './.devcarry' -o -path './.gpu-runtime' -o -name __pycache__ \) -prune -o \
       \( -type f -o -type l \) -print0)
  fi
}
profile=pkg.cudaccl.nocuda
key=$( (printf '%s\n' "$profile" v1; list_sources | sort -z | (cd "$src" && xargs -0 sha256sum)) |
  sha256sum | cut -c1-16)
debs="$roots_dir/packages/$key"
t0=$SECONDS
if [ -n "${CCL_PACKAGES_DIR:-}" ]; then
  debs=$(cd "$CCL_PACKAGES_DIR" && pwd)
  ok "packages given in $debs: $(cd "$debs" && ls *.deb | sed 's/_.*//' | xargs)"
elif [ -f "$debs/.complete" ] && [ "${CCL_PACKAGES_REBUILD:-0}" != 1 ]; then
  ok "packages of this source tree found in the cache ($debs)"
else
  work=$(mktemp -d /var/tmp/ccl-packages.XXXXXX)
  mkdir "$work/cudaccl"
  list_sources | (cd "$src" && tar -c --null -T - -f -) | tar -x -C "$work/cudaccl"
  # noddebs: the -dbgsym packages are not checked here.
  if (cd "$work/cudaccl" && DEB_BUILD_OPTIONS="noddebs parallel=$(nproc)" \
        dpkg-buildpackage -b -us -uc -P"$profile") >"$work/build.log" 2>&1; then
    rm -rf "$debs"
    mkdir -p "$debs"
    cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$debs/"
    touch "$debs/.complete"
    # The newest two package sets stay.
    ls -1dt "$roots_dir"/packages/*/ | tail -n +3 | xargs -r rm -rf
    ok "dpkg-buildpackage -b -P$profile: $(cd "$debs" && ls *.deb | sed 's/_.*//' | xargs) in $((SECONDS - t0)) s"
  else
    not_ok "dpkg-buildpackage -b -P$profile" "$(tail -n 40 "$work/build.log")"
    wait $root_pid
    finish
  fi
fi

# lintian over the packages, while the root is used: no errors, and no warning that
# docs/PACKAGES.md does not list (the accepted ones, each with its reason there).
accepted_warnings=(
  initial-upload-closes-no-bugs
  package-name-doesnt-match-sonames
  typelib-package-name-does-not-match
  typelib-section-not-introspection
  gir-missing-typelib-dependency
)
# Its report is kept with the packages it read.
lintian_out="$debs/lintian.txt"
[ -z "${CCL_PACKAGES_DIR:-}" ] || lintian_out="$root_log.lintian"
if [ -f "$lintian_out" ]; then
  true &
else
  (cd "$debs" && lintian --tag-display-limit 0 *.changes >"$lintian_out.new" 2>&1;
    mv "$lintian_out.new" "$lintian_out") &
fi
lintian_pid=$!

t0=$SECONDS
if wait $root_pid && root=$(tail -n 1 "$root_log") && [ -d "$root" ]; then
  ok "bare Debian 12 root ready ($root; waited $((SECONDS - t0)) s after the build)"
else
  not_ok "making the bare Debian 12 root" "$(cat "$root_log")"
  wait $lintian_pid
  finish
fi

apt_cache="$roots_dir/$suite.apt"
mkdir -p "$apt_cache/partial"

# Inside a throwaway overlay of the root: apt installs the packages with what they
# depend on, plus the tools the checks use; then each check prints
# "RESULT OK|FAIL NAME" with its output on "DETAIL" lines.
inner='
set -u
export DEBIAN_FRONTEND=noninteractive
result() { local r=$1 name=$2; shift 2; echo "RESULT $r $name"; [ $# -eq 0 ] || printf "%s\n" "$@" | sed "s/^/DETAIL /"; }
run_check() { local name=$1 out; shift; if out=$("$@" 2>&1); then result OK "$name"; else result FAIL "$name" "$out"; fi; }
tools="gstreamer1.0-tools gstreamer1.0-plugins-base g++ pkg-config python3-gi"
t0=$(date +%s)
# A throwaway root: dpkg need not sync every file it unpacks.
echo force-unsafe-io >/etc/dpkg/dpkg.cfg.d/ccl-unsafe-io
install() { apt-get install -y -q --no-install-recommends /debs/*.deb $tools >/var/tmp/apt.log 2>&1; }
# Lists made with the root may name files the mirror no longer has: fetch them anew.
if install || { apt-get update -q >>/var/tmp/apt.log 2>&1 && install; }; then
  result OK "apt-get install of the packages and their dependencies ($(grep -c "^Setting up" /var/tmp/apt.log) packages set up in $(( $(date +%s) - t0 )) s)"
else
  result FAIL "apt-get install of the packages and their dependencies" "$(tail -n 30 /var/tmp/apt.log)"
  exit 0
fi
for p in $(ls /debs/*.deb | sed "s|.*/||; s|_.*||"); do
  dpkg-query -W -f="\${Status}" "$p" 2>/dev/null | grep -q "install ok installed" || result FAIL "package $p installed"
done

run_check "gst-inspect-1.0 cudaccl" sh -c "gst-inspect-1.0 cudaccl >/var/tmp/inspect.txt 2>&1 && grep -q \"Long-name\" /var/tmp/inspect.txt || { cat /var/tmp/inspect.txt; exit 1; }"
# backend=auto, the default: the CPU here (no CUDA in these packages, no GPU in the root).
out=$(gst-launch-1.0 -m videotestsrc pattern=ball num-buffers=10 ! cudaccl post-messages=true ! fakesink 2>&1)
status=$?
frames=$(grep -c "(element): cudaccl, .*total-components=(uint)1," <<<"$out")
if [ $status -eq 0 ] && grep -q "EOS" <<<"$out" && ! grep -q "ERROR" <<<"$out" && [ "$frames" -eq 10 ]; then
  result OK "gst-launch-1.0 videotestsrc num-buffers=10 ! cudaccl ! fakesink: EOS, the ball found in all 10 frames"
else
  result FAIL "gst-launch-1.0 videotestsrc num-buffers=10 ! cudaccl ! fakesink: EOS, the ball found in all 10 frames" \
    "exit $status, $frames frames with one component" "$(tail -n 30 <<<"$out" | cut -c1-300)"
fi

# The engine example: C++ against ccl.pc, linked to the shared libccl.so.0.
cd /var/tmp
if out=$(g++ -std=c++17 -Wall -Wextra -Werror -o label_image /src/kernels/examples/label_image.cpp $(pkg-config --cflags --libs ccl) 2>&1); then
  result OK "the engine example builds with pkg-config --cflags --libs ccl"
  python3 -c "
w, h = 40, 30
px = bytearray(w * h)
for (x0, y0, bw, bh) in [(2, 3, 5, 4), (20, 10, 3, 3), (35, 25, 1, 1)]:
    for y in range(y0, y0 + bh):
        px[y * w + x0:y * w + x0 + bw] = b\"\\xff\" * bw
open(\"blobs.pgm\", \"wb\").write(b\"P5\\n%d %d\\n255\\n\" % (w, h) + bytes(px))"
  out=$(./label_image blobs.pgm 128 2 2>&1)
  lib=$(ldd ./label_image | awk "/libccl/ { print \$3 }")
  # /lib is /usr/lib in Debian 12: the same file by either name.
  if grep -q "^3 components, 2 reported" <<<"$out" &&
     [ "$(readlink -f "$lib")" = "$(readlink -f "$(pkg-config --variable=libdir ccl)/libccl.so.0")" ]; then
    result OK "the engine example labels three blobs with the installed $lib"
  else
    result FAIL "the engine example labels three blobs with the installed libccl.so.0" "$out" "ldd: $lib"
  fi
else
  result FAIL "the engine example builds with pkg-config --cflags --libs ccl" "$out"
fi

# The metadata example: C against gstreamer-ccl-1.0.pc, run through the installed plugin.
if out=$(gcc -Wall -o ccl-meta-print /src/pipelines/examples/ccl-meta-print.c $(pkg-config --cflags --libs gstreamer-ccl-1.0) -lm 2>&1); then
  result OK "the metadata example builds with pkg-config --cflags --libs gstreamer-ccl-1.0"
  out=$(./ccl-meta-print --backend cpu --frames 5 --components 2>&1)
  if [ $? -eq 0 ] && grep -q "^5 frames$" <<<"$out" && [ "$(grep -c "^frame " <<<"$out")" -eq 5 ]; then
    result OK "the metadata example reads 5 frames of GstCclMeta"
  else
    result FAIL "the metadata example reads 5 frames of GstCclMeta" "$out"
  fi
else
  result FAIL "the metadata example builds with pkg-config --cflags --libs gstreamer-ccl-1.0" "$out"
fi

run_check "the GstCcl-1.0 typelib loads (PyGObject)" python3 -c "
import gi
gi.require_version(\"Gst\", \"1.0\"); gi.require_version(\"GstCcl\", \"1.0\")
from gi.repository import Gst, GstCcl
Gst.init(None)
assert GstCcl.meta_get_info() is not None
assert GstCcl.Algorithm.__enum_values__"

out=$(cd / && python3 -c "
import cudaccl, numpy as np
print(cudaccl.__version__, cudaccl.__file__)
image = np.zeros((30, 40), np.uint8); image[3:7, 2:7] = 255; image[10:13, 20:23] = 255
labels, table = cudaccl.label(image, threshold=128)
assert table[\"label\"].size == 2, table
print(\"labels:\", table[\"label\"].size)" 2>&1)
if [ $? -eq 0 ] && grep -q "/usr/lib/python3/dist-packages/cudaccl/" <<<"$out"; then
  result OK "python3 -c \"import cudaccl\": version $(head -n 1 <<<"$out" | cut -d " " -f 1), labels an array"
else
  result FAIL "python3 -c \"import cudaccl\"" "$out"
fi
run_check "ccl-label --help" ccl-label --help
'

report() {
  local line name="" details="" r=""
  flush() {
    [ -n "$r" ] || return 0
    if [ "$r" = OK ]; then ok "$name"; else not_ok "$name" "$details"; fi
    r=""; details=""
  }
  while IFS= read -r line; do
    case "$line" in
      "RESULT "*) flush; line=${line#RESULT }; r=${line%% *}; name=${line#* } ;;
      "DETAIL "*) details+="${details:+$'\n'}${line#DETAIL }" ;;
      *) flush; echo "# $line" ;;
    esac
  done
  flush
}

t0=$SECONDS
# Process substitution, not a pipe: report counts in this shell.
binds=("$debs:/debs:ro" "$apt_cache:/var/cache/apt/archives" "$src:/src:ro")
# Packages given from elsewhere may be the CUDA build: it carries the CUDA runtime
# linked in (docs/PACKAGES.md), so the root gets nothing of a toolkit for them either.
report < <("$src/scripts/debian-root" scratch "$suite" "${binds[@]}" -- "$inner" 2>&1)
echo "# installing and checking in the root took $((SECONDS - t0)) s"

wait $lintian_pid
errors=$(grep -c "^E: " "$lintian_out")
unexpected=$(grep "^W: " "$lintian_out" | grep -v -F -f <(printf ' %s\n' "${accepted_warnings[@]}") || true)
if [ "$errors" -eq 0 ] && [ -z "$unexpected" ]; then
  ok "lintian: no errors, $(grep -c "^W: " "$lintian_out") warnings, all of them accepted (docs/PACKAGES.md)"
else
  not_ok "lintian: no errors and only the accepted warnings" "$(grep -E "^(E|W): " "$lintian_out")"
fi
echo "# the packages suite took $((SECONDS - t_all)) s"
finish
