#!/usr/bin/env bash
# pip install of the Python package (pyproject.toml, meson-python): the source tree
# copied to a scratch folder, a fresh venv (with the system's site packages: NumPy,
# meson-python, skimage, OpenCV from Debian), `pip install --no-build-isolation
# --no-index` of the copy, then the installed package checked and the Python suite's
# tests run against it with the venv's interpreter, from /, with no PYTHONPATH,
# LD_LIBRARY_PATH or CUDACCL_LIBRARY. Prints TAP.
#
# The wheel is built CPU-only (-Dgpu=disabled) to keep the run short; CCL_PIP_TEST_GPU=1
# builds it with CUDA where nvcc is found (/usr/local/cuda/bin is put on PATH).
#
#   pip_test.sh SOURCE_DIR TESTDATA_DIR PYTHON FETCH_SCRIPT IMPORT_TOOL SCENE_TABLES
set -uo pipefail

src=$1
testdata=$2
python=$3
fetch_script=$4
import_tool=$5
scene_tables=$6
tests=$(cd "$src/tests/python" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/cudaccl-pip.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# shellcheck source=../common/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../common/tap.sh"

plan=15
echo "1..$plan"
# bail WHY: the remaining cases skipped (a machine without what the test needs).
bail() {
  local i
  for i in $(seq $((n + 1)) $plan); do skip "pip check $i" "$1"; done
  exit 0
}
# clean COMMAND...: runs with none of the variables that could point Python or the
# loader at another copy of the package or the library.
clean() {
  env -u PYTHONPATH -u LD_LIBRARY_PATH -u CUDACCL_LIBRARY -u PYTHONHOME \
    PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "$@"
}

# 1. The source as the checkout has it (uncommitted files too), without build folders.
copy=$stage/src
mkdir -p "$copy"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  out=$( (cd "$src" && git ls-files -z -c -o --exclude-standard |
          tar --null --ignore-failed-read -T - -cf -) 2>&1 >"$stage/src.tar") &&
    tar -xf "$stage/src.tar" -C "$copy" && rm -f "$stage/src.tar"
  status=$?
else
  out=$(tar -C "$src" --exclude='./build*' --exclude='./.git' -cf - . | tar -xf - -C "$copy" 2>&1)
  status=$?
fi
if [ $status -eq 0 ] && [ -f "$copy/pyproject.toml" ]; then
  ok "the source tree copied to a scratch folder"
else
  not_ok "the source tree copied to a scratch folder" "$out"
  bail "no copy of the source"
fi

# 2. A fresh venv that sees the system's packages (NumPy and meson-python from Debian).
venv=$stage/venv
if out=$(clean "$python" -m venv --system-site-packages "$venv" 2>&1); then
  ok "a fresh venv (--system-site-packages)"
else
  not_ok "a fresh venv (--system-site-packages)" "$out"
  bail "no venv"
fi
vpy=$venv/bin/python
if ! clean "$vpy" -c "import mesonpy" >/dev/null 2>&1; then
  bail "meson-python is not installed (python3-mesonpy; scripts/setup installs it)"
fi

# 3. pip install, CPU-only unless asked for CUDA.
build_args=(--config-settings=setup-args=-Dgpu=disabled)
what="CPU-only"
path=$PATH
want_cuda=0
if [ "${CCL_PIP_TEST_GPU:-0}" = 1 ]; then
  build_args=()
  [ -d /usr/local/cuda/bin ] && path=/usr/local/cuda/bin:$PATH
  if PATH=$path command -v nvcc >/dev/null; then what="with CUDA"; want_cuda=1; else what="CPU-only: no nvcc"; fi
fi
start=$(date +%s)
out=$(cd "$stage" && clean PATH="$path" "$vpy" -m pip install --no-build-isolation --no-index \
  --no-cache-dir "${build_args[@]}" "$copy" 2>&1)
status=$?
echo "# pip install ($what) took $(( $(date +%s) - start )) s"
if [ $status -eq 0 ]; then
  ok "pip install --no-build-isolation --no-index builds and installs cudaccl ($what)"
else
  not_ok "pip install --no-build-isolation --no-index builds and installs cudaccl ($what)" \
    "$(tail -n 40 <<<"$out")"
  bail "pip install failed"
fi

# 4. What the wheel installed: the package (with libccl.so inside) and its metadata,
# nothing else (no headers, no bundled-library folder, no programs, no plugin).
site=$(clean "$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
pkg=$site/cudaccl
record=$(ls "$site"/cudaccl-*.dist-info/RECORD 2>/dev/null | head -n 1)
others=$(cut -d, -f1 "${record:-/dev/null}" | grep -v -e '^cudaccl/' -e '^cudaccl-[^/]*\.dist-info/')
if [ -n "$record" ] && [ -f "$pkg/libccl.so" ] && [ -f "$pkg/_paths.py" ] && [ -z "$others" ]; then
  ok "the wheel installed the package with libccl.so inside it, and nothing else"
else
  not_ok "the wheel installed the package with libccl.so inside it, and nothing else" \
    "record: ${record:-none}; package: $(ls "$pkg" 2>&1 | tr '\n' ' '); outside the package: $others"
fi

# 5. The installed library names nothing of the build: no RPATH or RUNPATH.
dyn=$(readelf -d "$pkg/libccl.so" 2>&1)
if [ $? -eq 0 ] && ! grep -q -e RPATH -e RUNPATH <<<"$dyn"; then
  ok "the package's libccl.so has no RPATH or RUNPATH"
else
  not_ok "the package's libccl.so has no RPATH or RUNPATH" "$(grep -e PATH -e rror <<<"$dyn")"
fi

# 6. Imported with nothing set, the package loads its own library, built with CUDA or
# without as asked.
run='import os, sys, numpy as np, cudaccl
from cudaccl import _label
pkg = os.path.dirname(os.path.realpath(cudaccl.__file__))
assert os.path.realpath(cudaccl.library_path) == os.path.join(pkg, "libccl.so"), cudaccl.library_path
assert pkg.startswith(os.path.realpath(sys.prefix) + os.sep), (pkg, sys.prefix)
a = np.zeros((5, 7), np.uint8); a[1:3, 1:3] = 255; a[4, 6] = 255
labels, table = cudaccl.label(a, backend="cpu")
assert labels.max() == 2 and list(table["area"]) == [4, 1], table
usable = cudaccl.cuda_usable()
why = _label._usable[-1][1]
assert ("without CUDA" not in why) == (sys.argv[1] == "1"), why
print(cudaccl.library_path, "-", "CUDA usable" if usable else why)'
out=$(cd / && clean "$vpy" -c "$run" "$want_cuda" 2>&1)
if [ $? -eq 0 ]; then
  ok "import cudaccl (no PYTHONPATH, LD_LIBRARY_PATH, CUDACCL_LIBRARY) loads the libccl inside the venv's package"
  echo "# $out"
else
  not_ok "import cudaccl (no PYTHONPATH, LD_LIBRARY_PATH, CUDACCL_LIBRARY) loads the libccl inside the venv's package" "$out"
fi

# 7. One version: the wheel's metadata and the library's (both meson.build's).
want=$(sed -n "s/^ *version: *'\([^']*\)'.*/\1/p" "$src/meson.build" | head -n 1)
out=$(cd / && clean "$vpy" -c 'import importlib.metadata as m, cudaccl
print(m.version("cudaccl"), cudaccl.__version__)' 2>&1)
if [ "$out" = "$want $want" ]; then
  ok "the wheel's version and the library's are meson.build's ($want)"
else
  not_ok "the wheel's version and the library's are meson.build's ($want)" "$out"
fi

# 8. CUDACCL_LIBRARY still comes first.
out=$(cd / && clean CUDACCL_LIBRARY=/nonexistent/libccl.so "$vpy" -c "import cudaccl" 2>&1)
if [ $? -ne 0 ] && grep -q "/nonexistent/libccl.so (CUDACCL_LIBRARY)" <<<"$out"; then
  ok "CUDACCL_LIBRARY overrides the package's own library"
else
  not_ok "CUDACCL_LIBRARY overrides the package's own library" "$out"
fi

# 9-15. The Python suite's tests (CPU backend where no device is usable) on the
# installed package. A test that skips everything (it could not import cudaccl) fails.
suite() {
  local name=$1 out
  shift
  out=$(cd / && clean "$vpy" "$@" 2>&1)
  if [ $? -eq 0 ] && ! grep -q '^1\.\.0' <<<"$out"; then
    ok "$name on the installed package ($(grep -c '^ok' <<<"$out") cases)"
  else
    not_ok "$name on the installed package" "$(tail -n 30 <<<"$out")"
  fi
}
suite "label_test.py" "$tests/label_test.py" "$testdata" "$fetch_script" "$import_tool"
suite "blob_test.py" "$tests/blob_test.py" "$testdata" "$fetch_script" "$import_tool"
suite "tracker_test.py" "$tests/tracker_test.py" "$scene_tables" "$stage/scene-tables-out"
suite "call_cache_test.py" "$tests/call_cache_test.py"
suite "call_path_test.py" "$tests/call_path_test.py"
suite "events_test.py" "$tests/events_test.py"
suite "python_doc_test.py" "$tests/python_doc_test.py" "$src/docs/PYTHON.md"
[ $failed -eq 0 ]
