#!/usr/bin/python3
"""cudaccl.Labeler's counting lines and zones (lines=, zones=, zone_max=; the C
interface's ccl_events_*) on a synthetic clip of squares moving across lines and through
zones: every frame's counts and events against a plain reimplementation of the rules of
docs/EVENTS.md, fed the same frame's centroid and track_id columns. Also untracked
counting, bad values, reset(). CPU backend. Prints TAP.

    events_test.py"""
import sys

import numpy as np

from cudaccl_support import import_cudaccl, raises
from tap import Tap

cudaccl = import_cudaccl()
tap = Tap()

W, H = 200, 120
# Line 0 is walked upwards, so its positive side is x > 100 (moving right is forward).
LINES = [(100, 120, 100, 0), (20, 20, 180, 100), (30, 60, 70, 60)]
ZONE0 = [(110, 20), (170, 20), (170, 80), (110, 80)]
ZONE1 = [10, 70, 60, 115, 10, 115]  # flat x, y numbers: a triangle
ZONES = [ZONE0, ZONE1]
ZONE_MAX = [1]  # zone 1: no limit
FORGET = 30  # the counter's default forget_after

# Squares of 6 x 6 pixels (centroids on half pixels: never on a zone's edge): top-left
# (x0, y0) at frame `first`, moving (vx, vy) a frame, shown for frames first..last.
SQUARES = [
    (2, 10, 4, 0, 0, 45),     # along the top, across line 0
    (190, 30, -5, 0, 0, 38),  # leftwards through zone 0, across lines 0 and 1
    (10, 45, 5, 0, 5, 30),    # vanishes inside zone 0: forgotten 30 frames later
    (120, 60, 3, 0, 10, 50),  # starts inside zone 0 with others: zone-max
    (5, 100, 2, 0, 0, 69),    # through zone 1
    (50, 40, 0, 3, 20, 44),   # downwards across line 2, into zone 1
]
FRAMES = 70


def clip():
    frames = []
    for t in range(FRAMES):
        f = np.zeros((H, W), np.uint8)
        for x0, y0, vx, vy, first, last in SQUARES:
            if first <= t <= last:
                x, y = x0 + vx * (t - first), y0 + vy * (t - first)
                f[max(y, 0):y + 6, max(x, 0):x + 6] = 255
        frames.append(f)
    return frames


def time_of(t):
    return 1_000_000 + 40_000_000 * t


def side(line, x, y):
    x1, y1, x2, y2 = line
    return (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1) > 0


def orient(ax, ay, bx, by, px, py):
    v = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
    return (v > 0) - (v < 0)


def meets(line, px, py, qx, qy):
    """Whether the step P->Q meets the segment, end points included (P and Q lie on
    different sides, so the two are never collinear)."""
    x1, y1, x2, y2 = line
    return (orient(x1, y1, x2, y2, px, py) * orient(x1, y1, x2, y2, qx, qy) <= 0 and
            orient(px, py, qx, qy, x1, y1) * orient(px, py, qx, qy, x2, y2) <= 0)


def inside(points, x, y):
    """Even-odd rule, counting an edge when y is in [its lower y, its upper y) and it is
    to the right of the point."""
    crossings = 0
    for (ax, ay), (bx, by) in zip(points, points[1:] + points[:1]):
        if ay != by and min(ay, by) <= y < max(ay, by):
            if ax + (y - ay) * (bx - ax) / (by - ay) > x:
                crossings += 1
    return crossings % 2 == 1


