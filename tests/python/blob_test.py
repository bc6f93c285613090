#!/usr/bin/python3
"""cudaccl's blob properties (properties=) and blob filters against scikit-image 0.19:
on the real images of the test cache, skimage.data's samples, a 16-bit image, random
binary and random blob images, each thresholded and labeled 4- and 8-connected with
every algorithm, the table's columns are compared with
skimage.measure.regionprops_table(skimage.measure.label(mask), intensity_image=...) (the
labels are the same, in the same raster order); the color means on RGB images with
regionprops' intensity_mean-k of the RGB image. Then the blob filters (the rows kept
are the unfiltered rows within the bounds), the Labeler, ccl-label's --properties and
its filters, and bad settings. The CPU backend always; the CUDA backend as well when a
device is usable. Prints TAP, and per column the count of compared values and the
worst difference.

    blob_test.py TESTDATA_DIR [FETCH_SCRIPT [IMPORT_TOOL [CCL_LABEL]]]

Tolerances (relative 1e-9 unless said), and why they are what they are:
- intensity_min, intensity_max, euler_number: exact (integers).
- orientation: an axis, compared modulo pi, 1e-9 relative. skimage evaluates its
  inertia tensor [[a, b], [b, c]] in floating point and takes a branch of its own when
  a - c == 0: -pi/4 when b < 0, pi/4 otherwise, which for b != 0 is the other diagonal
  than the limit of its formula 0.5 atan2(-2b, c - a) (scikit-image issue #6815, fixed
  after 0.19). cudaccl does not take that branch: where the exact spreads tie it gives
  the formula's limit, 0.5 atan2(-2b, 0): pi/4 when b < 0, -pi/4 when b > 0 (and pi/4
  for b == 0, an isotropic region, as skimage). Where |a - c| <= 1e-12 (a + c),
  skimage may take its branch (its float a - c == 0, whether or not the exact spreads
  tie), and the two then differ by pi/2: such rows are skipped and counted, with
  whether the exact spreads tie and whether skimage's float a - c is 0; rows of that
  neighbourhood that agree are compared.
- axis_minor_length: within 1e-9 axis_major_length (eigvalsh's error on the minor
  eigenvalue is absolute, about 1e-16 the major one).
- eccentricity: 1e-9 relative, plus 1e-7 absolute only where it is below 1e-3 (the
  same absolute error under the root of 1 - minor / major).
- inertia_ratio (not one of skimage's): against skimage's minor / major eigenvalue,
  within 1e-9 absolute (a ratio in 0..1 of an eigenvalue with an absolute error).
- circularity (not one of skimage's): 4 pi area / skimage's perimeter^2."""
import csv
import os
import subprocess
import sys
import tempfile

import numpy as np

from cudaccl_support import (bt601_luma, import_cudaccl, raises, real_color_images, real_images,
                             yacclab_random)
from tap import Tap

cudaccl = import_cudaccl()
try:
    import skimage
    import skimage.data
    import skimage.measure as measure
except ImportError as e:
    Tap.skip_all(f"skimage is missing (python3-skimage): {e}")

tap = Tap()
ALGORITHMS = cudaccl.algorithms()
BLOB_COLUMNS = ["intensity_mean", "intensity_std", "intensity_min", "intensity_max",
                "color_mean-0", "color_mean-1", "color_mean-2", "perimeter", "circularity",
                "euler_number", "orientation", "axis_major_length", "axis_minor_length",
                "eccentricity", "inertia_ratio"]
SK_PROPS = ("label", "area", "intensity_mean", "intensity_min", "intensity_max", "perimeter",
            "orientation", "axis_major_length", "axis_minor_length", "eccentricity",
            "euler_number", "inertia_tensor", "inertia_tensor_eigvals")


def intensity_std(region, intensity):
    return np.std(intensity[region])


def euler_4(region):
    """The Euler number of a 4-connected region (regionprops' uses 8-connectivity)."""
    return measure.euler_number(region, connectivity=1)


