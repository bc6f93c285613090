#!/usr/bin/env python3
"""cudaccl.label(..., properties="all") on CuPy arrays against scikit-image's label +
regionprops_table, on 1080p frames made from the test cache's photographs.

The GPU machine has no scikit-image, so the run has three steps, and the peer's time is
that of the machine that has it (its CPU is named in the CSV):

    python3 python_blob_bench.py frames DIR --testdata TESTDATA   # the 1080p frames (.npy)
    python3 python_blob_bench.py skimage DIR [--repeat 3]         # skimage's time and table
    python3 python_blob_bench.py cudaccl DIR [--repeat 50]        # on the GPU: ours, compared

A frame is a photograph (TESTDATA/rgb/*.ppm) in BT.601 luma, resized to 1920x1080
(OpenCV's bilinear) and thresholded at its Otsu level, foreground above. The skimage
step writes, per frame, its median wall time and its table (npz); the cudaccl step
times cudaccl.label on the frame as a CuPy array with CUDA events and wall clock
(medians), checks that its table equals skimage's (the integers exactly, the rest to
1e-9 relative) and, bit for bit, the CPU backend's (also with blob filters), and writes DIR/python_blob_bench.csv. Target:
cudaccl at least 100x faster than skimage on every frame.
"""
import argparse
import csv
import glob
import math
import os
import platform
import statistics
import sys
import time

import numpy as np

SK_PROPERTIES = ("label", "area", "intensity_mean", "intensity_min", "intensity_max",
                 "perimeter", "euler_number", "orientation", "axis_major_length",
                 "axis_minor_length", "eccentricity")
WIDTH, HEIGHT = 1920, 1080


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    parts, at = [], 0
    while len(parts) < 4:
        while data[at:at + 1].isspace():
            at += 1
        if data[at:at + 1] == b"#":
            at = data.index(b"\n", at)
            continue
        end = at
        while not data[end:end + 1].isspace():
            end += 1
        parts.append(data[at:end])
        at = end
    w, h = int(parts[1]), int(parts[2])
    return np.frombuffer(data, np.uint8, w * h * 3, at + 1).reshape(h, w, 3)


def otsu(gray):
    hist = np.bincount(gray.ravel(), minlength=256).astype(np.float64)
    total, levels = hist.sum(), np.arange(256)
    w0 = np.cumsum(hist)
    s0 = np.cumsum(hist * levels)
    w1 = total - w0
    with np.errstate(divide="ignore", invalid="ignore"):
        score = (s0[-1] * w0 - s0 * total) ** 2 / (w0 * w1)
    score[~np.isfinite(score)] = -1
    return int(np.argmax(score[:255]))


def make_frames(out, testdata):
    import cv2
    os.makedirs(out, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(testdata, "rgb", "*.ppm"))):
        rgb = read_ppm(path).astype(np.uint32)
        gray = ((77 * rgb[..., 0] + 150 * rgb[..., 1] + 29 * rgb[..., 2] + 128) >> 8)
        frame = cv2.resize(gray.astype(np.uint8), (WIDTH, HEIGHT), interpolation=cv2.INTER_LINEAR)
        name = os.path.splitext(os.path.basename(path))[0]
        np.save(os.path.join(out, name + ".npy"), frame)
        print(f"{name}: {frame.shape[1]}x{frame.shape[0]}, Otsu level {otsu(frame)}")


def frames(out):
    for path in sorted(glob.glob(os.path.join(out, "*.npy"))):
        yield os.path.splitext(os.path.basename(path))[0], np.load(path)


def run_skimage(out, repeat):
    from skimage import measure
    for name, frame in frames(out):
        level = otsu(frame)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            labels = measure.label(frame > level, connectivity=2)
            table = measure.regionprops_table(labels, intensity_image=frame,
                                              properties=SK_PROPERTIES)
            times.append(time.perf_counter() - t0)
        np.savez(os.path.join(out, name + ".skimage.npz"), seconds=statistics.median(times),
                 level=level, cpu=platform.processor() or platform.machine(),
                 **{k: np.asarray(v) for k, v in table.items()})
        print(f"{name}: {len(table['label'])} components, skimage {statistics.median(times):.3f} s")


