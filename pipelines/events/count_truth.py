#!/usr/bin/python3
"""Compares what cudaccl counted on the synthetic tracking scene with the scene's own
truth: the crossings and zone entries of the discs' centers, from the paths that
make_scene.py drew them on.

    count_truth.py METADATA_LOG --frames N --width W --height H
                   --lines X1,Y1,X2,Y2[;...] --zones X1,Y1,...[;...] [--csv OUT]

METADATA_LOG holds the element's messages, one per line as gst-launch-1.0 -m prints
them (the "cudaccl" frame messages and the "cudaccl-event" messages). The truth
follows the counting's rules (docs/EVENTS.md): a disc crosses a line when the segment
from its center in the previous frame it was drawn in to its center now meets the
line, forward from the line's negative side to its positive side; it enters a zone
when its center is inside and was not in its previous frame. Prints a table and exits
1 when a count differs."""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tracking"))
import make_scene  # noqa: E402


def side(line, x, y):
    x1, y1, x2, y2 = line
    return (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)


def orient(ax, ay, bx, by, cx, cy):
    v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    return (v > 0) - (v < 0)


def meets(line, ax, ay, bx, by):
    x1, y1, x2, y2 = line
    return (orient(ax, ay, bx, by, x1, y1) * orient(ax, ay, bx, by, x2, y2) <= 0 and
            orient(x1, y1, x2, y2, ax, ay) * orient(x1, y1, x2, y2, bx, by) <= 0)


def inside(poly, x, y):
    n, c = len(poly), False
    for i in range(n):
        xi, yi = poly[i]
        xj, yj = poly[i - 1]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            c = not c
    return c


def truth(frames, width, height, lines, zones):
    """Per line (forward, backward) and per zone entries, from the scene's paths."""
    sx, sy = width / make_scene.BASE_W, height / make_scene.BASE_H
    st = make_scene.BASE_FRAMES / frames
    last = {}
    fwd, bwd = [0] * len(lines), [0] * len(lines)
    entries = [0] * len(zones)
    for i in range(frames):
        for name, x, y, _, _ in make_scene.objects(i * st):
            x, y = x * sx, y * sy
            if not (0 <= x < width and 0 <= y < height):
                continue  # a disc off the frame is not seen
            ins = [inside(z, x, y) for z in zones]
            if name in last:
                px, py, pins = last[name]
                for k, ln in enumerate(lines):
                    before, after = side(ln, px, py) > 0, side(ln, x, y) > 0
                    if before != after and meets(ln, px, py, x, y):
                        (fwd if after else bwd)[k] += 1
                for z in range(len(zones)):
                    entries[z] += ins[z] and not pins[z]
            else:
                for z in range(len(zones)):
                    entries[z] += ins[z]
            last[name] = (x, y, ins)
    return fwd, bwd, entries


def numbers(field, text):
    m = re.search(field + r"=\(\w+\)<\s*([^>]*)>", text)
    return [int(v) for v in m.group(1).replace(" ", "").split(",") if v] if m else None


def counted(log):
    """The last frame's cumulative counts and the number of each event kind."""
    last, events = None, {}
    with open(log) as f:
        for row in f:
            if row.startswith("cudaccl-event"):
                kind = re.search(r"event=\(string\)([\w-]+)", row).group(1)
                events[kind] = events.get(kind, 0) + 1
            elif row.startswith("cudaccl,"):
                last = row
    if last is None:
        sys.exit("count_truth.py: no cudaccl frame message in " + log)
    return (numbers("line-forward", last), numbers("line-backward", last),
            numbers("zone-entries", last), numbers("zone-exits", last), events)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--frames", type=int, required=True)
    ap.add_argument("--width", type=int, required=True)
    ap.add_argument("--height", type=int, required=True)
    ap.add_argument("--lines", default="")
    ap.add_argument("--zones", default="")
    ap.add_argument("--csv")
    a = ap.parse_args(argv)
    lines = [tuple(float(v) for v in s.split(",")) for s in a.lines.split(";") if s]
    zones = [[(float(p[k]), float(p[k + 1])) for k in range(0, len(p), 2)]
             for p in (s.split(",") for s in a.zones.split(";") if s)]
    t_fwd, t_bwd, t_ent = truth(a.frames, a.width, a.height, lines, zones)
    fwd, bwd, ent, ext, events = counted(a.log)
    rows = []
    for k in range(len(lines)):
        rows.append((f"line {k} forward", fwd[k] if fwd else None, t_fwd[k]))
        rows.append((f"line {k} backward", bwd[k] if bwd else None, t_bwd[k]))
    for z in range(len(zones)):
        rows.append((f"zone {z} entries", ent[z] if ent else None, t_ent[z]))
    print(f"{'count':<20} {'cudaccl':>8} {'scene':>6}")
    for name, got, want in rows:
        print(f"{name:<20} {got if got is not None else '-':>8} {want:>6}"
              f"{'' if got == want else '   differs'}")
    if zones and ext:
        print("zone exits: " + ", ".join(f"zone {z}: {v}" for z, v in enumerate(ext)))
    print("events posted: " + (", ".join(f"{k} {v}" for k, v in sorted(events.items()))
                               or "none"))
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("count,cudaccl,scene\n")
            for name, got, want in rows:
                f.write(f"{name},{'' if got is None else got},{want}\n")
    return 0 if all(got == want for _, got, want in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