class Stats:
    """Per backend and column: values compared, the worst difference, rows skipped."""

    def __init__(self):
        self.compared = {}
        self.worst = {}
        self.skipped = {}

    def add(self, backend, column, count, worst, where):
        key = (backend, column)
        self.compared[key] = self.compared.get(key, 0) + count
        if count and (key not in self.worst or worst > self.worst[key][0]):
            self.worst[key] = (worst, where)

    def skip(self, backend, column, reason, count):
        if count:
            key = (backend, column, reason)
            self.skipped[key] = self.skipped.get(key, 0) + count

    def report(self):
        print(f"# values compared with skimage, for each of the {len(ALGORITHMS)} algorithms "
              "(each algorithm's table counts):", flush=True)
        for (backend, column), n in sorted(self.compared.items()):
            worst, where = self.worst.get((backend, column), (0.0, ""))
            print(f"# {backend:4s} {column:18s} {n:8d} compared, worst difference "
                  f"{worst:.3g}{' (' + where + ')' if worst and where else ''}", flush=True)
        for (backend, column, reason), n in sorted(self.skipped.items()):
            print(f"# {backend:4s} {column:18s} {n:8d} skipped: {reason}", flush=True)


stats = Stats()


def oracle(mask, intensity, connectivity):
    """skimage's labels and table of a mask, with intensity_std (numpy's std per region)
    and, 4-connected, the Euler number of each region with 4-connectivity."""
    labels = measure.label(mask, connectivity=1 if connectivity == 4 else 2)
    extra = (intensity_std, euler_4) if connectivity == 4 else (intensity_std,)
    table = measure.regionprops_table(labels, intensity_image=intensity, properties=SK_PROPS,
                                      extra_properties=extra)
    table = {k: np.asarray(v) for k, v in table.items()}
    table["euler"] = table["euler_4"] if connectivity == 4 else table["euler_number"]
    return labels, table


def relative(got, want, scale=None):
    """|got - want| / scale elementwise (scale: |want|; 0 where both are 0)."""
    scale = np.abs(want) if scale is None else scale
    diff = np.abs(got - want)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(diff == 0, 0.0, diff / scale)
    return r


def within(backend, column, got, want, allowed, measure_of, what, compared=None, shown=None):
    """got within `allowed` of want in every row (of the `compared` ones: a mask, default
    all), else AssertionError naming the first row that is not (with the values of
    `shown`, (ours, skimage's), when given); the worst `measure_of` recorded."""
    compared = np.ones(len(got), bool) if compared is None else compared
    allowed = np.broadcast_to(allowed, got.shape)
    bad = compared & ~(np.abs(got - want) <= allowed)
    if np.any(bad):
        i = int(np.argmax(bad))
        ours, theirs = shown if shown is not None else (got, want)
        raise AssertionError(f"{column}: row {i} (label {i + 1}) {ours[i]!r} != skimage "
                             f"{theirs[i]!r} (difference {abs(got[i] - want[i]):.3g}, allowed "
                             f"{allowed[i]:.3g})")
    count = int(np.count_nonzero(compared))
    if count:
        i = int(np.argmax(np.where(compared, measure_of, -1.0)))
        stats.add(backend, column, count, float(measure_of[i]), f"{what}, label {i + 1}")
    else:
        stats.add(backend, column, 0, 0.0, "")


def exact_tie(table, i):
    """Whether row i's second central moments of rows and columns are exactly equal
    (the integer sums of the table, in Python's integers)."""
    n = int(table["area"][i])
    sr, sc = int(table["moments_image-1-0"][i]), int(table["moments_image-0-1"][i])
    return (n * int(table["moments_image-2-0"][i]) - sr * sr ==
            n * int(table["moments_image-0-2"][i]) - sc * sc)


