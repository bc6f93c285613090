#!/usr/bin/env bash
# The plugin on another Debian release (docs/PLATFORMS.md): in a cached root of SUITE
# (scripts/debian-root), a CPU-only build of the engine, the meta library and the plugin
# with that release's GStreamer, meson and compiler, then its element and meta tests;
# and the CUDA engine, plugin and ccl-label built with the root's compiler: with the
# root's own CUDA toolkit for Jetson Orin and Hopper (sm_87, sm_90) where it has one
# (Debian 13: CUDA 12.4), else with this host's for sm_87. Output is TAP, one line per
# inner test.
#
#   platform-test.sh SUITE SOURCE_DIR [TESTDATA_DIR]
#
# TESTDATA_DIR: this build's real-image cache, lent read-only to the inner tests.
set -uo pipefail

suite=${1:?usage: platform-test.sh SUITE SOURCE_DIR [TESTDATA_DIR]}
src=$(cd "${2:?}" && pwd)
testdata=${3:-}
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $suite: $*"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $suite: $*"; }
finish() { echo "1..$n"; exit $failed; }

if [ "$(id -u)" -ne 0 ]; then
  echo "1..0 # SKIP $suite: making and entering a Debian root needs root (chroot)"
  exit 0
fi

t0=$SECONDS
if root=$("$src/scripts/debian-root" ensure "$suite"); then
  ok "root ready in $((SECONDS - t0)) s ($root)"
else
  not_ok "making the root failed"
  finish
fi

binds=("$src:/src:ro")
[ -n "$testdata" ] && [ -d "$testdata" ] && binds+=("$testdata:/testdata:ro")

# Inside the root: CPU build, then the element and meta suites; each inner test's
# result comes back as "RESULT <OK|FAIL|SKIP> <name>" lines.
cpu_script='
set -u
echo "INFO gstreamer $(pkg-config --modversion gstreamer-1.0), meson $(meson --version), $(gcc --version | head -n 1)"
b=/var/tmp/ccl-cpu
rm -rf "$b"
if ! meson setup "$b" /src -Dgpu=disabled -Dtests=true -Dplatforms=disabled >/var/tmp/cpu-setup.log 2>&1; then
  tail -n 30 /var/tmp/cpu-setup.log; echo "STEP FAIL configure (CPU backend)"; exit 0
fi
grep -E "GStreamer [0-9.]+: CUDA memory" /var/tmp/cpu-setup.log | sed "s/^/INFO /"
echo "STEP OK configure (CPU backend)"
# What the element and meta suites run and depend on: the engine, the meta library,
# the plugin, what is installed and those tests, not every other suite of the tree.
targets=$(cd "$b" && python3 - <<EOF
import json, os, subprocess
ask = lambda what: json.loads(subprocess.check_output(["meson", "introspect", what]))
targets = ask("--targets")
files = {t["id"]: t["filename"] for t in targets}
# Everything installed too: meta-install installs the whole project.
want = set(f for t in targets if t.get("installed") for f in t["filename"])
for t in ask("--tests"):
    if set(t["suite"]) & {"cudaccl:element", "cudaccl:meta", "element", "meta"}:
        want.update(f for d in t.get("depends", []) for f in files.get(d, []))
        want.add(t["cmd"][0])
build = os.getcwd() + "/"
print(" ".join(sorted(f[len(build):] for f in want if f.startswith(build))))
EOF
)
echo "INFO building $(echo $targets | wc -w) targets for the element and meta suites"
if ! ninja -C "$b" $targets >/var/tmp/cpu-build.log 2>&1; then
  grep -E -B2 -A8 "error|FAILED" /var/tmp/cpu-build.log | head -n 60; echo "STEP FAIL build (CPU backend)"; exit 0
