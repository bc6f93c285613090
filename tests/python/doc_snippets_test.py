#!/usr/bin/python3
"""Compiles and runs every C and Python code block of docs/METADATA.md, so that the
reference's snippets keep working. Prints TAP, one case per block, and one more per
block that reads track ids: it must print a nonzero one (for blocks running cudaccl,
only where the element tracks by default).

    doc_snippets_test.py METADATA_MD BUILD_DIR

C blocks are built with the build folder's uninstalled pkg-config file
(BUILD/meson-uninstalled); both kinds run with the environment the test gives
(typelib, library and plugin of the build folder)."""
import os
import re
import subprocess
import sys
import tempfile

from tap import Tap

BLOCK = re.compile(r"^```(c|python)\n(.*?)^```$", re.S | re.M)
TRACK_PRINTED = re.compile(r"\btrack [1-9][0-9]*\b")


def element_tracks():
    """Whether cudaccl tracks by default here (None: no cudaccl or no PyGObject)."""
    try:
        import gi
        gi.require_version("Gst", "1.0")
        from gi.repository import Gst
    except (ImportError, ValueError):
        return None
    Gst.init(None)
    element = Gst.ElementFactory.make("cudaccl", None)
    if element is None:
        return None
    spec = element.find_property("tracking")
    return bool(spec and spec.default_value)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def main(argv):
    doc, build = argv
    with open(doc) as f:
        text = f.read()
    blocks = BLOCK.findall(text)
    if not blocks:
        Tap.skip_all(f"no code blocks in {doc}")
    tap = Tap()
    tracks = element_tracks()
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(build, "meson-uninstalled"))
    with tempfile.TemporaryDirectory(prefix="ccl-doc.") as tmp:
        for n, (lang, code) in enumerate(blocks, 1):
            first = text[:text.index(code)].count("\n") + 1
            name = f"docs/METADATA.md {lang} block {n} (line {first})"
            if lang == "c":
                src, exe = os.path.join(tmp, f"block{n}.c"), os.path.join(tmp, f"block{n}")
                with open(src, "w") as f:
                    f.write(code)
                flags = run(["pkg-config", "--cflags", "--libs", "gstreamer-ccl-1.0"], env=env)
                r = run(["cc", "-Wall", "-Wno-unused-parameter", "-Werror", src, "-o", exe]
                        + flags.stdout.split(), env=env)
                if r.returncode != 0:
                    tap.case(name + " compiles", False, flags.stderr + r.stderr)
                    continue
                r = run([exe], env=env)
            else:
                r = run([sys.executable, "-c", code], env=env)
            tap.case(name + " runs and prints", r.returncode == 0 and r.stdout.strip() != "",
                     f"exit {r.returncode}\n{r.stdout[-1000:]}{r.stderr[-2000:]}")
            if "track_id" not in code:
                continue
            if "cudaccl" in code and not tracks:
                tap.skip(name + " prints track ids", "cudaccl does not track by default here")
            else:
                tap.case(name + " prints track ids", TRACK_PRINTED.search(r.stdout) is not None,
                         r.stdout[-1000:])
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