def compare(table, want, backend, what, color=None):
    """Our table (properties="all") against skimage's; AssertionError on a difference."""
    n = len(want["label"])
    assert len(table["label"]) == n, f"{len(table['label'])} rows, skimage {n}"
    assert np.array_equal(table["label"], want["label"]), "labels differ"
    assert np.array_equal(table["area"], want["area"]), "areas differ"
    for column in ("intensity_min", "intensity_max"):
        assert np.array_equal(table[column], want[column]), f"{column} differs"
        stats.add(backend, column, n, 0.0, "")
    assert table["euler_number"].dtype == np.int64
    assert np.array_equal(table["euler_number"], want["euler"]), \
        f"euler_number differs at labels {np.flatnonzero(table['euler_number'] != want['euler'])[:5] + 1}"
    stats.add(backend, "euler_number", n, 0.0, "")
    for column, sk in (("intensity_mean", "intensity_mean"), ("intensity_std", "intensity_std"),
                       ("perimeter", "perimeter"), ("axis_major_length", "axis_major_length")):
        got, w = table[column], want[sk].astype(np.float64)
        within(backend, column, got, w, 1e-9 * np.abs(w), relative(got, w), what)

    major = want["axis_major_length"]
    got, w = table["axis_minor_length"], want["axis_minor_length"]
    within(backend, "axis_minor_length", got, w, 1e-9 * major,
           relative(got, w, np.maximum(major, 1e-300)), what + " (of the major axis)")

    got, w = table["eccentricity"], want["eccentricity"]
    allowed = 1e-9 * np.abs(w) + np.where(w < 1e-3, 1e-7, 0.0)
    within(backend, "eccentricity", got, w, allowed, relative(got, w), what)

    l1, l2 = want["inertia_tensor_eigvals-0"], want["inertia_tensor_eigvals-1"]
    ratio = np.where(l1 > 0, l2 / np.where(l1 > 0, l1, 1), 0.0)
    got = table["inertia_ratio"]
    within(backend, "inertia_ratio", got, ratio, np.full(n, 1e-9), np.abs(got - ratio),
           what + " (absolute)")

    p = want["perimeter"]
    circ = np.where(p > 0, 4 * np.pi * want["area"] / np.where(p > 0, p, 1) ** 2, 0.0)
    got = table["circularity"]
    within(backend, "circularity", got, circ, 1e-9 * circ, relative(got, circ), what)

    # Orientation: an axis (modulo pi), skimage's a - c == 0 neighbourhood aside.
    a, c = want["inertia_tensor-0-0"], want["inertia_tensor-1-1"]
    got, w = table["orientation"], want["orientation"]
    d = np.abs((got - w + np.pi / 2) % np.pi - np.pi / 2)
    allowed = 1e-9 * np.abs(w)
    tied = np.abs(a - c) <= 1e-12 * (a + c)
    differs = ~(d <= allowed)
    skipped = tied & differs
    for i in np.flatnonzero(skipped):
        why = (f"|a - c| <= 1e-12 (a + c), the exact spreads "
               f"{'tie' if exact_tie(table, i) else 'differ'}, skimage's float a - c "
               f"{'== 0' if a[i] - c[i] == 0 else '!= 0'}")
        stats.skip(backend, "orientation", why, 1)
    measured = relative(d, 0 * d, np.maximum(np.abs(w), 1e-300))
    within(backend, "orientation", d, 0 * d, allowed, measured, what + " (modulo pi)",
           compared=~skipped, shown=(got, w))
    if color is not None:
        for k in range(3):
            got, w = table[f"color_mean-{k}"], color[f"intensity_mean-{k}"]
            within(backend, f"color_mean-{k}", got, w, 1e-9 * np.abs(w), relative(got, w), what)
    else:
        for k in range(3):
            assert np.array_equal(table[f"color_mean-{k}"], table["intensity_mean"]), \
                "a gray image's channel means are its intensity means"


def gpu_note():
    if not cudaccl.cuda_usable():
        from cudaccl import _label
        return f"no usable CUDA device ({_label.cuda_unusable_reason()})"
    return ""


def check_image(name, image, mask_of, intensity, color=None, threshold=128, mode="above"):
    """Every connectivity, algorithm and backend on one image against skimage: one TAP
    case per connectivity and backend."""
    mask = mask_of(image)
    for connectivity in (8, 4):
        want_labels, want = oracle(mask, intensity, connectivity)
        want_color = None
        if color is not None:
            want_color = {k: np.asarray(v) for k, v in measure.regionprops_table(
                want_labels, intensity_image=color, properties=("intensity_mean",)).items()}
        for backend in ["cpu", "cuda"]:
            title = (f"{name} {image.shape[1]}x{image.shape[0]}, {connectivity}-connected, "
                     f"{backend}: every algorithm against skimage "
                     f"({len(want['label'])} components)")
            if backend == "cuda" and gpu_note():
                tap.skip(title, gpu_note())
                continue

            def run(backend=backend):
                for algorithm in ALGORITHMS:
                    labels, table = cudaccl.label(image, connectivity=connectivity,
                                                  threshold=threshold, mode=mode,
                                                  algorithm=algorithm, backend=backend,
                                                  properties="all")
                    assert np.array_equal(labels, want_labels), f"{algorithm}: labels differ"
                    try:
                        compare(table, want, backend, f"{name} {connectivity}-c", want_color)
                    except AssertionError as e:
                        raise AssertionError(f"{algorithm}: {e}") from None
            tap.check(title, run)


