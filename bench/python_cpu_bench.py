#!/usr/bin/env python3
"""cudaccl.label(..., backend="cpu") against OpenCV's connectedComponentsWithStats,
both on the same CPU threads.

    PYTHONPATH=<build>/python [CUDACCL_LIBRARY=<libccl.so>] python3 python_cpu_bench.py \
        [--testdata DIR] [--threads N] [--repeat 30] [--csv out.csv]

Run it under `taskset -c 0-(N-1)` on a machine with more cores: the engine's CPU
labeler takes as many threads as the process may run on (CCL_CPU_THREADS overrides),
and OpenCV gets cv2.setNumThreads(N).

Per image, median wall milliseconds over --repeat calls after warm-up:
  cudaccl  cudaccl.label(image, backend="cpu"): threshold 128 above, 8-connected, the
           label image (int32) and the component table (box, area, first and second
           moments), as a caller gets them
  opencv   cv2.threshold(image, 127, 1) + cv2.connectedComponentsWithStats(binary, 8,
           CV_32S, CCL_DEFAULT): labels, boxes, areas and centroids (no second moments)
Both must find the same number of components. Goal: cudaccl / opencv <= 1 on every
image. Images: --testdata's gray/*.pgm named in IMAGES (a fax page, coins, ...) and
random images of the YACCLAB recipe at 1920x1080 and 3840x2160."""
import argparse
import csv
import math
import os
import statistics
import sys
import time

import numpy as np
import cv2

import cudaccl

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "tests", "python")]
from peer_util import cpu_name  # noqa: E402
from cudaccl_support import read_pgm, yacclab_random  # noqa: E402

IMAGES = ("ccitt1", "ccitt5", "skimage_coins", "skimage_text", "skimage_page",
          "skimage_camera", "skimage_moon")
RANDOM = ((1920, 1080, 0.5, 1), (1920, 1080, 0.1, 1), (1920, 1080, 0.5, 16),
          (3840, 2160, 0.5, 1), (3840, 2160, 0.9, 4))


def median_ms(fn, repeat):
    for _ in range(3):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def cases(testdata):
    if testdata:
        for name in IMAGES:
            path = os.path.join(testdata, "gray", name + ".pgm")
            if os.path.exists(path):
                yield name, read_pgm(path)
    for w, h, d, g in RANDOM:
        # The recipe gives 0/1; scaled to 0/255 so that threshold 128 separates them.
        yield f"random {w}x{h} d{d} g{g}", yacclab_random(h, w, d, g, seed=7).astype(np.uint8) * 255


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--testdata")
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--csv")
    args = ap.parse_args()
    cv2.setNumThreads(args.threads)
    print(f"# cpu: {cpu_name()}, {len(os.sched_getaffinity(0))} cores allowed; OpenCV "
          f"{cv2.__version__} with {cv2.getNumThreads()} threads; cudaccl backend=cpu")
    rows = []
    for name, image in cases(args.testdata):
        image = np.ascontiguousarray(image)
        _, table = cudaccl.label(image, backend="cpu")
        binary = (image > 128).astype(np.uint8)
        n_cv = cv2.connectedComponentsWithStats(binary, connectivity=8, ltype=cv2.CV_32S)[0] - 1
        if len(table["area"]) != n_cv:
            sys.exit(f"{name}: cudaccl found {len(table['area'])} components, OpenCV {n_cv}")

        def ours():
            cudaccl.label(image, backend="cpu")

        def theirs():
            _, b = cv2.threshold(image, 128, 1, cv2.THRESH_BINARY)
            cv2.connectedComponentsWithStats(b, connectivity=8, ltype=cv2.CV_32S)

        a = median_ms(ours, args.repeat)
        b = median_ms(theirs, args.repeat)
        rows.append(dict(image=name, width=image.shape[1], height=image.shape[0],
                         components=n_cv, threads=args.threads, cudaccl_ms=round(a, 3),
                         opencv_ms=round(b, 3), ratio=round(a / b, 3)))
        print(",".join(str(v) for v in rows[-1].values()), flush=True)
    geo = math.exp(statistics.fmean(math.log(r["ratio"]) for r in rows))
    print(f"# ratio cudaccl/opencv: geomean {geo:.3f}, worst {max(r['ratio'] for r in rows):.3f}"
          f" ({max(rows, key=lambda r: r['ratio'])['image']}); goal <= 1 on every image")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
