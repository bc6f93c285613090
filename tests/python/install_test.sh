#!/usr/bin/env bash
# The Python package installed: meson install into a scratch DESTDIR, then the staged
# package imported and run, finding the staged libccl through CUDACCL_LIBRARY and,
# without it, through the loader's search path (the configured path in _paths.py
# names the real prefix, which holds nothing yet). Prints TAP.
#
#   install_test.sh BUILD_DIR PYTHON
set -uo pipefail

build=$1
python=$2
stage=$(mktemp -d "${TMPDIR:-/tmp}/cudaccl-py-install.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# shellcheck source=../common/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../common/tap.sh"

echo "1..5"
install_or_bail "$build" "$stage/root" 5

init=$(find "$stage/root" -path "*/cudaccl/__init__.py" | head -n 1)
paths=$(dirname "${init:-/nonexistent}")/_paths.py
lib=$(find "$stage/root" -name libccl.so.0 | head -n 1)
if [ -n "$init" ] && [ -f "$paths" ] && [ -n "$lib" ] && grep -q "LIBRARY = \"/.*/libccl.so.0\"" "$paths" &&
   ! grep -q "$(cd "$build" && pwd)" "$paths"; then
  ok "the package, its _paths.py (naming the installed libccl.so.0) and the library are installed"
else
  not_ok "the package, its _paths.py (naming the installed libccl.so.0) and the library are installed" \
    "package: ${init:-none}; library: ${lib:-none}; $(cat "$paths" 2>&1)"
fi
site=$(dirname "$(dirname "${init:-/x/y}")")
header=$(find "$stage/root" -path "*/ccl/ccl.h" | head -n 1)
check "ccl/ccl.h is installed" test -n "$header"

run='import numpy as np, cudaccl
a = np.zeros((5, 7), np.uint8); a[1:3, 1:3] = 255; a[4, 6] = 255
labels, table = cudaccl.label(a, backend="cpu")
assert labels.max() == 2 and list(table["area"]) == [4, 1], table
print(cudaccl.library_path)'
check "the installed package labels, with CUDACCL_LIBRARY" \
  env -u LD_LIBRARY_PATH PYTHONPATH="$site" CUDACCL_LIBRARY="$lib" "$python" -c "$run"
out=$(cd / && env -u CUDACCL_LIBRARY PYTHONPATH="$site" LD_LIBRARY_PATH="$(dirname "$lib")" \
  "$python" -c "$run" 2>&1)
if [ $? -eq 0 ]; then
  ok "the installed package labels, finding libccl on the loader's path"
else
  not_ok "the installed package labels, finding libccl on the loader's path" "$out"
fi
[ $failed -eq 0 ]
