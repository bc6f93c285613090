#!/usr/bin/python3
"""cudaccl.Tracker and cudaccl.Labeler's tracks against ccl::Tracker (C++) on the tracking
scenes of tests/common/scenes.h, and the Tracker on skimage's tables. Prints TAP.

    tracker_test.py SCENE_TABLES_TOOL WORK_DIR

SCENE_TABLES_TOOL (tests/capi/scene_tables.cpp) writes each scene's frames and, per
frame, the reference component table with the C++ tracker's ids. Here the same tables
go through cudaccl.Tracker (from regionprops-style columns: bbox, area, centroid), the
frames through cudaccl.Labeler (CPU backend), and both must give the C++ ids, parents,
ages and unseen counts."""
import os
import subprocess
import sys

import numpy as np

from cudaccl_support import import_cudaccl, raises
from tap import Tap

cudaccl = import_cudaccl()
tap = Tap()


def read_tables(path):
    """[(name, width, height, max_lost, [frame rows as an (n, 15) int64 array])]"""
    scenes = []
    with open(path) as f:
        lines = iter(f.read().splitlines())
    for line in lines:
        parts = line.split()
        if parts[0] == "scene":
            scenes.append((parts[1], int(parts[2]), int(parts[3]), int(parts[5]), []))
            frames = int(parts[4])
            for _ in range(frames):
                head = next(lines).split()
                n = int(head[2])
                rows = [list(map(int, next(lines).split())) for _ in range(n)]
                scenes[-1][4].append(np.array(rows, np.int64).reshape(n, 15))
    return scenes


def table_of(rows):
    """regionprops_table-style columns of the C++ table rows."""
    label, x, y, w, h, area, sx, sy = (rows[:, i] for i in range(8))
    return {"label": label, "bbox-0": y, "bbox-1": x, "bbox-2": y + h, "bbox-3": x + w,
            "area": area, "centroid-0": sy / np.maximum(area, 1),
            "centroid-1": sx / np.maximum(area, 1)}


def check_tracks(got, rows, where):
    for col, i in (("track_id", 11), ("parent_id", 12), ("age", 13), ("frames_unseen", 14)):
        want = rows[:, i]
        assert np.array_equal(got[col], want), f"{where}: {col} {got[col].tolist()} != {want.tolist()}"