def smooth_blobs(shape, seed, sigma):
    """Gray blobs with holes and odd shapes: Gaussian-smoothed noise, stretched."""
    import scipy.ndimage as ndi
    noise = np.random.default_rng(seed).random(shape)
    s = ndi.gaussian_filter(noise, sigma)
    s = (s - s.min()) / (s.max() - s.min() + 1e-12)
    return (s * 255).astype(np.uint8)


def image_cases(args):
    testdata = os.environ.get("CCL_TESTDATA_DIR") or (args[0] if args else None)
    images, why = real_images(testdata, *(args[1:3])) if testdata else ([], "no cache given")
    if not images:
        tap.skip("real images of the cache", why)
    for name, gray in images:
        check_image(name, gray, lambda g: g > 128, gray)
    # skimage's own samples (shipped with python3-skimage), at several levels.
    for sample, level, mode in [("coins", 110, "above"), ("camera", 90, "below"),
                                ("moon", 120, "above"), ("text", 100, "below"),
                                ("page", 150, "below")]:
        gray = getattr(skimage.data, sample)()
        mask = (lambda g, level=level: g > level) if mode == "above" else \
               (lambda g, level=level: g <= level)
        check_image(f"skimage.data.{sample} ({mode} {level})", gray, mask, gray,
                    threshold=level, mode=mode)
    # 16 bits: intensities in the 16-bit range, compared with threshold * 257.
    gray = skimage.data.coins()
    deep = gray.astype(np.uint16) * 257 + np.random.default_rng(4).integers(
        0, 257, gray.shape).astype(np.uint16)
    check_image("skimage.data.coins as uint16", deep, lambda g: g > 110 * 257, deep,
                threshold=110)
    # Random binary images (many small components, the granularity's squares) with
    # random gray levels on either side of the threshold, and smooth random blobs.
    for h, w, d, g, seed in [(240, 320, 0.5, 1, 1), (300, 401, 0.3, 2, 2),
                             (256, 256, 0.7, 4, 3), (199, 333, 0.9, 1, 4)]:
        binary = yacclab_random(h, w, d, g, seed).astype(bool)
        rng = np.random.default_rng(seed)
        gray = np.where(binary, rng.integers(129, 256, (h, w)),
                        rng.integers(0, 129, (h, w))).astype(np.uint8)
        check_image(f"random d={d} g={g}", gray, lambda x: x > 128, gray)
    for seed, sigma in [(5, 2.0), (6, 4.0), (7, 8.0)]:
        gray = smooth_blobs((300, 400), seed, sigma)
        check_image(f"smooth random blobs sigma={sigma}", gray, lambda x: x > 140, gray,
                    threshold=140)


def color_cases(args):
    """RGB images: color_mean-k against regionprops' intensity_mean-k of the RGB image,
    the intensity columns against the BT.601 luma the engine thresholds."""
    testdata = os.environ.get("CCL_TESTDATA_DIR") or (args[0] if args else None)
    fetch = os.path.join(os.path.dirname(args[1]), "fetch-rgb.sh") if len(args) > 1 else None
    images, why = real_color_images(testdata, fetch, args[2] if len(args) > 2 else None) \
        if testdata else ([], "no cache given")
    if not images:
        tap.skip("real color images of the cache", why)
    images += [(f"skimage.data.{s}", getattr(skimage.data, s)())
               for s in ("astronaut", "coffee", "chelsea")]
    rng = np.random.default_rng(12)
    images.append(("random RGB", rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)))
    for name, rgb in images:
        luma = bt601_luma(rgb)
        check_image(f"{name} (RGB)", rgb, lambda x: bt601_luma(x) > 128, luma, color=rgb)


