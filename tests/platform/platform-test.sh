#!/usr/bin/env bash
# The plugin on another Debian release (docs/PLATFORMS.md): in a cached root of SUITE
# (scripts/debian-root), a CPU-only build of the engine, the meta library and the plugin
# with that release's GStreamer, meson and compiler, then its element and meta tests;
# and where this host has the CUDA toolkit, the CUDA engine and plugin compiled for
# Jetson Orin (sm_87) with the root's compiler. Output is TAP, one line per inner test.
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

cuda_script='
set -u
export PATH=$PATH:/usr/local/cuda/bin
b=/var/tmp/ccl-cuda
rm -rf "$b"
if ! meson setup "$b" /src -Dgpu=enabled -Dgpu_archs=8.7 -Dtests=false -Dplatforms=disabled -Dintrospection=disabled \
    >/var/tmp/cuda-setup.log 2>&1; then
  tail -n 30 /var/tmp/cuda-setup.log; echo "STEP FAIL configure (CUDA, sm_87)"; exit 0
fi
grep -E "GStreamer [0-9.]+: CUDA memory" /var/tmp/cuda-setup.log | sed "s/^/INFO /"
echo "INFO $(nvcc --version | tail -n 2 | head -n 1)"
if ! ninja -C "$b" >/var/tmp/cuda-build.log 2>&1; then
  grep -E -B2 -A8 "error|FAILED" /var/tmp/cuda-build.log | head -n 60; echo "STEP FAIL build (CUDA, sm_87)"; exit 0
fi
echo "STEP OK build (CUDA engine and plugin, sm_87)"
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

nvcc=/usr/local/cuda/bin/nvcc
if [ -x "$nvcc" ] && [ "${CCL_PLATFORM_CUDA:-1}" != 0 ]; then
  t0=$SECONDS
  report < <("$src/scripts/debian-root" run "$suite" "${binds[@]}" \
    "$(readlink -f /usr/local/cuda):/usr/local/cuda:ro" -- "$cuda_script" 2>&1)
  echo "# $suite: CUDA build took $((SECONDS - t0)) s"
else
  n=$((n + 1)); echo "ok $n - $suite: CUDA build # SKIP no CUDA toolkit at /usr/local/cuda on this host (or CCL_PLATFORM_CUDA=0)"
fi
finish