fi
echo "STEP OK build: engine, meta library, plugin and tests"
[ -d /testdata ] && export CCL_TESTDATA_DIR=/testdata
meson test -C "$b" --no-rebuild --suite element --suite meta --num-processes 2 \
  --print-errorlogs >/var/tmp/cpu-test.log 2>&1
python3 - "$b/meson-logs" <<EOF
import json, os, sys, xml.etree.ElementTree as ET
logs = sys.argv[1]
cases = {}  # test name -> [passed, failed, skipped] of its GoogleTest or TAP cases
junit = os.path.join(logs, "testlog.junit.xml")
if os.path.exists(junit):
    for suite in ET.parse(junit).getroot().iter("testsuite"):
        parts = suite.get("name", "").split(".")
        if len(parts) < 2:
            continue
        c = cases.setdefault(parts[1], [0, 0, 0])
        for case in suite.iter("testcase"):
            i = 1 if case.find("failure") is not None or case.find("error") is not None else \
                2 if case.find("skipped") is not None else 0
            c[i] += 1
for line in open(os.path.join(logs, "testlog.json")):
    t = json.loads(line)
    r = {"OK": "OK", "EXPECTEDFAIL": "OK", "SKIP": "SKIP"}.get(t["result"], "FAIL")
    c = cases.get(t["name"])
    extra = " (%d cases passed, %d failed, %d skipped)" % tuple(c) if c else ""
    print("RESULT", r, t["name"] + extra)
EOF
grep -q "^Fail:  *0" /var/tmp/cpu-test.log || tail -n 60 /var/tmp/cpu-test.log
'

# The CUDA build, with the root's own toolkit where it has one (Debian 13:
# nvidia-cuda-toolkit, CUDA 12.4 in /usr, its nvcc on g++-13) and no variable set, else
# with this host's /usr/local/cuda lent to it. ARCHS: the compute capabilities.
# Then the binaries it made are run as far as a machine without a GPU can: ccl-label
# labels an image with the CPU backend, and GStreamer loads the plugin and runs it.
cuda_script='
set -u
command -v nvcc >/dev/null || export PATH=$PATH:/usr/local/cuda/bin
echo "INFO $(command -v nvcc): $(nvcc --version | tail -n 2 | head -n 1)"
b=/var/tmp/ccl-cuda
rm -rf "$b"
if ! meson setup "$b" /src -Dgpu=enabled -Dgpu_archs=$ARCHS -Dtests=false -Dplatforms=disabled \
    -Dintrospection=disabled >/var/tmp/cuda-setup.log 2>&1; then
  tail -n 30 /var/tmp/cuda-setup.log; echo "STEP FAIL configure (CUDA, $ARCHS)"; exit 0
fi
grep -E "GStreamer [0-9.]+: CUDA memory" /var/tmp/cuda-setup.log | sed "s/^/INFO /"
if ! ninja -C "$b" >/var/tmp/cuda-build.log 2>&1; then
  grep -E -B2 -A8 "error|FAILED" /var/tmp/cuda-build.log | head -n 60; echo "STEP FAIL build (CUDA, $ARCHS)"; exit 0