def filter_cases():
    """The rows a blob filter keeps are the unfiltered rows within its bounds (computed
    from the unfiltered columns), with min_area and max_components too."""
    coins = skimage.data.coins()
    blobs = smooth_blobs((300, 400), 8, 3.0)
    noise = np.where(yacclab_random(200, 300, 0.5, 2, 9).astype(bool), 200, 20).astype(np.uint8)
    for name, image, level in [("coins", coins, 110), ("smooth blobs", blobs, 140),
                               ("random", noise, 128)]:
        for backend in ["cpu", "cuda"]:
            title = f"filters on {name}, {backend}: the rows within the bounds"
            if backend == "cuda" and gpu_note():
                tap.skip(title, gpu_note())
                continue

            def run(image=image, level=level, backend=backend):
                for connectivity in (8, 4):
                    _, full = cudaccl.label(image, threshold=level, connectivity=connectivity,
                                            backend=backend, properties="all")
                    n = len(full["label"])
                    assert n > 5, f"only {n} components"
                    circ, mean, ecc = (full["circularity"], full["intensity_mean"],
                                       full["eccentricity"])
                    # Bounds at values of the table itself: inclusive limits are exercised.
                    q = lambda v, f: float(np.sort(v)[int(f * (n - 1))])  # noqa: E731
                    cases = [
                        dict(min_circularity=q(circ, 0.3)),
                        dict(max_circularity=q(circ, 0.6)),
                        dict(min_circularity=q(circ, 0.2), max_circularity=q(circ, 0.8)),
                        dict(min_intensity=q(mean, 0.5)),
                        dict(min_intensity=q(mean, 0.1), max_intensity=q(mean, 0.7)),
                        dict(max_eccentricity=q(ecc, 0.5)),
                        dict(min_eccentricity=q(ecc, 0.25), max_eccentricity=q(ecc, 0.9)),
                        dict(min_circularity=q(circ, 0.1), min_intensity=q(mean, 0.2),
                             max_eccentricity=q(ecc, 0.95)),
                        dict(min_circularity=1e5),  # nothing passes
                    ]
                    for bounds in cases:
                        keep = np.ones(n, bool)
                        for what, values in (("circularity", circ), ("intensity", mean),
                                             ("eccentricity", ecc)):
                            lo = bounds.get("min_" + what, 0.0)
                            hi = bounds.get("max_" + what, 0.0)
                            keep &= (values >= lo) & ((hi == 0) | (values <= hi))
                        for extra in ({}, {"min_area": 20}, {"max_components": 5}):
                            _, got = cudaccl.label(image, threshold=level,
                                                   connectivity=connectivity, backend=backend,
                                                   properties="all", **bounds, **extra)
                            rows = keep & (full["area"] >= extra.get("min_area", 0))
                            index = np.flatnonzero(rows)
                            if "max_components" in extra:
                                order = sorted(index, key=lambda i: (-full["area"][i], i))
                                index = np.array(order[:extra["max_components"]], np.int64)
                            for k in full:
                                assert np.array_equal(got[k], full[k][index]), \
                                    f"{bounds} {extra} {connectivity}-c: column {k}: " \
                                    f"{len(got[k])} rows, expected {len(index)}"
                            info = cudaccl.last_call_info()
                            assert info["num_components"] == n and info["num_reported"] == len(index)
                    # A filter without properties: the columns are not added, the rows kept.
                    _, plain = cudaccl.label(image, threshold=level, connectivity=connectivity,
                                             backend=backend, min_circularity=q(circ, 0.5))
                    assert "circularity" not in plain
                    assert np.array_equal(plain["label"], full["label"][circ >= q(circ, 0.5)])
            tap.check(title, run)


