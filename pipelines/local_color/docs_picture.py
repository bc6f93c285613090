#!/usr/bin/python3
"""Stacks the page's two overlay pictures, foreground=local above Otsu's level, into
the picture of docs/FOREGROUND.md.

    docs_picture.py LOCAL_PNG OTSU_PNG OUT_PNG

A white band of 4 pixels separates them; the result is checked to stay under 300 KB."""
import os
import sys

from PIL import Image


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    top, bottom = (Image.open(p).convert("RGB") for p in argv[:2])
    if top.size != bottom.size:
        print(f"docs_picture.py: {argv[0]} is {top.size}, {argv[1]} {bottom.size}", file=sys.stderr)
        return 1
    w, h = top.size
    out = Image.new("RGB", (w, 2 * h + 4), "white")
    out.paste(top, (0, 0))
    out.paste(bottom, (0, h + 4))
    out.save(argv[2], optimize=True)
    size = os.path.getsize(argv[2])
    print(f"docs picture: {argv[2]} ({w}x{2 * h + 4}, {size // 1024} KB)")
    return 0 if size < 300 * 1024 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
