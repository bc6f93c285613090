#!/usr/bin/env python3
"""OpenCV's CPU threshold steps on the frames bench/foreground_bench dumped: the peer its
local threshold and color range are read against (issue 28).

OpenCV runs on every core (cv2.setNumThreads(os.cpu_count())). Frames are read, and
their 8-bit luma made, before any timing; each step runs on the frames in the bench's
order (back and forth), warm-up first, and its median (also min and p90) over the
timed frames is reported, in milliseconds. Some steps use one core whatever the
setting (adaptiveThreshold's box filter does), so each is also run on --threads frames
at once (a thread pool; OpenCV releases the GIL): throughput_ms is the wall time per
frame then, OpenCV's best use of all the cores. The steps:

  adaptive           cv2.adaptiveThreshold(luma, 255, ADAPTIVE_THRESH_MEAN_C,
                     THRESH_BINARY, B, offset) for each --blocks B: the threshold step
                     alone, the luma given (the GPU's local stage does what it does)
  local-pipeline     the luma from the frame (GRAY8: the frame; NV12: its Y plane, a
                     view; RGB: cv2.cvtColor BGR2GRAY, OpenCV's weights, the same work as
                     the engine's integer BT.601), adaptiveThreshold and
                     cv2.connectedComponentsWithStats (8-way): what the GPU's local row
                     does
  hsv-inrange        color frames only: cv2.cvtColor to HSV (NV12: COLOR_YUV2RGB_NV12
                     first, then RGB2HSV; PPM frames are read as BGR: BGR2HSV) and
                     cv2.inRange with each color range of the MANIFEST (a hue range with
                     low > high: two inRange, OR-ed): the color stage's work
  color-pipeline     hsv-inrange + connectedComponentsWithStats (8-way)

    foreground_bench --dump DIR [--dump-only] ...
    python3 bench/opencv_threshold_peer.py DIR [--blocks 31,255] [--offset 10]
        [--warmup N] [--runs N] [--threads N] [--steps adaptive,...] [--csv PATH]
        [--gpu-csv foreground_bench.csv]

With --gpu-csv the bench's rows join each step: adaptive and local-pipeline against
local-bB (local + labeling + features) and stage-local-bB (the local stage alone),
hsv-inrange and color-pipeline against color-NAME and stage-color-NAME; speedup =
OpenCV's median / the GPU's (speedup_full_tp: OpenCV's throughput_ms / the GPU's full
row). The issue's target: the GPU's full row at least 50 times faster than OpenCV's
threshold step alone (speedup_full and speedup_full_tp of the adaptive and hsv-inrange
rows). Needs Python 3, NumPy and OpenCV only.
"""
import argparse
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from peer_util import bench_rows, cpu_name, playback, read_manifest

STEPS = ("adaptive", "local-pipeline", "hsv-inrange", "color-pipeline")


class Frame:
    """One dumped frame: its color image for the HSV steps (BGR, or NV12 raw) and luma."""

    def __init__(self, path, ext, width, height):
        self.ext = ext
        if ext == "pgm":
            self.image = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
            self.luma = self.image
        elif ext == "ppm":
            self.image = cv2.imread(str(path), cv2.IMREAD_COLOR)  # BGR
            self.luma = cv2.cvtColor(self.image, cv2.COLOR_BGR2GRAY)
        elif ext == "nv12":
            if width % 2 or height % 2:
                sys.exit(f"opencv_threshold_peer: {path}: NV12 of odd size is not supported")
            raw = np.fromfile(path, np.uint8)
            if raw.size != width * height * 3 // 2:
                sys.exit(f"opencv_threshold_peer: {path}: {raw.size} bytes, not NV12 {width}x{height}")
            self.image = raw.reshape(height * 3 // 2, width)
            self.luma = self.image[:height]
        else:
            sys.exit(f"opencv_threshold_peer: {path}: unknown extension {ext}")
        if self.luma is None or self.luma.shape != (height, width):
            sys.exit(f"opencv_threshold_peer: cannot read {path} as a {width}x{height} frame")

    def make_luma(self):
        if self.ext == "ppm":
            return cv2.cvtColor(self.image, cv2.COLOR_BGR2GRAY)
        return self.luma  # GRAY8: the frame; NV12: the Y plane (a view)

    def hsv(self):
        if self.ext == "nv12":
            return cv2.cvtColor(cv2.cvtColor(self.image, cv2.COLOR_YUV2RGB_NV12), cv2.COLOR_RGB2HSV)
        return cv2.cvtColor(self.image, cv2.COLOR_BGR2HSV)


def in_range(hsv, low, high):
    if low[0] <= high[0]:
        return cv2.inRange(hsv, low, high)
    # A hue range around red: hues >= low or <= high.
    upper = cv2.inRange(hsv, low, (179, high[1], high[2]))
    lower = cv2.inRange(hsv, (0, low[1], low[2]), high)
    return cv2.bitwise_or(upper, lower)


def timed(frames, warmup, runs, step):
    """Milliseconds of step(frame) per timed frame."""
    ms = []
    for i in range(warmup + runs):
        frame = frames[playback(i, len(frames))]
        t0 = time.perf_counter()
        step(frame)
        t1 = time.perf_counter()
        if i >= warmup:
            ms.append((t1 - t0) * 1e3)
    return ms


def throughput(frames, runs, step, threads):
    """Wall milliseconds per frame with `threads` frames in flight at once."""
    order = [frames[playback(i, len(frames))] for i in range(max(runs, threads))]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(step, order[:threads]))  # warm-up: every worker once
        t0 = time.perf_counter()
        list(pool.map(step, order))
        t1 = time.perf_counter()
    return (t1 - t0) * 1e3 / len(order)