def api_cases():
    gray = skimage.data.coins()

    def subsets():
        _, full = cudaccl.label(gray, threshold=110, backend="cpu", properties="all")
        assert list(full)[-len(BLOB_COLUMNS):] == BLOB_COLUMNS, list(full)
        for props in (["perimeter"], ("orientation", "intensity_max", "label", "area"),
                      "euler_number", ["color_mean"], ["eccentricity", "all"]):
            _, t = cudaccl.label(gray, threshold=110, backend="cpu", properties=props)
            asked = [props] if isinstance(props, str) else list(props)
            names = []
            for p in asked:
                names += {"all": BLOB_COLUMNS, "color_mean": BLOB_COLUMNS[4:7]}.get(
                    p, [p] if p in BLOB_COLUMNS else [])
            names = list(dict.fromkeys(names))
            base = [k for k in full if k not in BLOB_COLUMNS]
            assert list(t) == base + names, f"{props}: {list(t)}"
            for k in t:
                assert t[k].dtype == full[k].dtype and np.array_equal(t[k], full[k]), k
        _, none = cudaccl.label(gray, threshold=110, backend="cpu")
        assert not set(BLOB_COLUMNS) & set(none)
    tap.check("properties: a subset gives those columns, in the order asked, same values",
              subsets)

    def labeler():
        _, want = cudaccl.label(gray, threshold=110, backend="cpu", properties="all",
                                min_eccentricity=0.3)
        with cudaccl.Labeler(threshold=110, backend="cpu", properties="all",
                             min_eccentricity=0.3) as lab:
            for _ in range(2):
                _, t = lab(gray)
                for k in want:
                    assert np.array_equal(t[k], want[k]), k
                assert "track_id" in t and len(t["track_id"]) == len(want["label"])
    tap.check("Labeler(properties=, filters): the columns and rows of label()", labeler)

    def dtypes():
        _, t = cudaccl.label(gray, threshold=110, backend="cpu", properties="all")
        for k in BLOB_COLUMNS:
            assert t[k].dtype == (np.int64 if k == "euler_number" else np.float64), k
        _, t = cudaccl.label(np.zeros((5, 5), np.uint8), backend="cpu", properties="all")
        assert all(len(t[k]) == 0 for k in BLOB_COLUMNS)
    tap.check("blob columns: float64, euler_number int64; an empty frame's are empty", dtypes)

    L = cudaccl.label
    g = np.zeros((10, 12), np.uint8)
    cases = [
        ("unknown property", ValueError, lambda: L(g, properties=["solidity"]), "'solidity'"),
        ("property not a string", TypeError, lambda: L(g, properties=[3]), "strings"),
        ("properties not a list", TypeError, lambda: L(g, properties=3), "properties"),
        ("min_circularity -1", ValueError, lambda: L(g, min_circularity=-1), "min_circularity"),
        ("max_intensity NaN", ValueError, lambda: L(g, max_intensity=float("nan")),
         "max_intensity"),
        ("min_intensity a string", TypeError, lambda: L(g, min_intensity="5"), "min_intensity"),
        ("max below min", ValueError,
         lambda: L(g, min_eccentricity=0.5, max_eccentricity=0.2), "max_eccentricity"),
        ("eccentricity above 1", ValueError, lambda: L(g, backend="cpu", min_eccentricity=2),
         "eccentricity"),
        ("Labeler unknown property", ValueError,
         lambda: cudaccl.Labeler(properties="roundness"), "'roundness'"),
    ]
    for name, exc, fn, *words in cases:
        tap.check(f"bad setting: {name} raises {exc.__name__}", lambda: raises(exc, fn, *words))


def device_array_cases():
    """A CuPy or CUDA torch image with properties: the host table's values, as device
    arrays."""
    title = "device arrays with properties and filters: the NumPy table's values"
    if gpu_note():
        tap.skip(title, gpu_note())
        return
    kinds = []
    try:
        import cupy
        kinds.append(("cupy", cupy.asarray, cupy.asnumpy))
    except ImportError:
        pass
    try:
        import torch
        if torch.cuda.is_available():
            kinds.append(("torch", lambda a: torch.from_numpy(a.copy()).cuda(),
                          lambda t: t.cpu().numpy()))
    except ImportError:
        pass
    if not kinds:
        tap.skip(title, "neither CuPy nor a CUDA-enabled PyTorch is installed")
        return
    gray = skimage.data.coins()
    for kind, up, down in kinds:
        def run(up=up, down=down):
            for kw in (dict(properties="all"), dict(properties=["perimeter"], min_circularity=0.5),
                       dict(max_eccentricity=0.8)):
                _, want = cudaccl.label(gray, threshold=110, backend="cuda", **kw)
                _, got = cudaccl.label(up(gray), threshold=110, **kw)
                assert list(got) == list(want), f"{kw}: {list(got)}"
                for k in want:
                    assert np.array_equal(down(got[k]), want[k]), f"{kw}: {k}"
        tap.check(f"{kind}: {title}", run)


def write_pnm(path, image):
    with open(path, "wb") as f:
        magic = b"P6" if image.ndim == 3 else b"P5"
        f.write(magic + f"\n{image.shape[1]} {image.shape[0]}\n255\n".encode())
        f.write(np.ascontiguousarray(image).tobytes())


