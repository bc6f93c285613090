#!/usr/bin/env python3
"""The fast call path of cudaccl.label and Labeler: settings checked once and kept
(cached per combination), tables whose columns are made when first read, and what
must not change because of either. Public behaviour only. Prints TAP; the CuPy half
runs where CuPy and a usable CUDA device are.

    PYTHONPATH=<build>/python [CUDACCL_LIBRARY=<libccl.so>] python3 call_path_test.py"""
import copy
import gc
import os
import pickle
import sys
import threading

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cudaccl_support import import_cudaccl, raises, yacclab_random  # noqa: E402
from tap import Tap  # noqa: E402

cudaccl = import_cudaccl()
tap = Tap()


def image(h, w, seed, dtype=np.uint8):
    img = yacclab_random(h, w, 0.5, 2, seed=seed).astype(dtype)
    return img * (dtype(60000) if dtype == np.uint16 else dtype(255))


def as_numpy(v):
    if isinstance(v, np.ndarray):
        return v
    if type(v).__module__.startswith("cupy"):
        return v.get()
    return v.cpu().numpy()


def same_columns(a, b, what):
    a, b = dict(a.items()), dict(b.items())
    assert list(a) == list(b), f"{what}: columns {list(a)} != {list(b)}"
    for k in a:
        x, y = as_numpy(a[k]), as_numpy(b[k])
        assert x.dtype == y.dtype and np.array_equal(x, y), f"{what}: column {k} differs"


def every_read(table, want, what):
    """Each way of reading a table gives the same columns as `want` (a plain dict of
    NumPy arrays); run on a fresh table per way, so that nothing was made before."""
    for name, read in [
            ("indexing", lambda t: {k: t[k] for k in t}),
            ("get", lambda t: {k: t.get(k) for k in t.keys()}),
            ("items", lambda t: dict(t.items())),
            ("values", lambda t: dict(zip(t.keys(), t.values()))),
            ("dict()", lambda t: dict(t)),
            ("**", lambda t: {**t}),
            ("update", lambda t: (lambda d: (d.update(t), d)[1])({})),
            ("copy", lambda t: t.copy()),
            ("copy.copy", lambda t: copy.copy(t)),
            ("pickle", lambda t: pickle.loads(pickle.dumps(t))),
            ("| {}", lambda t: t | {}),
            ("{} |", lambda t: {} | t)]:
        got = read(table())
        assert type(got) is dict or name in ("copy.copy",), f"{what} {name}: {type(got)}"
        same_columns(got, want, f"{what} {name}")
    t = table()
    assert "<column" not in repr(t) and "array" in repr(t), f"{what}: repr {repr(t)[:80]}"
    t = table()
    assert len(t) == len(want) and set(t) == set(want), f"{what}: keys"
    t = table()
    first = t["area"]
    assert t["area"] is first, f"{what}: a column is made once and kept"
    assert t.pop("area") is first and "area" not in t, f"{what}: pop"