class Model:
    """docs/EVENTS.md's rules, written plainly: tracks in a dict by id."""

    def __init__(self, lines, zones, zone_max):
        self.lines = lines
        self.zones = [list(z) if isinstance(z[0], tuple) else list(zip(z[::2], z[1::2]))
                      for z in zones]
        self.max = list(zone_max) + [0] * (len(zones) - len(zone_max))
        self.reset()

    def reset(self):
        self.forward = [0] * len(self.lines)
        self.backward = [0] * len(self.lines)
        self.count = [0] * len(self.zones)
        self.entries = [0] * len(self.zones)
        self.exits = [0] * len(self.zones)
        self.tracks = {}  # id -> {"x", "y", "seen" (update index), "stays": {zone: [frames, entry time]}}
        self.updates = 0

    def update(self, ids, xs, ys, frame, now):
        events = []
        before = self.count
        self.count = [0] * len(self.zones)
        seen = set()
        for track_id, x, y in zip(ids, xs, ys):
            ins = [inside(z, x, y) for z in self.zones]
            for z, i in enumerate(ins):
                self.count[z] += i
            if track_id == 0 or track_id in seen:
                continue
            seen.add(track_id)
            old = self.tracks.get(track_id)
            stays = old["stays"] if old else {}
            if old:
                for k, line in enumerate(self.lines):
                    a, b = side(line, old["x"], old["y"]), side(line, x, y)
                    if a != b and meets(line, old["x"], old["y"], x, y):
                        kind = "line-forward" if b else "line-backward"
                        (self.forward if b else self.backward)[k] += 1
                        events.append((kind, k, track_id, 0, x, y, frame, now, 0))
            for z, i in enumerate(ins):
                if i and z not in stays:
                    stays[z] = [1, now]
                    self.entries[z] += 1
                    events.append(("zone-enter", z, track_id, 1, x, y, frame, now, now))
                elif i:
                    stays[z][0] += 1
                elif z in stays:
                    frames, entered = stays.pop(z)
                    self.exits[z] += 1
                    events.append(("zone-exit", z, track_id, frames, x, y, frame, now, entered))
            self.tracks[track_id] = {"x": x, "y": y, "seen": self.updates, "stays": stays}
        for track_id in sorted(self.tracks):
            t = self.tracks[track_id]
            if self.updates - t["seen"] >= FORGET:
                for z in sorted(t["stays"]):
                    frames, entered = t["stays"][z]
                    self.exits[z] += 1
                    events.append(("zone-exit", z, track_id, frames, t["x"], t["y"], frame,
                                   now, entered))
                del self.tracks[track_id]
        for z, m in enumerate(self.max):
            if m and self.count[z] > m and before[z] <= m:
                events.append(("zone-max", z, 0, self.count[z], 0.0, 0.0, frame, now, 0))
        self.updates += 1
        return events


def compare(table, model, events, where):
    got = {"line_forward": table.line_forward, "line_backward": table.line_backward,
           "zone_count": table.zone_count, "zone_entries": table.zone_entries,
           "zone_exits": table.zone_exits}
    want = {"line_forward": model.forward, "line_backward": model.backward,
            "zone_count": model.count, "zone_entries": model.entries,
            "zone_exits": model.exits}
    for name, values in got.items():
        assert values.tolist() == want[name], f"{where}: {name} {values.tolist()} != {want[name]}"
    assert table.line_forward.dtype == np.uint64 and table.zone_count.dtype == np.uint32
    assert [tuple(e) for e in table.events] == events, \
        f"{where}: events {[tuple(e) for e in table.events]} != {events}"


def run(lab, model, frames, tracked=True):
    """Feeds the clip; returns every frame's events, and what was seen at all."""
    all_events = []
    for t, f in enumerate(frames):
        _, table = lab(f, running_time=time_of(t))
        n = len(table["label"])
        ids = [int(i) % (1 << 32) for i in table["track_id"]] if tracked else [0] * n
        want = model.update(ids, [float(x) for x in table["centroid-1"]],
                            [float(y) for y in table["centroid-0"]], t, time_of(t))
        compare(table, model, want, f"frame {t}")
        all_events.append(want)
    return all_events