def read_csv(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return rows


def ccl_label_cases(ccl_label):
    if not ccl_label or not os.path.exists(ccl_label):
        tap.skip("ccl-label --properties", "ccl-label is not built (no OpenCV)")
        return
    gray = skimage.data.coins()
    rgb = skimage.data.astronaut()
    with tempfile.TemporaryDirectory() as tmp:
        pgm, ppm = os.path.join(tmp, "coins.pgm"), os.path.join(tmp, "astronaut.ppm")
        write_pnm(pgm, gray)
        write_pnm(ppm, rgb)

        def run_tool(image, *options):
            out = os.path.join(tmp, "out")
            r = subprocess.run([ccl_label, "--backend", "cpu", "--output", out, *options, image],
                               capture_output=True, text=True)
            return r, (read_csv(out + "-components.csv") if r.returncode == 0 else None)

        def compare_rows(rows, table, names):
            assert len(rows) == len(table["label"]), f"{len(rows)} rows, {len(table['label'])}"
            assert [int(r["label"]) for r in rows] == table["label"].tolist()
            for k in names:
                got = np.array([float(r[k]) for r in rows])
                assert np.array_equal(got, table[k].astype(np.float64)), f"{k} differs"

        def all_columns():
            for connectivity in ("8", "4"):
                r, rows = run_tool(pgm, "--threshold", "110", "--connectivity", connectivity,
                                   "--properties", "all")
                assert r.returncode == 0, r.stderr
                _, t = cudaccl.label(gray, threshold=110, connectivity=int(connectivity),
                                     backend="cpu", properties="all")
                assert list(rows[0])[13:] == BLOB_COLUMNS, list(rows[0])
                compare_rows(rows, t, BLOB_COLUMNS)
        tap.check("ccl-label --properties all: the CSV's columns equal cudaccl's", all_columns)

        def some_and_filters():
            r, rows = run_tool(pgm, "--threshold", "110", "--properties",
                               "eccentricity,perimeter", "--min-circularity", "0.4",
                               "--max-eccentricity", "0.9")
            assert r.returncode == 0, r.stderr
            assert list(rows[0])[13:] == ["eccentricity", "perimeter"], list(rows[0])
            _, t = cudaccl.label(gray, threshold=110, backend="cpu",
                                 properties=["eccentricity", "perimeter"], min_circularity=0.4,
                                 max_eccentricity=0.9)
            compare_rows(rows, t, ["eccentricity", "perimeter"])
            assert f"{len(rows)} reported" in r.stdout, r.stdout
        tap.check("ccl-label --properties LIST with filters: the rows and columns of cudaccl's",
                  some_and_filters)

        def color():
            r, rows = run_tool(ppm, "--properties", "color_mean,intensity_mean")
            assert r.returncode == 0, r.stderr
            _, t = cudaccl.label(rgb, backend="cpu", properties=["color_mean", "intensity_mean"])
            compare_rows(rows, t, BLOB_COLUMNS[4:7] + ["intensity_mean"])
        tap.check("ccl-label --properties color_mean reads the colors (RGB means, BT.601 luma)",
                  color)

        def bad():
            r, _ = run_tool(pgm, "--properties", "perimeter,roundness")
            assert r.returncode == 2 and "roundness" in r.stderr, (r.returncode, r.stderr)
            r, _ = run_tool(pgm, "--min-circularity", "-1")
            assert r.returncode == 2 and "--min-circularity" in r.stderr, r.stderr
            r, _ = run_tool(pgm, "--min-eccentricity", "0.5", "--max-eccentricity", "0.2")
            assert r.returncode == 1 and "eccentricity" in r.stderr, r.stderr
        tap.check("ccl-label: an unknown property or a bad bound is refused", bad)


def main():
    args = sys.argv[1:]
    print(f"# skimage {skimage.__version__}, NumPy {np.__version__}; algorithms: "
          f"{', '.join(ALGORITHMS)}", flush=True)
    if gpu_note():
        print(f"# the CUDA backend's cases are skipped: {gpu_note()}", flush=True)
    image_cases(args)
    color_cases(args)
    filter_cases()
    api_cases()
    device_array_cases()
    ccl_label_cases(args[3] if len(args) > 3 else "")
    stats.report()
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