def main():
    if len(sys.argv) != 3:
        print("usage: tracker_test.py SCENE_TABLES_TOOL WORK_DIR", file=sys.stderr)
        return 2
    tool, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    r = subprocess.run([tool, work], capture_output=True, text=True)
    if r.returncode != 0:
        tap.case("scene-tables ran", False, r.stdout + r.stderr)
        return tap.finish()
    scenes = read_tables(os.path.join(work, "tables.txt"))
    tap.case("scene-tables wrote the scenes", len(scenes) >= 10, f"{len(scenes)} scenes")

    for name, width, height, max_lost, frames in scenes:
        def tables(name=name, width=width, height=height, max_lost=max_lost, frames=frames):
            tracker = cudaccl.Tracker(max_lost=max_lost)
            for t, rows in enumerate(frames):
                got = tracker.update(table_of(rows), (height, width))
                check_tracks(got, rows, f"frame {t}")
                assert np.array_equal(got["label"], rows[:, 0])
        tap.check(f"{name}, max_lost {max_lost}: Tracker on the tables gives the C++ ids", tables)

        def frames_run(name=name, width=width, height=height, max_lost=max_lost, frames=frames):
            raw = np.fromfile(os.path.join(work, name + ".raw"), np.uint8)
            video = raw.reshape(len(frames), height, width)
            with cudaccl.Labeler(backend="cpu", max_lost=max_lost) as lab:
                for t, rows in enumerate(frames):
                    labels, table = lab(video[t])
                    assert labels.shape == (height, width)
                    assert np.array_equal(table["area"], rows[:, 5]), f"frame {t}: areas"
                    assert np.array_equal(table["moments_image-0-1"], rows[:, 6])
                    check_tracks(table, rows, f"frame {t}")
                    v = table["velocity-1"]
                    assert v.dtype == np.float64 and np.all(np.isfinite(v))
        tap.check(f"{name}, max_lost {max_lost}: Labeler on the frames gives the C++ ids",
                  frames_run)

    def reset_ids():
        name, width, height, max_lost, frames = scenes[0]
        tracker = cudaccl.Tracker(max_lost=max_lost)
        first = [tracker.update(table_of(rows), (height, width))["track_id"] for rows in frames]
        tracker.reset(reset_ids=True)
        again = [tracker.update(table_of(rows), (height, width))["track_id"] for rows in frames]
        assert all(np.array_equal(a, b) for a, b in zip(first, again))
        tracker.reset()
        after = tracker.update(table_of(frames[0]), (height, width))["track_id"]
        assert after.min() > max(int(a.max()) for a in first if len(a)), "ids were reused"
    tap.check("reset(reset_ids=True) starts ids at 1, reset() never reuses them", reset_ids)

    try:
        import skimage.measure as measure
    except ImportError:
        tap.skip("Tracker on skimage regionprops tables", "skimage is missing")
    else:
        def skimage_tables():
            name, width, height, max_lost, frames = next(s for s in scenes if s[0] == "walkers")
            raw = np.fromfile(os.path.join(work, name + ".raw"), np.uint8)
            video = raw.reshape(len(frames), height, width)
            tracker = cudaccl.Tracker(max_lost=max_lost)
            for t, rows in enumerate(frames):
                table = measure.regionprops_table(measure.label(video[t] > 128, connectivity=2),
                                                  properties=("label", "bbox", "area", "centroid"))
                check_tracks(tracker.update(table, video[t].shape), rows, f"frame {t}")
        tap.check("Tracker on skimage regionprops_table tables gives the C++ ids", skimage_tables)

    tracker = cudaccl.Tracker()
    good = table_of(scenes[0][4][0])
    cases = [
        ("not a dict", TypeError, lambda: tracker.update([1, 2], (10, 10)), "dict"),
        ("no area", ValueError, lambda: tracker.update({"bbox-0": [1]}, (10, 10)), "area"),
        ("no bbox", ValueError,
         lambda: tracker.update({"area": good["area"]}, (10, 10)), "bbox-0"),
        ("no centroid", ValueError, lambda: tracker.update(
            {k: v for k, v in good.items() if not k.startswith("centroid")}, (100, 100)),
         "centroid"),
        ("ragged columns", ValueError, lambda: tracker.update(
            dict(good, **{"bbox-2": good["bbox-2"][:-1]}), (100, 100)), "bbox-2"),
        ("NaN centroid", ValueError, lambda: tracker.update(
            dict(good, **{"centroid-0": good["centroid-0"] * np.nan}), (100, 100)), "NaN"),
        ("zero area", ValueError, lambda: tracker.update(
            dict(good, area=good["area"] * 0), (100, 100)), "area"),
        ("bad shape", TypeError, lambda: tracker.update(good, "big"), "shape"),
        ("empty shape", ValueError, lambda: tracker.update(good, (0, 5)), "empty"),
    ]
    for name, exc, fn, word in cases:
        tap.check(f"bad table: {name} raises {exc.__name__}", lambda: raises(exc, fn, word))
    check_grouping_and_light()
    return tap.finish()


def check_grouping_and_light():
    """The Labeler's group_gap and compensate_light reach the engine."""
    frame = np.zeros((40, 60), np.uint8)
    frame[5:15, 5:11] = 255    # 60 pixels
    frame[7:17, 17:21] = 255   # 40 pixels, 6 empty columns to the right of the first
    for gap, areas in ((-1, [60, 40]), (5, [60, 40]), (6, [100])):
        with cudaccl.Labeler(backend="cpu", group_gap=gap, track=False) as lab:
            _, table = lab(frame)
            tap.check(f"Labeler(group_gap={gap}) reports areas {areas}",
                      lambda: list(table["area"]) == areas)
    with cudaccl.Labeler(backend="cpu", group_gap=6, min_area=80, track=False) as lab:
        _, table = lab(frame)
        tap.check("min_area applies to the group", lambda: list(table["area"]) == [100])
    tap.check("group_gap out of range raises ValueError",
              lambda: raises(ValueError, lambda: cudaccl.Labeler(group_gap=-2), "group_gap"))
    rng = np.random.default_rng(3)
    scene = rng.integers(40, 160, (48, 64), dtype=np.uint8)
    for compensate in (True, False):
        with cudaccl.Labeler(backend="cpu", foreground="background", track=False,
                             compensate_light=compensate, detect_shadows=False) as lab:
            for _ in range(10):
                lab(scene)
            _, table = lab(np.minimum(scene * 1.35, 255).astype(np.uint8))
            largest = int(table["area"].max()) if len(table["area"]) else 0
            if compensate:
                tap.check("compensate_light=True: a 35 % brighter frame is no object",
                          lambda: largest < scene.size // 100)
            else:
                tap.check("compensate_light=False: a 35 % brighter frame floods",
                          lambda: largest > scene.size // 4)


if __name__ == "__main__":
    sys.exit(main())
