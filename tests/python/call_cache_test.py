#!/usr/bin/env python3
"""What label() keeps between calls to be quick (cudaccl/_label.py: the checked settings
per settings, the filled ccl_image and ccl_labels structs of the thread; _arrays.py: the
data pointer read from the array object) gives the same results as a fresh start:
across shapes, dtypes, strides and settings that change from call to call, settings
equal as keys but of refused types, more settings than the caches hold, and threads.
CPU backend; prints TAP.

    PYTHONPATH=<build>/python python3 call_cache_test.py"""
import os
import sys
import threading

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cudaccl_support import import_cudaccl, raises, yacclab_random  # noqa: E402
from tap import Tap  # noqa: E402

cudaccl = import_cudaccl()
tap = Tap()


def oracle(image, **kw):
    """label() on a fresh copy of the image, the plan cache emptied first: what the
    call gives without anything kept from earlier calls."""
    from cudaccl import _label
    _label._plans.clear()
    _label._options_cache.clear()
    return cudaccl.label(np.array(image, copy=True), backend="cpu", **kw)


def same(got, want, what):
    gl, gt = got
    wl, wt = want
    if wl is None:
        assert gl is None, f"{what}: labels {type(gl)} where none were asked for"
    else:
        assert gl.dtype == np.int32 and np.array_equal(gl, wl), f"{what}: labels differ"
    assert list(gt) == list(wt), f"{what}: columns {list(gt)} != {list(wt)}"
    for k in wt:
        assert gt[k].dtype == wt[k].dtype, f"{what}: {k} dtype {gt[k].dtype}"
        assert np.array_equal(gt[k], wt[k]), f"{what}: column {k} differs"


def images():
    base = yacclab_random(61, 83, 0.5, 2, seed=21) * np.uint8(255)
    rgb = np.random.default_rng(5).integers(0, 256, (40, 50, 3), dtype=np.uint8)
    return [
        ("61x83 uint8", base),
        ("its transpose (other shape, strides of a view)", base.T),
        ("rows 3..59 step 2, columns 4..80", base[3:59:2, 4:80]),
        ("uint16", base.astype(np.uint16) * 257),
        ("1x83", base[:1]),
        ("83x1", np.ascontiguousarray(base[:, :1]).reshape(61, 1)),
        ("RGB", rgb),
        ("RGBA sliced", np.dstack([rgb, rgb[..., :1]])[:, 3:]),
        ("61x83 uint8 again", base),
    ]


def changing_inputs():
    for name, image in images():
        if name.startswith("its transpose"):
            # Not row-contiguous: refused, every time, also after good calls.
            for _ in range(2):
                raises(ValueError, lambda: cudaccl.label(image, backend="cpu"), "contiguous")
            continue
        for _ in range(2):
            same(cudaccl.label(image, backend="cpu"), oracle(image), name)


tap.check("shapes, dtypes, strides and formats in turn: each call's own results",
          changing_inputs)

SETTINGS = [dict(), dict(connectivity=4), dict(threshold=10), dict(mode="below"),
            dict(mode="otsu"), dict(min_area=5), dict(max_components=3),
            dict(return_labels=False), dict(properties="all"),
            dict(properties=["perimeter", "area"]), dict(properties=("euler_number",)),
            dict(min_eccentricity=0.2), dict(max_circularity=0.9, properties="perimeter")]


def changing_settings():
    image = yacclab_random(70, 90, 0.4, 3, seed=8) * np.uint8(255)
    want = [oracle(image, **kw) for kw in SETTINGS]
    for round_ in range(3):
        for kw, w in zip(SETTINGS, want):
            same(cudaccl.label(image, backend="cpu", **kw), w, f"round {round_} {kw}")


tap.check("settings that change every call: each call's own settings", changing_settings)


def refused_after_accepted():
    g = np.zeros((8, 9), np.uint8)
    cudaccl.label(g, backend="cpu", threshold=128, connectivity=8, min_area=1,
                  min_circularity=0, return_labels=True)
    # Equal to the settings above as dict keys, refused all the same.
    raises(TypeError, lambda: cudaccl.label(g, backend="cpu", threshold=128.0), "integer")
    raises(TypeError, lambda: cudaccl.label(g, backend="cpu", min_area=True), "integer")
    raises(TypeError, lambda: cudaccl.label(g, backend="cpu", min_circularity=False), "number")
    raises(ValueError, lambda: cudaccl.label(g, backend="gpu"), "'gpu'")
    # And accepted the other way round.
    assert cudaccl.label(g, backend="cpu", threshold=np.uint8(128))[1]["label"].size == 0


tap.check("settings equal as keys to accepted ones are still refused by type",
          refused_after_accepted)


def more_settings_than_cached():
    # More distinct settings than the caches keep (they are emptied when full): the
    # settings of a plan made before the emptying must still be the ones it runs with.
    image = yacclab_random(40, 50, 0.5, 1, seed=4) * np.uint8(255)
    first = dict(threshold=7, connectivity=4)
    want = oracle(image, **first)
    cudaccl.label(image, backend="cpu", **first)
    for t in range(300):
        cudaccl.label(image, backend="cpu", threshold=t % 256, min_area=t)
    import gc
    gc.collect()
    same(cudaccl.label(image, backend="cpu", **first), want, "after 300 other settings")


tap.check("a plan outlives the emptying of the options cache", more_settings_than_cached)


def threads():
    image = yacclab_random(50, 60, 0.5, 2, seed=6) * np.uint8(255)
    other = 255 - image
    want = {0: oracle(image), 1: oracle(other, connectivity=4)}
    failures = []

    def work(i):
        try:
            for _ in range(50):
                if i % 2:
                    same(cudaccl.label(other, backend="cpu", connectivity=4), want[1], "odd")
                else:
                    same(cudaccl.label(image, backend="cpu"), want[0], "even")
        except AssertionError as e:
            failures.append(str(e))
    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not failures, failures[:3]


tap.check("threads calling at once each get their own results", threads)


def data_pointer():
    from cudaccl import _arrays
    a = np.zeros((6, 10), np.uint8)
    for v in (a, a[2:, 3:], a[::2], np.zeros(0, np.uint8), np.empty((3, 4), np.float64)):
        assert _arrays.data_pointer(v) == v.__array_interface__["data"][0]


tap.check("the data pointer read from the array object equals __array_interface__'s",
          data_pointer)


def labeler_reuse():
    frames = [yacclab_random(30 + 5 * i, 40, 0.5, 2, seed=i) * np.uint8(255) for i in range(4)]
    with cudaccl.Labeler(backend="cpu", track=False) as lab:
        for f in frames + frames[::-1]:
            same(lab(f), oracle(f), f"Labeler {f.shape}")


tap.check("a reused Labeler: each frame's own results across sizes", labeler_reuse)

sys.exit(tap.finish())
