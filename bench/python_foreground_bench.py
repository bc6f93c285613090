#!/usr/bin/env python3
"""The foreground models on the CPU backend against OpenCV's CPU pipelines, per video
frame, with the same threads: what a user without a GPU gets from cudaccl.Labeler.

    PYTHONPATH=<build>/python [CUDACCL_LIBRARY=<libccl.so>] python3 \
        python_foreground_bench.py VIDEO [--frames 300] [--threads N] [--csv out.csv]

Run it under `taskset -c 0-(N-1)` on a machine with more cores: the engine takes as
many threads as the process may run on (CCL_CPU_THREADS overrides), OpenCV gets
cv2.setNumThreads(N). The clip is decoded (OpenCV) before any timing; each model sees
the frames in order, its first 20 untimed (the background model is still learning).

Per frame, wall milliseconds (median, and 90th percentile):
  background  Labeler(foreground="background", close_radius=2, backend="cpu",
              track=False)(rgb) against MOG2 (defaults) .apply(bgr), shadows (127)
              dropped, a 5x5 closing and connectedComponentsWithStats (8-way)
  local       Labeler(foreground="local", block_size=31, offset=10) on the frame's luma
              against adaptiveThreshold(MEAN_C, 31, 10) + connectedComponentsWithStats
  color       Labeler(foreground="color", color_low=(0, 80, 80),
              color_high=(20, 255, 255))(rgb) against cvtColor(BGR2HSV) + inRange +
              connectedComponentsWithStats
Ours also gives each component's moments (OpenCV: box, area and centroid). Goal: ratio
cudaccl / OpenCV <= 1 for each."""
import argparse
import csv
import os
import statistics
import sys
import time

import numpy as np
import cv2

import cudaccl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_util import cpu_name  # noqa: E402

WARMUP = 20


def decode(path, limit):
    cap = cv2.VideoCapture(path)
    frames = []
    while len(frames) < limit:
        ok, bgr = cap.read()
        if not ok:
            break
        frames.append(bgr)
    if not frames:
        sys.exit(f"python_foreground_bench: could not decode {path}")
    return frames


def per_frame_ms(fn, inputs):
    times = []
    for i, x in enumerate(inputs):
        t0 = time.perf_counter()
        fn(x)
        if i >= WARMUP:
            times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return statistics.median(times), times[int(0.9 * (len(times) - 1))]


def cases(frames):
    rgb = [np.ascontiguousarray(f[:, :, ::-1]) for f in frames]
    gray = [cv2.cvtColor(f, cv2.COLOR_BGR2GRAY) for f in frames]
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))

    def mog2_pipeline():
        model = cv2.createBackgroundSubtractorMOG2()

        def run(bgr):
            fg = model.apply(bgr)
            _, fg = cv2.threshold(fg, 200, 255, cv2.THRESH_BINARY)
            fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, kernel)
            cv2.connectedComponentsWithStats(fg, connectivity=8, ltype=cv2.CV_32S)
        return run

    def adaptive(g):
        fg = cv2.adaptiveThreshold(g, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, 31, 10)
        cv2.connectedComponentsWithStats(fg, connectivity=8, ltype=cv2.CV_32S)

    def in_range(bgr):
        hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
        fg = cv2.inRange(hsv, (0, 80, 80), (20, 255, 255))
        cv2.connectedComponentsWithStats(fg, connectivity=8, ltype=cv2.CV_32S)

    yield ("background",
           lambda: cudaccl.Labeler(foreground="background", close_radius=2, backend="cpu",
                                   track=False), rgb,
           mog2_pipeline, frames)
    yield ("local",
           lambda: cudaccl.Labeler(foreground="local", block_size=31, offset=10.0,
                                   backend="cpu", track=False), gray,
           lambda: adaptive, gray)
    yield ("color",
           lambda: cudaccl.Labeler(foreground="color", color_low=(0, 80, 80),
                                   color_high=(20, 255, 255), backend="cpu", track=False), rgb,
           lambda: in_range, frames)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("video")
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--csv")
    args = ap.parse_args()
    cv2.setNumThreads(args.threads)
    frames = decode(args.video, args.frames)
    h, w = frames[0].shape[:2]
    print(f"# cpu: {cpu_name()}, {len(os.sched_getaffinity(0))} cores allowed; OpenCV "
          f"{cv2.__version__} with {cv2.getNumThreads()} threads; cudaccl backend=cpu, "
          f"CCL_CPU_THREADS={os.environ.get('CCL_CPU_THREADS', '(unset)')}")
    print(f"# {os.path.basename(args.video)}: {len(frames)} frames of {w}x{h}, first "
          f"{WARMUP} untimed")
    rows = []
    for name, make_ours, ours_in, make_theirs, theirs_in in cases(frames):
        lab = make_ours()
        ours = per_frame_ms(lambda x: lab(x), ours_in)
        lab.close()
        theirs = per_frame_ms(make_theirs(), theirs_in)
        rows.append(dict(model=name, width=w, height=h, frames=len(frames),
                         threads=args.threads, cudaccl_ms=round(ours[0], 3),
                         cudaccl_p90_ms=round(ours[1], 3), opencv_ms=round(theirs[0], 3),
                         opencv_p90_ms=round(theirs[1], 3),
                         ratio=round(ours[0] / theirs[0], 3)))
        print(",".join(str(v) for v in rows[-1].values()), flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            out = csv.DictWriter(f, fieldnames=list(rows[0]))
            out.writeheader()
            out.writerows(rows)


if __name__ == "__main__":
    main()