def gpu_rows(path):
    """(size, format, case) -> median microseconds of foreground_bench's CSV."""
    rows = {}
    for row in bench_rows(path):
        if row.get("median_us"):
            rows[(row["size"], row["format"], row["case"])] = float(row["median_us"])
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", type=Path, help="the folder foreground_bench --dump wrote")
    parser.add_argument("--blocks", default="31,255", help="adaptiveThreshold block sizes")
    parser.add_argument("--offset", type=float, default=10.0, help="adaptiveThreshold's C")
    parser.add_argument("--warmup", type=int, help="frames before timing (default: the bench's)")
    parser.add_argument("--runs", type=int, help="timed frames (default: the bench's)")
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="OpenCV threads")
    parser.add_argument("--steps", default=",".join(STEPS), help="which steps to time")
    parser.add_argument("--csv", type=Path, help="also write the CSV here")
    parser.add_argument("--gpu-csv", type=Path, help="foreground_bench's CSV, for the speedups")
    args = parser.parse_args()

    blocks = [int(b) for b in args.blocks.split(",") if b]
    steps = [s for s in args.steps.split(",") if s]
    for s in steps:
        if s not in STEPS:
            sys.exit(f"opencv_threshold_peer: unknown step {s} ({', '.join(STEPS)})")
    cv2.setNumThreads(args.threads)
    folders = sorted(p.parent for p in args.dump.glob("*/MANIFEST"))
    if not folders:
        sys.exit(f"opencv_threshold_peer: no MANIFEST under {args.dump} (run foreground_bench --dump first)")
    gpu = gpu_rows(args.gpu_csv) if args.gpu_csv else {}

    header = [
        f"# cpu: {cpu_name()}, {os.cpu_count()} logical cores; OpenCV {cv2.__version__} with "
        f"{cv2.getNumThreads()} threads; NumPy {np.__version__}; Python {platform.python_version()}",
        f"# milliseconds per frame, medians over the timed frames; adaptiveThreshold MEAN_C "
        f"THRESH_BINARY offset {args.offset:g}; connectedComponentsWithStats 8-way; speedup_full = "
        f"median_ms / the GPU's full row (gpu_us), speedup_stage = median_ms / the GPU's stage "
        f"alone (gpu_stage_us); throughput_ms: wall time per frame with {args.threads} frames at once",
    ]
    fields = ["size", "format", "step", "param", "frames", "median_ms", "min_ms", "p90_ms",
              "throughput_ms", "gpu_case", "gpu_us", "speedup_full", "speedup_full_tp", "gpu_stage_us",
              "speedup_stage"]
    out = [",".join(fields)]
    for line in header:
        print(line)
    print(out[0], flush=True)
    for folder in folders:
        manifest, ranges = read_manifest(folder)
        width, height = int(manifest["width"]), int(manifest["height"])
        ext = manifest["extension"]
        warmup = args.warmup if args.warmup is not None else int(manifest.get("warmup", 300))
        runs = max(1, args.runs if args.runs is not None else int(manifest.get("runs", 300)))
        frames = [Frame(folder / f"frame-{i:03d}.{ext}", ext, width, height)
                  for i in range(int(manifest["frames"]))]
        size, fmt = f"{width}x{height}", manifest["format"]

        def adaptive(luma, block):
            return cv2.adaptiveThreshold(luma, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY,
                                         block, args.offset)

        jobs = []  # (step, param, function of a frame, GPU case)
        for b in blocks:
            if "adaptive" in steps:
                jobs.append(("adaptive", str(b), lambda f, b=b: adaptive(f.luma, b), f"local-b{b}"))
            if "local-pipeline" in steps:
                jobs.append(("local-pipeline", str(b),
                             lambda f, b=b: cv2.connectedComponentsWithStats(adaptive(f.make_luma(), b),
                                                                             connectivity=8),
                             f"local-b{b}"))
        if ext != "pgm":
            for name, (low, high) in ranges.items():
                if "hsv-inrange" in steps:
                    jobs.append(("hsv-inrange", name, lambda f, lo=low, hi=high: in_range(f.hsv(), lo, hi),
                                 f"color-{name}"))
                if "color-pipeline" in steps:
                    jobs.append(("color-pipeline", name,
                                 lambda f, lo=low, hi=high: cv2.connectedComponentsWithStats(
                                     in_range(f.hsv(), lo, hi), connectivity=8),
                                 f"color-{name}"))
        for step, param, function, case in jobs:
            ms = timed(frames, warmup, runs, function)
            tp = throughput(frames, runs, function, max(1, args.threads))
            median = statistics.median(ms)
            p90 = sorted(ms)[max(0, -(-9 * len(ms) // 10) - 1)]
            full, stage = gpu.get((size, fmt, case)), gpu.get((size, fmt, "stage-" + case))
            row = [size, fmt, step, param, str(len(ms)), f"{median:.3f}", f"{min(ms):.3f}", f"{p90:.3f}",
                   f"{tp:.3f}", case if full or stage else "", f"{full:.1f}" if full else "",
                   f"{median * 1e3 / full:.1f}" if full else "", f"{tp * 1e3 / full:.1f}" if full else "",
                   f"{stage:.1f}" if stage else "", f"{median * 1e3 / stage:.1f}" if stage else ""]
            out.append(",".join(row))
            print(out[-1], flush=True)
    if args.csv:
        args.csv.write_text("\n".join(header + out) + "\n")


if __name__ == "__main__":
    main()