def main():
    frames = clip()
    model = Model(LINES, ZONES, ZONE_MAX)
    lab = cudaccl.Labeler(backend="cpu", lines=LINES, zones=ZONES, zone_max=ZONE_MAX)
    first = []

    def tracked():
        first.extend(run(lab, model, frames))
        kinds = {e[0] for events in first for e in events}
        assert kinds == {"line-forward", "line-backward", "zone-enter", "zone-exit",
                         "zone-max"}, f"the clip shows only {kinds}"
        # The square that vanished inside zone 0 was forgotten there.
        forgotten = [e for events in first for e in events
                     if e[0] == "zone-exit" and e[6] == 30 + FORGET]
        assert forgotten, "no exit of a forgotten track"
    tap.check("tracked: every frame's counts and events equal the rules' (crossings both "
              "ways, entries, exits, a forgotten track's exit, zone-max)", tracked)

    def reset():
        lab.reset()
        model.reset()
        again = run(lab, model, frames)
        assert again == first, "the clip after reset() gives other events"
    tap.check("reset(): counts zeroed, frames from 0, the same events again", reset)

    def dwell_inside():
        lab.reset()
        for t in range(8):
            _, table = lab(frames[t], running_time=time_of(t))
        rows = np.nonzero(table["centroid-0"] > 100)[0]  # the square along the bottom
        assert len(rows) == 1, table["centroid-0"]
        d = lab.dwell(int(table["track_id"][rows[0]]), 1)
        # Its centroid x is 5 + 2t + 2.5: inside from t = 2 (x 11.5), so 6 frames by t = 7.
        assert d is not None and d.frames == 6 and d.entry_frame == 2, d
        assert d.entry_time == time_of(2), d
        assert lab.dwell(int(table["track_id"][rows[0]]), 0) is None
        raises(ValueError, lambda: lab.dwell(1, 2), "zone 2")
    tap.check("dwell(): frames inside since the entry, its frame and time; no such zone",
              dwell_inside)

    def untracked():
        plain = cudaccl.Labeler(backend="cpu", track=False, lines=LINES, zones=ZONES,
                                zone_max=ZONE_MAX)
        m = Model(LINES, ZONES, ZONE_MAX)
        events = run(plain, m, frames, tracked=False)
        kinds = {e[0] for ev in events for e in ev}
        assert kinds == {"zone-max"}, kinds
        assert m.forward == [0, 0, 0] and m.entries == [0, 0]
    tap.check("track=False: zones count and overcrowd, nothing crosses or enters", untracked)

    def absent():
        _, table = cudaccl.Labeler(backend="cpu")(frames[0])
        assert not hasattr(table, "line_forward") and not hasattr(table, "events")
        _, table = cudaccl.Labeler(backend="cpu", zones=[ZONE0])(frames[0])
        assert table.line_forward.tolist() == [] and table.zone_count.tolist() == [0]
    tap.check("without lines or zones the table has no counts; zones alone: no line counts",
              absent)

    def faulty():
        L = cudaccl.Labeler
        raises(ValueError, lambda: L(lines=[(5, 5, 5, 5)]), "line 0", "identical")
        raises(ValueError, lambda: L(lines=[(1, 2, 3)]), "(x1, y1, x2, y2)")
        raises(ValueError, lambda: L(lines=(1, 2, 3, 4)), "a single line too")
        raises(ValueError, lambda: L(lines=[(0, 0, float("nan"), 1)]), "not finite")
        raises(ValueError, lambda: L(lines=[(0, 0, "a", 1)]), "numbers")
        raises(ValueError, lambda: L(lines=[(0, 0, 1, 1)] * 65), "65 lines", "at most 64")
        raises(ValueError, lambda: L(zones=[[(0, 0), (5, 5)]]), "zone 0", "at least 3")
        raises(ValueError, lambda: L(zones=[ZONE0, [0, 0, 5, 5, 9]]), "zone 1")
        raises(ValueError, lambda: L(zones=[(0, 0), (5, 0), (5, 5)]), "a single zone is")
        raises(ValueError, lambda: L(zones=[ZONE0], zone_max=[1, 2]), "2 limits for 1 zones")
        raises(ValueError, lambda: L(zones=[ZONE0], zone_max=[-1]), "zone_max[0]")
        raises(TypeError, lambda: L(zones=[ZONE0], zone_max=3), "zone_max")
        big = L(backend="cpu", zones=[[(0, 0), (300, 0), (300, 50)]])
        raises(ValueError, lambda: big(frames[0]), "outside the 200x120 frame")
        raises(ValueError, lambda: big(frames[0]), "outside")  # still refused
        raises(TypeError, lambda: lab(frames[0], running_time="now"), "running_time")
        raises(ValueError, lambda: cudaccl.Labeler().dwell(1, 0), "no zones")
    tap.check("bad lines, zones, zone_max and running_time raise with the C message", faulty)
    lab.close()
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
