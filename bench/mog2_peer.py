#!/usr/bin/env python3
"""OpenCV's CPU pipeline on the frames bench/foreground_bench used: the peer its GPU
times are read against (issue 26).

Per frame: cv2.createBackgroundSubtractorMOG2() with its defaults (history 500,
varThreshold 16, shadows detected) .apply, shadow pixels (127) dropped as the GPU
model drops them, a 5x5 closing (the GPU's close_radius 2) and
cv2.connectedComponentsWithStats, 8-connected; OpenCV on every core
(cv2.setNumThreads(os.cpu_count())). Frames are read and, for NV12, converted to BGR
before the timing starts; they are played as the bench plays them (back and forth),
warm-up first. Prints CSV (stdout, and --csv PATH):

    foreground_bench --dump DIR [--dump-only] ...
    python3 bench/mog2_peer.py DIR [--warmup N] [--runs N] [--csv PATH]
                               [--gpu-csv foreground_bench.csv]

With --gpu-csv the bench's rows (model, close radius 2) are joined to give the
speedup of the GPU per size and format. Needs Python 3, NumPy and OpenCV only.
"""
import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from peer_util import bench_rows, cpu_name, playback, read_manifest


def load_frames(folder, manifest):
    width, height = int(manifest["width"]), int(manifest["height"])
    ext = manifest["extension"]
    frames = []
    for i in range(int(manifest["frames"])):
        path = folder / f"frame-{i:03d}.{ext}"
        if ext == "pgm":
            img = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
        elif ext == "ppm":
            img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        elif ext == "nv12":
            if width % 2 or height % 2:
                sys.exit(f"mog2_peer: {folder}: NV12 of odd size is not supported")
            raw = np.fromfile(path, np.uint8)
            if raw.size != width * height * 3 // 2:
                sys.exit(f"mog2_peer: {path}: {raw.size} bytes, not an NV12 frame of {width}x{height}")
            img = cv2.cvtColor(raw.reshape(height * 3 // 2, width), cv2.COLOR_YUV2BGR_NV12)
        else:
            sys.exit(f"mog2_peer: {folder}: unknown extension {ext}")
        if img is None or img.shape[0] != height or img.shape[1] != width:
            sys.exit(f"mog2_peer: cannot read {path} as a {width}x{height} frame")
        frames.append(np.ascontiguousarray(img))
    return frames


def run(frames, warmup, runs):
    mog2 = cv2.createBackgroundSubtractorMOG2()
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))
    total, model, components = [], [], []
    for i in range(warmup + runs):
        frame = frames[playback(i, len(frames))]
        t0 = time.perf_counter()
        fg = mog2.apply(frame)
        t1 = time.perf_counter()
        _, binary = cv2.threshold(fg, 200, 255, cv2.THRESH_BINARY)
        closed = cv2.morphologyEx(binary, cv2.MORPH_CLOSE, kernel)
        n, _, _, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
        t2 = time.perf_counter()
        if i >= warmup:
            total.append((t2 - t0) * 1e3)
            model.append((t1 - t0) * 1e3)
            components.append(n - 1)  # label 0 is the background
    return total, model, components


def gpu_rows(path):
    """(size, format) -> median microseconds of the bench's model rows, close radius 2."""
    rows = {}
    for row in bench_rows(path):
        if row.get("case") == "model" and row.get("close_radius") == "2" and row.get("median_us"):
            rows[(row["size"], row["format"])] = float(row["median_us"])
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", type=Path, help="the folder foreground_bench --dump wrote")
    parser.add_argument("--warmup", type=int, help="frames before timing (default: the bench's)")
    parser.add_argument("--runs", type=int, help="timed frames (default: the bench's)")
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="OpenCV threads")
    parser.add_argument("--csv", type=Path, help="also write the CSV here")
    parser.add_argument("--gpu-csv", type=Path, help="foreground_bench's CSV, for the speedup")
    args = parser.parse_args()

    cv2.setNumThreads(args.threads)
    folders = sorted(p.parent for p in args.dump.glob("*/MANIFEST"))
    if not folders:
        sys.exit(f"mog2_peer: no MANIFEST under {args.dump} (run foreground_bench --dump first)")
    gpu = gpu_rows(args.gpu_csv) if args.gpu_csv else {}

    header = [
        f"# cpu: {cpu_name()}, {os.cpu_count()} logical cores; OpenCV {cv2.__version__} with "
        f"{cv2.getNumThreads()} threads; NumPy {np.__version__}; Python {platform.python_version()}",
        "# per frame: MOG2 (defaults) apply + threshold at 200 (shadows out) + 5x5 closing + "
        "connectedComponentsWithStats (8-way); milliseconds; model_ms = apply alone",
    ]
    fields = ["size", "format", "frames", "median_ms", "min_ms", "p90_ms", "model_median_ms",
              "components_median", "gpu_model_close2_us", "speedup"]
    out = [",".join(fields)]
    for line in header:
        print(line)
    print(out[0], flush=True)
    for folder in folders:
        manifest, _ = read_manifest(folder)
        warmup = args.warmup if args.warmup is not None else int(manifest.get("warmup", 300))
        runs = args.runs if args.runs is not None else int(manifest.get("runs", 300))
        frames = load_frames(folder, manifest)
        total, model, components = run(frames, warmup, max(1, runs))
        size = f"{manifest['width']}x{manifest['height']}"
        median = statistics.median(total)
        p90 = sorted(total)[max(0, -(-9 * len(total) // 10) - 1)]
        gpu_us = gpu.get((size, manifest["format"]))
        row = [size, manifest["format"], str(len(total)), f"{median:.2f}", f"{min(total):.2f}",
               f"{p90:.2f}", f"{statistics.median(model):.2f}", f"{statistics.median(components):.0f}",
               f"{gpu_us:.1f}" if gpu_us else "", f"{median * 1e3 / gpu_us:.1f}" if gpu_us else ""]
        out.append(",".join(row))
        print(out[-1], flush=True)
    if args.csv:
        args.csv.write_text("\n".join(header + out) + "\n")


if __name__ == "__main__":
    main()