def compare(got, want):
    """Empty when our table equals skimage's; otherwise what differs."""
    n = len(want["label"])
    if len(got["label"]) != n:
        return f"{len(got['label'])} rows, skimage {n}"
    for k in ("label", "area", "intensity_min", "intensity_max", "euler_number"):
        if not np.array_equal(np.asarray(got[k]).astype(np.int64), want[k].astype(np.int64)):
            return f"{k} differs"
    for k in ("intensity_mean", "perimeter", "axis_major_length", "eccentricity"):
        g, w = np.asarray(got[k], np.float64), want[k].astype(np.float64)
        bad = np.abs(g - w) > 1e-9 * np.abs(w) + np.where(w < 1e-3, 1e-7, 0) * (k == "eccentricity")
        if bad.any():
            return f"{k} differs at label {int(want['label'][np.argmax(bad)])}"
    g, w = np.asarray(got["axis_minor_length"]), want["axis_minor_length"]
    if (np.abs(g - w) > 1e-9 * want["axis_major_length"]).any():
        return "axis_minor_length differs"
    return ""


def same_as_cpu(cudaccl, cupy, x, frame, level):
    """Empty when the GPU's tables (every column, bit for bit) equal the CPU backend's,
    all properties, without and with blob filters; otherwise what differs."""
    for filters in ({}, {"min_circularity": 0.3, "max_eccentricity": 0.95, "min_intensity": 120}):
        _, gpu = cudaccl.label(x, threshold=level, connectivity=8, properties="all", **filters)
        _, cpu = cudaccl.label(frame, threshold=level, connectivity=8, properties="all",
                               backend="cpu", **filters)
        for k, v in cpu.items():
            g = cupy.asnumpy(gpu[k]) if hasattr(gpu[k], "get") else np.asarray(gpu[k])
            if not np.array_equal(g, np.asarray(v), equal_nan=True):
                return f"GPU and CPU differ in {k} (filters {filters})"
    return ""


def run_cudaccl(out, repeat):
    import cupy
    import cudaccl
    device = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"].decode()
    rows = []
    for name, frame in frames(out):
        sk = np.load(os.path.join(out, name + ".skimage.npz"))
        level = int(sk["level"])
        x = cupy.asarray(frame)

        def call():
            return cudaccl.label(x, threshold=level, connectivity=8, properties="all")

        _, table = call()
        host = {k: cupy.asnumpy(v) if hasattr(v, "get") else np.asarray(v)
                for k, v in table.items()}
        check = compare(host, sk) or same_as_cpu(cudaccl, cupy, x, frame, level) or "ok"
        for _ in range(3):
            call()
        cupy.cuda.get_current_stream().synchronize()
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        events, walls = [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            start.record()
            call()
            end.record()
            end.synchronize()
            walls.append(time.perf_counter() - t0)
            events.append(cupy.cuda.get_elapsed_time(start, end) / 1e3)
        wall, gpu = statistics.median(walls), statistics.median(events)
        row = {"frame": name, "width": WIDTH, "height": HEIGHT, "level": level,
               "components": len(sk["label"]), "check": check,
               "skimage_s": float(sk["seconds"]), "skimage_cpu": str(sk["cpu"]),
               "cudaccl_wall_s": wall, "cudaccl_events_s": gpu, "device": device,
               "speedup": float(sk["seconds"]) / wall}
        rows.append(row)
        print(f"{name}: {row['components']} components [{check}] skimage {row['skimage_s'] * 1e3:.1f} ms, "
              f"cudaccl {wall * 1e6:.0f} us (events {gpu * 1e6:.0f} us): {row['speedup']:.0f}x")
    with open(os.path.join(out, "python_blob_bench.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    speedups = [r["speedup"] for r in rows]
    print(f"geomean {math.exp(sum(map(math.log, speedups)) / len(speedups)):.0f}x, "
          f"min {min(speedups):.0f}x; every table equal: {all(r['check'] == 'ok' for r in rows)}")
    return 0 if all(r["check"] == "ok" for r in rows) else 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("step", choices=("frames", "skimage", "cudaccl"))
    p.add_argument("dir")
    p.add_argument("--testdata")
    p.add_argument("--repeat", type=int, default=0)
    a = p.parse_args()
    if a.step == "frames":
        make_frames(a.dir, a.testdata)
        return 0
    if a.step == "skimage":
        run_skimage(a.dir, a.repeat or 3)
        return 0
    return run_cudaccl(a.dir, a.repeat or 50)


if __name__ == "__main__":
    sys.exit(main())