fi
echo "STEP OK build (CUDA engine, plugin and ccl-label for $ARCHS)"
archs=$(cuobjdump --list-elf "$b/kernels/libccl.so" 2>/dev/null | grep -o "sm_[0-9]*" | sort -u | tr "\n" " ")
[ -n "$archs" ] && echo "INFO machine code in libccl.so: $archs"
python3 - <<EOF
w, h = 64, 48  # 8x8 cells: 24 white squares, touching only at corners
pix = bytes(255 if (x // 8 + y // 8) % 2 else 0 for y in range(h) for x in range(w))
open("/var/tmp/checker.pgm", "wb").write(b"P5 64 48 255\\n" + pix)
EOF
if [ ! -x "$b/kernels/tools/ccl-label" ]; then
  echo "STEP FAIL ccl-label was not built"
elif "$b/kernels/tools/ccl-label" --backend cpu --connectivity 4 --output /var/tmp/checker \
      /var/tmp/checker.pgm >/var/tmp/ccl-label.log 2>&1 &&
    [ "$(tail -n +2 /var/tmp/checker-components.csv | wc -l)" = 24 ]; then
  echo "STEP OK ccl-label (CUDA build) labels a 64x48 checkerboard on the CPU: 24 components"
else
  cat /var/tmp/ccl-label.log; echo "STEP FAIL ccl-label (CUDA build) on a checkerboard"
fi
export GST_PLUGIN_PATH=$b/plugin GST_REGISTRY=/var/tmp/cuda-registry.bin
if gst-inspect-1.0 cudaccl >/var/tmp/inspect.log 2>&1 &&
   gst-launch-1.0 -q videotestsrc num-buffers=5 ! video/x-raw,format=GRAY8,width=320,height=240 ! \
     cudaccl backend=cpu threshold=100 ! fakesink >/var/tmp/launch.log 2>&1; then
  echo "STEP OK plugin (CUDA build) loads and runs videotestsrc ! cudaccl backend=cpu ! fakesink"
else
  tail -n 20 /var/tmp/inspect.log /var/tmp/launch.log; echo "STEP FAIL plugin (CUDA build) load and run"
fi
'

report() {
  local line steps=0
  while IFS= read -r line; do
    case "$line" in
      "STEP OK "*) steps=1; ok "${line#STEP OK }" ;;
      "STEP FAIL "*) steps=1; not_ok "${line#STEP FAIL }" ;;
      "RESULT OK "*) ok "${line#RESULT OK }" ;;
      "RESULT SKIP "*) n=$((n + 1)); echo "ok $n - $suite: ${line#RESULT SKIP } # SKIP" ;;
      "RESULT FAIL "*) not_ok "${line#RESULT FAIL }" ;;
      "INFO "*) echo "# $suite: ${line#INFO }" ;;
      *) echo "# $line" ;;
    esac
  done
  [ $steps = 1 ] || not_ok "the command inside the root did not run"
}

t0=$SECONDS
# Process substitution, not a pipe: report counts in this shell.
report < <("$src/scripts/debian-root" run "$suite" "${binds[@]}" -- "$cpu_script" 2>&1)
echo "# $suite: CPU build and tests took $((SECONDS - t0)) s"

# forky (GStreamer 1.28): segmentationoverlay draws the segmentation entry of
# analytics-mask (docs/SEGMENTATION.md), with the plugin the CPU build above made. Two
# light squares (components 1 and 2) on a dark ground, RGBA: with analytics-mask=true
# every pixel of the squares changes color and no other pixel changes; with
# analytics-mask=false the frame comes out as it went in.
overlay_script='
set -u
export GST_PLUGIN_PATH=/var/tmp/ccl-cpu/plugin GST_REGISTRY=/var/tmp/ccl-overlay-registry.bin
d=/var/tmp/ccl-overlay
rm -rf "$d" && mkdir -p "$d" || { echo "STEP FAIL segmentationoverlay: no folder $d"; exit 0; }
if ! gst-inspect-1.0 segmentationoverlay >/dev/null 2>&1; then
  echo "STEP FAIL segmentationoverlay: not installed (gst-plugins-bad 1.28)"; exit 0
fi
if ! gst-inspect-1.0 cudaccl 2>/dev/null | grep -q "analytics-mask"; then
  echo "STEP FAIL segmentationoverlay: the CPU build has no cudaccl with analytics-mask"; exit 0
fi
cat >"$d/frame.py" <<PY
import sys
w, h = 64, 48
squares = [(8, 8, 12), (36, 24, 10)]
inside = [any(sx <= x < sx + s and sy <= y < sy + s for sx, sy, s in squares)
          for y in range(h) for x in range(w)]
