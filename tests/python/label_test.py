#!/usr/bin/python3
"""cudaccl.label on NumPy arrays (CPU backend) against skimage.measure.label +
regionprops_table and OpenCV's connectedComponentsWithStats, on the real images of the
test cache and on fuzzed arrays of odd shapes, dtypes and row strides; then every kind
of bad input. Prints TAP.

    label_test.py TESTDATA_DIR [FETCH_SCRIPT IMPORT_TOOL]

The package comes from PYTHONPATH (the build's python/ folder)."""
import sys

import numpy as np

from cudaccl_support import bt601_luma, import_cudaccl, raises, real_images, yacclab_random
from tap import Tap

cudaccl = import_cudaccl()
try:
    import skimage.measure as measure
except ImportError as e:
    Tap.skip_all(f"skimage is missing (python3-skimage): {e}")
try:
    import cv2
except ImportError:
    cv2 = None

tap = Tap()
PROPS = ("label", "bbox", "area", "centroid", "moments")
MOMENTS = ["moments-0-0", "moments-1-0", "moments-0-1", "moments-2-0", "moments-1-1",
           "moments-0-2"]


def skimage_oracle(binary, connectivity):
    labels = measure.label(binary, connectivity=1 if connectivity == 4 else 2)
    table = measure.regionprops_table(labels, properties=PROPS)
    return labels, table


def compare_skimage(labels, table, binary, connectivity, picked=None):
    """Raises AssertionError on the first difference from skimage. picked: the labels the
    table reports, in its order (default: all, in label order)."""
    want_labels, want = skimage_oracle(binary, connectivity)
    if labels is not None:
        assert labels.dtype == np.int32, f"labels dtype {labels.dtype}"
        assert np.array_equal(labels, want_labels), \
            f"labels differ at {np.argwhere(labels != want_labels)[:3].tolist()}"
    order = np.arange(len(want["label"])) if picked is None else np.asarray(picked) - 1
    assert len(table["label"]) == len(order), \
        f"{len(table['label'])} rows, expected {len(order)}"
    for name in ["label", "bbox-0", "bbox-1", "bbox-2", "bbox-3", "area"]:
        w = np.asarray(want[name])[order]
        assert np.array_equal(table[name], w), f"{name}: {table[name][:5]} != {w[:5]}"
    for name in ["centroid-0", "centroid-1"] + MOMENTS:
        w = np.asarray(want[name])[order]
        assert np.allclose(table[name], w, rtol=1e-12, atol=1e-9), \
            f"{name}: {table[name][:5]} != {w[:5]}"
    # The image-origin sums agree with the box-corner moments and the box.
    r0, c0, a = table["bbox-0"], table["bbox-1"], table["area"]
    assert np.array_equal(table["moments_image-1-0"], table["moments-1-0"].astype(np.int64) + r0 * a)
    assert np.array_equal(table["moments_image-0-1"], table["moments-0-1"].astype(np.int64) + c0 * a)


def compare_opencv(labels, table, binary, connectivity):
    n, cv_labels, stats, centroids = cv2.connectedComponentsWithStats(
        binary.astype(np.uint8), connectivity=connectivity, ltype=cv2.CV_32S)
    assert n - 1 == len(table["label"]), f"OpenCV finds {n - 1}, cudaccl {len(table['label'])}"
    # Same partition: each of our labels maps onto one OpenCV label, one to one.
    fg = labels > 0
    assert np.array_equal(fg, cv_labels > 0), "foreground differs"
    pairs = np.unique(np.stack([labels[fg], cv_labels[fg]]), axis=1)
    assert pairs.shape[1] == n - 1 and len(np.unique(pairs[1])) == n - 1, "partitions differ"
    cv_of = np.zeros(n, np.int64)
    cv_of[pairs[0]] = pairs[1]
    s = stats[cv_of[table["label"]]]
    assert np.array_equal(table["area"], s[:, cv2.CC_STAT_AREA]), "areas differ"
    assert np.array_equal(table["bbox-1"], s[:, cv2.CC_STAT_LEFT]), "left differs"
    assert np.array_equal(table["bbox-0"], s[:, cv2.CC_STAT_TOP]), "top differs"
    assert np.array_equal(table["bbox-3"] - table["bbox-1"], s[:, cv2.CC_STAT_WIDTH])
    assert np.array_equal(table["bbox-2"] - table["bbox-0"], s[:, cv2.CC_STAT_HEIGHT])
    c = centroids[cv_of[table["label"]]]
    assert np.allclose(table["centroid-1"], c[:, 0]) and np.allclose(table["centroid-0"], c[:, 1])


