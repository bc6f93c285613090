#!/usr/bin/python3
"""Writes a synthetic scene for the tracker as raw I420 frames: bright discs of
different sizes on a dark, slightly noisy background, moving on crossing and
parallel paths; one of them vanishes for a few frames and comes back, one splits in
two, and two of them pass through each other (merge, then part again).

    make_scene.py OUTPUT.i420 [--width 480] [--height 320] [--frames 60] [--seed 1]

Prints the caps to read the file back with (WIDTHxHEIGHT@FPS) and what happens when.
The chroma planes are neutral, so the frames are gray until the overlay colors them.
Paths are laid out for 480x320 and 60 frames and scaled to other sizes."""
import argparse
import sys

import numpy as np

FPS = 10
BASE_W, BASE_H, BASE_FRAMES = 480, 320, 60
BACKGROUND, NOISE_SIGMA = 24, 4.0
# Where the discs are lit, for the threshold the pipeline uses (above 90 is foreground).
FOREGROUND_THRESHOLD = 90

VANISH = range(26, 32)   # frames in which the "blinker" is not drawn
SPLIT_AT = 30            # first frame of the splitter's two parts


def objects(t):
    """(name, x, y, radius, brightness) of every disc in frame t, on the 480x320 /
    60-frame layout. Checked by hand so that only the intended pairs ever touch."""
    out = [
        # Left to right along y=100; the crosser runs through it around frame 20.
        ("big", 40 + 6.5 * t, 100, 24, 230),
        ("crosser", 290 - 6 * t, 20 + 4 * t, 13, 200),
        # Crosses the big disc's path 60 px behind it: paths cross, discs never touch.
        ("climber", 360, 300 - 5 * t, 10, 215),
        # Two discs side by side, same speed, 8 px apart.
        ("pair-a", 450 - 5 * t, 262, 12, 190),
        ("pair-b", 450 - 5 * t, 290, 8, 245),
    ]
    if not VANISH.start <= t < VANISH.stop:
        out.append(("blinker", 60 + 5 * t, 300 - 3 * t, 11, 210))
    if t < SPLIT_AT:
        out.append(("splitter", 100 + 2 * t, 190, 18, 225))
    else:
        s = t - SPLIT_AT
        out.append(("splitter", 100 + 2 * t, 190 - 3 * s, 15, 225))
        out.append(("splitter-part", 100 + 2 * t, 190 + 2 * s, 10, 170))
    return out


def draw(frame, x, y, r, level):
    """A shaded disc: brightest in the middle, still above the threshold at its rim."""
    h, w = frame.shape
    x0, x1 = max(int(x - r - 1), 0), min(int(x + r + 2), w)
    y0, y1 = max(int(y - r - 1), 0), min(int(y + r + 2), h)
    if x0 >= x1 or y0 >= y1:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d2 = (xx + 0.5 - x) ** 2 + (yy + 0.5 - y) ** 2
    inside = d2 <= r * r
    shade = level - 0.35 * (level - FOREGROUND_THRESHOLD - 15) * d2 / (r * r)
    patch = frame[y0:y1, x0:x1]
    patch[inside] = np.maximum(patch[inside], shade[inside])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("output")
    ap.add_argument("--width", type=int, default=BASE_W)
    ap.add_argument("--height", type=int, default=BASE_H)
    ap.add_argument("--frames", type=int, default=BASE_FRAMES)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if args.width < 16 or args.height < 16 or args.frames < 1:
        ap.error("the scene needs at least 16x16 pixels and one frame")

    sx, sy = args.width / BASE_W, args.height / BASE_H
    # Time is scaled too, so that any number of frames plays the whole story.
    st = BASE_FRAMES / args.frames
    rng = np.random.default_rng(args.seed)
    cw, ch = (args.width + 1) // 2, (args.height + 1) // 2
    chroma = np.full(2 * cw * ch, 128, np.uint8).tobytes()
    with open(args.output, "wb") as f:
        for i in range(args.frames):
            t = i * st
            frame = rng.normal(BACKGROUND, NOISE_SIGMA, (args.height, args.width))
            for _, x, y, r, level in objects(t):
                draw(frame, x * sx, y * sy, r * min(sx, sy), level)
            f.write(np.clip(frame, 0, 255).astype(np.uint8).tobytes())
            f.write(chroma)

    def at(frame):
        return round(frame / st)

    print(f"{args.output}: {args.frames} frames, caps {args.width}x{args.height}@{FPS}")
    print("  7 discs: 'big' and 'crosser' pass through each other (merged around frame "
          f"{at(20)}), 'climber' crosses their paths, 'pair-a' and 'pair-b' run side by side,")
    print(f"  'blinker' is gone in frames {at(VANISH.start)}-{at(VANISH.stop - 1)}, "
          f"'splitter' splits in two at frame {at(SPLIT_AT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