PY
python3 - "$d" <<PY
import sys
sys.path.insert(0, sys.argv[1])
from frame import w, h, inside
px = bytearray()
for i in range(w * h):
    v = 200 if inside[i] else 40
    px += bytes((v, v, v, 255))
open(sys.argv[1] + "/in.rgba", "wb").write(px)
PY
for mask in true false; do
  if ! gst-launch-1.0 -q filesrc location="$d/in.rgba" ! \
      rawvideoparse format=rgba width=64 height=48 framerate=1/1 ! \
      cudaccl backend=cpu tracking=false analytics-meta=true analytics-mask=$mask ! \
      segmentationoverlay ! video/x-raw,format=RGBA ! filesink location="$d/$mask.rgba" \
      >"$d/launch-$mask.log" 2>&1; then
    tail -n 20 "$d/launch-$mask.log"
    echo "STEP FAIL segmentationoverlay: the pipeline with analytics-mask=$mask failed"; exit 0
  fi
done
python3 - "$d" <<PY
import sys
d = sys.argv[1]
sys.path.insert(0, d)
from frame import w, h, inside
inp, on, off = (open(d + "/" + f, "rb").read() for f in ("in.rgba", "true.rgba", "false.rgba"))
if len(on) != w * h * 4 or len(off) != w * h * 4:
    print("STEP FAIL segmentationoverlay: %d and %d bytes out, not one %dx%d RGBA frame"
          % (len(on), len(off), w, h))
    sys.exit(0)
changed = [on[4 * i:4 * i + 3] != inp[4 * i:4 * i + 3] for i in range(w * h)]
n_in = sum(inside)
colored = sum(1 for i in range(w * h) if inside[i] and changed[i])
stray = sum(1 for i in range(w * h) if not inside[i] and changed[i])
i = 8 * w + 8
print("INFO segmentationoverlay: component pixel %s -> %s, background pixel %s -> %s"
      % (tuple(inp[4 * i:4 * i + 3]), tuple(on[4 * i:4 * i + 3]), tuple(inp[0:3]), tuple(on[0:3])))
if colored == n_in and stray == 0 and off == inp:
    print("STEP OK segmentationoverlay colors every pixel of the analytics-mask components, "
          "and no other")
else:
    print("STEP FAIL segmentationoverlay: %d of %d component pixels colored, %d other pixels "
          "changed, output without the mask %s the input" % (colored, n_in, stray,
          "equal to" if off == inp else "differs from"))
PY
'
if [ "$suite" = forky ]; then
  t0=$SECONDS
  report < <("$src/scripts/debian-root" run "$suite" "${binds[@]}" -- "$overlay_script" 2>&1)
  echo "# $suite: segmentationoverlay check took $((SECONDS - t0)) s"
fi

nvcc=/usr/local/cuda/bin/nvcc
if [ -x "$root/usr/bin/nvcc" ] && [ "${CCL_PLATFORM_CUDA:-1}" != 0 ]; then
  # The root's own toolkit, for Orin and Hopper (sm_87, sm_90).
  t0=$SECONDS
  report < <("$src/scripts/debian-root" run "$suite" "${binds[@]}" -- "ARCHS=8.7,9.0; $cuda_script" 2>&1)
  echo "# $suite: CUDA build with its own toolkit took $((SECONDS - t0)) s"
elif [ -x "$nvcc" ] && [ "${CCL_PLATFORM_CUDA:-1}" != 0 ]; then
  t0=$SECONDS
  report < <("$src/scripts/debian-root" run "$suite" "${binds[@]}" \
    "$(readlink -f /usr/local/cuda):/usr/local/cuda:ro" -- "ARCHS=8.7; $cuda_script" 2>&1)
  echo "# $suite: CUDA build took $((SECONDS - t0)) s"
else
  n=$((n + 1)); echo "ok $n - $suite: CUDA build # SKIP no CUDA toolkit in the root or at /usr/local/cuda on this host (or CCL_PLATFORM_CUDA=0)"
fi
finish