def host_cases():
    img = image(120, 160, 1)

    def lazy_reads():
        want = {k: np.array(v) for k, v in cudaccl.label(img, backend="cpu")[1].items()}
        every_read(lambda: cudaccl.label(img, backend="cpu")[1], want, "label")
        lab = cudaccl.Labeler(backend="cpu", max_lost=3)
        tracked = lab(img)[1]
        want_tracks = {k: np.array(v) for k, v in tracked.items()}
        assert "track_id" in want_tracks and len(want_tracks["track_id"]) == len(want["label"])
        state = {}

        def fresh():
            # The same frame again: every component keeps its track, so each table
            # holds the same columns; age grows, so it is compared on its own.
            t = lab(img)[1]
            state["age"] = np.array(t["age"])
            return t
        for name, read in [("indexing", lambda t: {k: t[k] for k in t}),
                           ("items", lambda t: dict(t.items())), ("dict()", dict)]:
            got = read(fresh())
            for k in want_tracks:
                if k not in ("age",):
                    assert np.array_equal(as_numpy(got[k]), want_tracks[k]), f"Labeler {name}: {k}"
        lab.close()
    tap.check("host tables: every way of reading gives the columns (label, Labeler tracks)",
              lazy_reads)

    def tracks_equal_tracker():
        frames = [image(90, 120, s) for s in (3, 3, 4)]
        lab = cudaccl.Labeler(backend="cpu", max_lost=5)
        tracker = cudaccl.Tracker(max_lost=5)
        for f in frames:
            labels, table = lab(f)
            _, plain = cudaccl.label(f, backend="cpu")
            want = tracker.update(plain, f.shape)
            for k in want:
                assert np.array_equal(as_numpy(table[k]), np.asarray(want[k])), k
        lab.close()
        tracker.close()
    tap.check("Labeler's track columns, made when read, equal Tracker.update's", tracks_equal_tracker)

    def changing_calls():
        # One after another on the same thread: shapes, dtypes, strides and settings
        # change every call; each result must be the one the call asked for.
        base = image(64, 80, 5)
        deep = image(50, 70, 6, np.uint16)
        rgb = np.stack([base, 255 - base, base // 2], axis=2)
        calls = [
            (base, {}), (base[:, 3:70], {}), (deep, {}), (base, dict(connectivity=4)),
            (rgb, {}), (base, dict(threshold=10, mode="below")), (deep[::2], {}),
            (base, dict(min_area=5)), (base, dict(max_components=3)), (base, {}),
            (base, dict(return_labels=False)), (base.T.copy(), {}), (base, dict(mode="otsu")),
            (rgb[:, :, :], dict(connectivity=4)), (base, {})]
        for _ in range(2):
            for img_, kw in calls:
                labels, table = cudaccl.label(img_, backend="cpu", **kw)
                fresh = {}
                exec("import cudaccl", fresh)
                # The same call through a path that caches nothing of this one: a new
                # Labeler checks its settings anew.
                lab = cudaccl.Labeler(backend="cpu", track=False,
                                      **{k: v for k, v in kw.items()})
                want_labels, want = lab(img_)
                lab.close()
                if kw.get("return_labels") is False:
                    assert labels is None and want_labels is None
                else:
                    assert labels.shape == img_.shape[:2] and np.array_equal(labels, want_labels), kw
                same_columns(table, want, f"{img_.shape} {img_.dtype} {kw}")
    tap.check("calls that change shape, dtype, strides and settings each get their own "
              "result", changing_calls)

    def checks_not_skipped_by_the_cache():
        g = image(10, 12, 7)
        cudaccl.label(g, threshold=5)  # kept: an integer 5
        raises(TypeError, lambda: cudaccl.label(g, threshold=5.0), "integer")
        cudaccl.label(g, min_area=1)
        raises(TypeError, lambda: cudaccl.label(g, min_area=True), "integer")
        cudaccl.label(g, connectivity=4)
        raises(ValueError, lambda: cudaccl.label(g, connectivity=6), "4 or 8")
        cudaccl.label(g, max_components=1)
        raises(TypeError, lambda: cudaccl.label(g, max_components=1.0), "integer")
        cudaccl.label(g, min_circularity=0.5)
        raises(TypeError, lambda: cudaccl.label(g, min_circularity=True), "number")
        raises(ValueError, lambda: cudaccl.label(g, properties=["area", "nonsense"]), "nonsense")
        cudaccl.label(g, properties=["perimeter"])  # a list: unhashable, still accepted
        t = cudaccl.label(g, properties=["perimeter"])[1]
        assert "perimeter" in t
    tap.check("settings equal as numbers but of another type are still checked",
              checks_not_skipped_by_the_cache)

    def results_independent():
        a, b = image(70, 90, 8), image(70, 90, 9)
        la, ta = cudaccl.label(a, backend="cpu")
        keep = {k: np.array(v) for k, v in ta.items()}
        lb, tb = cudaccl.label(b, backend="cpu")
        same_columns(ta, keep, "an earlier table, read after a later call")
    tap.check("a table read after later calls holds its own frame's columns", results_independent)


def cupy_cases():
    try:
        import cupy
    except ImportError:
        tap.skip("CuPy tables", "CuPy is not installed")
        return
    if not cudaccl.cuda_usable():
        tap.skip("CuPy tables", "no usable CUDA device")
        return
    host = image(300, 400, 11)
    dev = cupy.asarray(host)

    def lazy_device_reads():
        want = cudaccl.label(host, backend="cpu")[1]
        every_read(lambda: cudaccl.label(dev)[1], {k: np.asarray(v) for k, v in want.items()},
                   "CuPy")
        t = cudaccl.label(dev)[1]
        assert all(type(v).__module__.startswith("cupy") for v in t.values())
    tap.check("CuPy tables: every way of reading gives the CPU backend's columns",
              lazy_device_reads)

    def read_later_on_busy_stream():
        # The columns are written on the producer's stream: read (copied to the host)
        # after more work was queued there and after later calls, they hold this frame.
        want = cudaccl.label(host, backend="cpu")[1]
        other = cupy.asarray(image(300, 400, 12))
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            img = cupy.asarray(host)
            labels, table = cudaccl.label(img)
            for _ in range(5):
                cudaccl.label(other)
            img[...] = 0  # queued after the frame's work on the same stream
            got = {k: table[k].get() for k in table}  # copies on s: waits for the columns
            same_columns(got, want, "CuPy table read later on its stream")
            assert np.array_equal(labels.get(), cudaccl.label(host, backend="cpu")[0])
        s.synchronize()
    tap.check("CuPy: a table read after later work and calls holds its frame's columns",
              read_later_on_busy_stream)

    def changing_device_calls():
        imgs = [image(h, w, s) for h, w, s in [(20, 30, 1), (300, 400, 2), (1, 50, 3),
                                               (77, 33, 4)]]
        deep = image(40, 60, 5, np.uint16)
        for _ in range(2):
            for img in imgs + [deep]:
                for kw in ({}, dict(connectivity=4), dict(min_area=3), dict(return_labels=False)):
                    labels, table = cudaccl.label(cupy.asarray(img), **kw)
                    want_labels, want = cudaccl.label(img, backend="cpu", **kw)
                    if want_labels is None:
                        assert labels is None
                    else:
                        assert np.array_equal(labels.get(), want_labels), (img.shape, kw)
                    same_columns(table, want, f"CuPy {img.shape} {img.dtype} {kw}")
    tap.check("CuPy: calls that change shape, dtype and settings each get their own result",
              changing_device_calls)

    def submitted_frames():
        # label() on CuPy returns without waiting for the GPU: each table waits for its
        # own frame when first read, after later calls on other streams, and after the
        # thread that made it (and its engine) is gone; last_call_info waits too.
        imgs = [image(300, 400, s) for s in (21, 22, 23)]
        want = [cudaccl.label(img, backend="cpu")[1] for img in imgs]
        tables = []
        for img in imgs:
            with cupy.cuda.Stream(non_blocking=True):
                tables.append(cudaccl.label(cupy.asarray(img))[1])
        assert cudaccl.last_call_info()["num_components"] == len(want[-1]["label"])
        for t, w, k in zip(tables, want, range(3)):
            same_columns(t, w, f"CuPy submitted table {k}")
        made = []
        worker = threading.Thread(target=lambda: made.append(cudaccl.label(cupy.asarray(imgs[1]))))
        worker.start()
        worker.join()
        del worker
        gc.collect()
        labels, table = made.pop()
        same_columns(table, want[1], "CuPy table of a thread that has exited")
        assert np.array_equal(labels.get(), cudaccl.label(imgs[1], backend="cpu")[0])
    tap.check("CuPy: tables of calls that did not wait hold their own frames", submitted_frames)


def main():
    host_cases()
    cupy_cases()
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