def real_image_cases(args):
    testdata = args[0] if args else None
    images, why = real_images(testdata, *(args[1:3])) if testdata else ([], "no cache given")
    if not images:
        tap.skip("real images", why)
        return
    for name, gray in images:
        binary = gray > 128

        def run(name=name, gray=gray, binary=binary):
            labels, table = cudaccl.label(gray, backend="cpu")
            compare_skimage(labels, table, binary, 8)
            if cv2 is not None:
                compare_opencv(labels, table, binary, 8)
        tap.check(f"real image {name} {gray.shape[1]}x{gray.shape[0]}: skimage and OpenCV", run)

    # Every mode and 4-connectivity on a few, and Otsu's level used as a fixed level.
    for name, gray in images[:: max(1, len(images) // 6)]:
        def modes(gray=gray):
            labels, table = cudaccl.label(gray, connectivity=4, mode="below", threshold=90,
                                          backend="cpu")
            compare_skimage(labels, table, gray <= 90, 4)
            if cv2 is not None:
                compare_opencv(labels, table, gray <= 90, 4)
            labels, table = cudaccl.label(gray, mode="otsu", backend="cpu")
            level = cudaccl.last_call_info()["threshold_used"]
            compare_skimage(labels, table, gray > level, 8)
        tap.check(f"real image {name}: below, 4-connected, otsu", modes)


def fuzz_cases():
    rng = np.random.default_rng(20240530)
    shapes = [(1, 1), (1, 37), (41, 1), (2, 2), (31, 33), (64, 65), (127, 3), (17, 200)]
    for case in range(48):
        h, w = shapes[case] if case < len(shapes) else tuple(int(v) for v in rng.integers(1, 90, 2))
        density = [0.1, 0.5, 0.9][case % 3]
        gran = [1, 2, 4, 7][case % 4]
        binary = yacclab_random(h, w, density, gran, seed=case + 1).astype(bool)
        # Row strides of slices: a window of a wider array, every other row.
        pad, step = int(rng.integers(0, 9)), 1 + case % 2
        connectivity = 4 if case % 5 == 0 else 8
        dtype = np.uint16 if case % 3 == 1 else np.uint8
        hi = 65535 if dtype == np.uint16 else 255
        noise = rng.integers(0, hi + 1, size=(h * step, w + pad + 3), dtype=np.int64)
        big = noise.astype(dtype)
        level = 128
        fgmin = (level * 257 + 1) if dtype == np.uint16 else level + 1
        view = big[::step, 3:3 + w]
        view[...] = np.where(binary, rng.integers(fgmin, hi + 1, size=(h, w)),
                             rng.integers(0, fgmin, size=(h, w))).astype(dtype)
        assert view.strides[0] != w * view.itemsize or pad == 0 and step == 1

        def run(view=view, binary=binary, connectivity=connectivity):
            labels, table = cudaccl.label(view, connectivity=connectivity, backend="cpu")
            compare_skimage(labels, table, binary, connectivity)
            if cv2 is not None and dtype == np.uint8:
                compare_opencv(labels, table, binary, connectivity)
            none, table2 = cudaccl.label(view, connectivity=connectivity, return_labels=False,
                                         backend="cpu")
            assert none is None and all(np.array_equal(table[k], table2[k]) for k in table)
        tap.check(f"fuzz {case}: {h}x{w} {np.dtype(dtype).name} d={density} g={gran} "
                  f"row stride {view.strides[0]} B, {connectivity}-connected", run)


def selection_cases():
    binary = yacclab_random(120, 90, 0.5, 2, seed=7).astype(bool)
    gray = np.where(binary, 200, 10).astype(np.uint8)
    _, full = skimage_oracle(binary, 8)
    area, labels = np.asarray(full["area"]), np.asarray(full["label"])

    def min_area():
        _, table = cudaccl.label(gray, min_area=5, backend="cpu")
        compare_skimage(None, table, binary, 8, picked=labels[area >= 5])
    tap.check("min_area reports components of at least that many pixels, in label order",
              min_area)

    def largest():
        _, table = cudaccl.label(gray, max_components=7, backend="cpu")
        order = sorted(range(len(area)), key=lambda i: (-area[i], labels[i]))[:7]
        compare_skimage(None, table, binary, 8, picked=labels[order])
        assert cudaccl.last_call_info()["num_components"] == len(area)
    tap.check("max_components reports the largest, largest first", largest)


def color_and_kinds():
    rng = np.random.default_rng(3)
    rgb = rng.integers(0, 256, size=(57, 43, 3), dtype=np.uint8)
    rgb[10:30, 5:20] = (250, 250, 250)

    def rgb_case():
        for image in (rgb, np.ascontiguousarray(rgb[::2, 1:40])):
            labels, table = cudaccl.label(image, backend="cpu")
            compare_skimage(labels, table, bt601_luma(image) > 128, 8)
    tap.check("RGB (H, W, 3) uint8: labeled on its BT.601 luma, contiguous and sliced", rgb_case)

    def rgba_case():
        rgba = np.dstack([rgb, np.full(rgb.shape[:2], 7, np.uint8)])
        labels, table = cudaccl.label(rgba[:, 2:], backend="cpu")
        compare_skimage(labels, table, bt601_luma(rgba[:, 2:]) > 128, 8)
    tap.check("RGBA (H, W, 4) uint8 with a row stride", rgba_case)

    def fresh_arrays():
        a, t1 = cudaccl.label(np.ascontiguousarray(rgb[..., 0]), backend="cpu")
        keep_a, keep_t = a.copy(), {k: v.copy() for k, v in t1.items()}
        cudaccl.label(np.ascontiguousarray(255 - rgb[..., 1]), backend="cpu")
        assert np.array_equal(a, keep_a) and all(np.array_equal(t1[k], keep_t[k]) for k in t1)
    tap.check("a later call leaves earlier labels and tables alone", fresh_arrays)

    def pooled_arrays():
        # Large enough for the reused host buffers (cudaccl/_pool.py).
        a = (yacclab_random(700, 900, 0.3, 1, seed=9) * 255).astype(np.uint8)
        b = (yacclab_random(700, 900, 0.6, 1, seed=10) * 255).astype(np.uint8)
        first, t1 = cudaccl.label(a, backend="cpu")
        keep_l, keep_t = first.copy(), {k: v.copy() for k, v in t1.items()}
        second, t2 = cudaccl.label(b, backend="cpu")
        assert not np.shares_memory(first, second) and not np.shares_memory(t1["area"], t2["area"])
        assert np.array_equal(first, keep_l) and all(np.array_equal(t1[k], keep_t[k]) for k in t1)
        del first, t1, keep_l, keep_t
        from cudaccl import _label
        pool = _label._state.pool
        for _ in range(3):
            cudaccl.label(a, backend="cpu")  # results dropped at once: buffers free again
        before = [id(block) for block in pool]
        for _ in range(5):
            third, t3 = cudaccl.label(a, backend="cpu")
            del third, t3
        assert [id(block) for block in pool] == before, "free buffers were not reused"
        assert np.array_equal(second, cudaccl.label(b, backend="cpu")[0])
    tap.check("large results: buffers still in use are never reused, free ones are", pooled_arrays)

    try:
        import torch
    except ImportError:
        tap.skip("CPU torch tensor in, torch tensor out", "torch is not installed")
    else:
        def torch_case():
            t = torch.from_numpy(rgb[..., 0].copy())
            labels, table = cudaccl.label(t, backend="cpu")
            assert isinstance(labels, torch.Tensor) and labels.dtype == torch.int32
            compare_skimage(labels.numpy(), table, rgb[..., 0] > 128, 8)
        tap.check("CPU torch tensor in, torch tensor out", torch_case)


def bad_input_cases():
    g = np.zeros((10, 12), np.uint8)
    L = cudaccl.label
    cases = [
        ("float image", TypeError, lambda: L(g.astype(np.float32)), "float32"),
        ("int16 image", TypeError, lambda: L(g.astype(np.int16)), "int16"),
        ("big-endian uint16", TypeError, lambda: L(g.astype(">u2")), ">u2"),
        ("a list", TypeError, lambda: L([[1, 2], [3, 4]]), "list"),
        ("1-D", ValueError, lambda: L(np.zeros(5, np.uint8)), "1 dimension"),
        ("4-D", ValueError, lambda: L(np.zeros((2, 2, 2, 2), np.uint8)), "4 dimension"),
        ("(H, W, 2)", ValueError, lambda: L(np.zeros((4, 4, 2), np.uint8)), "(height, width, 3)"),
        ("uint16 RGB", TypeError, lambda: L(np.zeros((4, 4, 3), np.uint16)), "uint8"),
        ("empty", ValueError, lambda: L(np.zeros((0, 5), np.uint8)), "empty"),
        ("inner dimension not contiguous", ValueError, lambda: L(g[:, ::2]), "contiguous"),
        ("column-major", ValueError, lambda: L(np.asfortranarray(g)), "contiguous"),
        ("negative row stride", ValueError, lambda: L(g[::-1]), "negative"),
        ("RGB channels not contiguous", ValueError,
         lambda: L(np.zeros((4, 4, 6), np.uint8)[:, :, ::2]), "contiguous"),
        ("connectivity 6", ValueError, lambda: L(g, connectivity=6), "4 or 8"),
        ("threshold 256", ValueError, lambda: L(g, threshold=256), "0..255"),
        ("threshold 1.5", TypeError, lambda: L(g, threshold=1.5), "integer"),
        ("mode", ValueError, lambda: L(g, mode="middle"), "'middle'"),
        ("algorithm", ValueError, lambda: L(g, algorithm="magic"), "'magic'"),
        ("backend", ValueError, lambda: L(g, backend="gpu"), "'gpu'"),
        ("min_area -1", ValueError, lambda: L(g, min_area=-1), "min_area"),
        ("max_components 0", ValueError, lambda: L(g, max_components=0), "max_components"),
        ("Labeler foreground", ValueError, lambda: cudaccl.Labeler(foreground="magic"), "'magic'"),
        ("Labeler local with otsu", ValueError,
         lambda: cudaccl.Labeler(foreground="local", mode="otsu", backend="cpu")(g), "otsu"),
        ("Labeler color range on gray", ValueError,
         lambda: cudaccl.Labeler(foreground="color", backend="cpu")(g), "GRAY8"),
        ("Labeler cleanup radius 99", ValueError,
         lambda: cudaccl.Labeler(open_radius=99, backend="cpu")(g), "radii"),
        ("Tracker max_lost -1", ValueError, lambda: cudaccl.Tracker(max_lost=-1), "max_lost"),
    ]
    if not cudaccl.cuda_usable():
        cases.append(("backend cuda without a usable device", cudaccl.UnsupportedError,
                      lambda: L(g, backend="cuda"), "CUDA"))
    for name, exc, fn, *words in cases:
        tap.check(f"bad input: {name} raises {exc.__name__}", lambda: raises(exc, fn, *words))

    def closed():
        lab = cudaccl.Labeler(backend="cpu")
        lab.close()
        raises(ValueError, lambda: lab(g), "closed")
    tap.check("bad input: a closed Labeler raises ValueError", closed)


def main():
    real_image_cases(sys.argv[1:])
    fuzz_cases()
    selection_cases()
    color_and_kinds()
    bad_input_cases()
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
