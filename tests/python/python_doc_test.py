#!/usr/bin/python3
"""The Python code blocks of docs/PYTHON.md, run in order in one namespace (in a
temporary folder, matplotlib without a display): each must run, and the plots they
save must be PNG files. Blocks on CuPy or PyTorch arrays run only where those and a
usable CUDA device are. Prints TAP.

    python_doc_test.py DOCS/PYTHON.md"""
import contextlib
import io
import os
import re
import sys
import tempfile

import numpy as np

from cudaccl_support import import_cudaccl
from tap import Tap

cudaccl = import_cudaccl()
os.environ["MPLBACKEND"] = "Agg"


def needs(block):
    """Why a block cannot run here, or ''."""
    if "cupy" in block or "torch" in block:
        try:
            import cupy  # noqa: F401
            import torch  # noqa: F401
        except ImportError:
            return "needs CuPy and PyTorch"
        if not cudaccl.cuda_usable():
            return "needs a usable CUDA device"
    if "skimage" in block:
        try:
            import skimage.measure  # noqa: F401
        except ImportError:
            return "needs skimage"
    return ""


def main():
    text = open(sys.argv[1]).read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    tap = Tap()
    tap.case("docs/PYTHON.md has Python examples", len(blocks) >= 4, f"{len(blocks)} blocks")
    # Names the short snippets use without making them: a few frames.
    namespace = {"frames": [np.zeros((32, 32), np.uint8)] * 3}
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        for i, block in enumerate(blocks):
            first = block.strip().splitlines()[0][:60]
            why = needs(block)
            if why:
                tap.skip(f"block {i + 1} ({first})", why)
                continue
            # What a block prints goes out as TAP comments, not as lines TAP cannot read.
            printed = io.StringIO()

            def run(block=block, i=i, printed=printed):
                with contextlib.redirect_stdout(printed):
                    exec(compile(block, f"PYTHON.md block {i + 1}", "exec"), namespace)
            tap.check(f"block {i + 1} ({first}) runs", run)
            for line in printed.getvalue().splitlines():
                print(f"# {line}", flush=True)
        for png in re.findall(r'savefig\("([^"]+)"', text):
            def check(png=png):
                with open(png, "rb") as f:
                    assert f.read(8) == b"\x89PNG\r\n\x1a\n", "not a PNG"
            tap.check(f"{png} was written", check)
        os.chdir("/")
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
