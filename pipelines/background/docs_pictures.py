#!/usr/bin/python3
"""The pictures of docs/FOREGROUND.md, made from the runs of pipelines/background.sh:
one frame of the clip with Otsu's level, the same frame with the background model
(foreground tinted), and the background run's trajectory plot, each kept under a
size limit.

    docs_pictures.py --log BACKGROUND_METADATA_LOG --otsu-frames DIR --background-frames DIR
                     --trajectories PNG --out DIR [--frame N] [--max-bytes 300000]

Writes OUT/foreground-otsu.png, OUT/foreground-background.png and
OUT/foreground-trajectories.png. The frame (unless --frame) is picked from the
background run's metadata: the track seen in the most frames is the ball; of the
frames where it has been tracked for a while (its trail is drawn) the one with the
fewest other components, then the one with the ball nearest the middle of the frame.
Frame N is frame-NNNN.png of both folders (multifilesink counts from 0, as the log's
lines do).

A PNG over --max-bytes is scaled down in steps until it fits."""
import argparse
import io
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tracking"))
from plot_tracks import build_tracks, read_frames  # noqa: E402

MIN_FRAME = 20      # the throw is over, the model has settled
MIN_TRAIL_AGE = 12  # frames the ball has been tracked: a trail worth seeing


def pick_frame(frames):
    tracks = build_tracks(frames)
    if not tracks:
        raise ValueError("the background run reported no tracked component")
    ball = max(tracks.values(), key=lambda t: (len(t.frames), -t.id))
    width = frames[0].get("width", 0)
    best = None
    for index, f in enumerate(frames):
        if index < MIN_FRAME:
            continue
        mine = [c for c in f["components"] if c.get("track-id") == ball.id]
        if not mine or mine[0].get("track-age", 0) < MIN_TRAIL_AGE:
            continue
        others = len(f["components"]) - 1
        key = (others, abs(mine[0]["centroid-x"] - width / 2))
        if best is None or key < best[0]:
            best = (key, index)
    if best is None:
        raise ValueError(f"no frame from {MIN_FRAME} on shows track {ball.id} "
                         f"(the most seen) tracked for {MIN_TRAIL_AGE} frames")
    return best[1], ball.id, best[0][0]


def encoded(image):
    buf = io.BytesIO()
    image.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def save_small(src, dst, max_bytes):
    """Copies the PNG src to dst, made smaller when over max_bytes; returns a note."""
    from PIL import Image

    image = Image.open(src).convert("RGB")
    data = encoded(image)
    note = f"{image.width}x{image.height}"
    scale = 1.0
    while len(data) > max_bytes and scale > 0.3:
        # Scaled down in full color: a palette would lose the overlay's few colored
        # pixels (the foreground tint) to the frame's many grays.
        scale *= 0.85
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        data = encoded(image.resize(size, Image.LANCZOS))
        note = f"{size[0]}x{size[1]}, scaled down"
    with open(dst, "wb") as f:
        f.write(data)
    return f"{dst} ({note}, {len(data) // 1024} KB)"


def main(argv):
    ap = argparse.ArgumentParser(description="Makes the pictures of docs/FOREGROUND.md.")
    ap.add_argument("--log", required=True, help="metadata.log of the foreground=background run")
    ap.add_argument("--otsu-frames", required=True, help="overlay frames of the otsu run")
    ap.add_argument("--background-frames", required=True,
                    help="overlay frames of the background run with the foreground tint")
    ap.add_argument("--trajectories", required=True, help="trajectory plot of the background run")
    ap.add_argument("--out", required=True, help="folder for the pictures")
    ap.add_argument("--frame", type=int, help="frame to show (default: picked from the log)")
    ap.add_argument("--max-bytes", type=int, default=300000, help="size limit per PNG")
    args = ap.parse_args(argv)

    try:
        frames = read_frames(args.log)
        if not frames:
            raise ValueError(f"no 'cudaccl' message in {args.log}")
        if args.frame is None:
            index, ball, others = pick_frame(frames)
            why = f"picked: track {ball} (the ball) in its trail, {others} other components"
        else:
            index, why = args.frame, "given"
        pairs = [(os.path.join(args.otsu_frames, f"frame-{index:04d}.png"), "foreground-otsu.png"),
                 (os.path.join(args.background_frames, f"frame-{index:04d}.png"),
                  "foreground-background.png"),
                 (args.trajectories, "foreground-trajectories.png")]
        for src, _ in pairs:
            if not os.path.isfile(src):
                raise ValueError(f"no {src}")
        os.makedirs(args.out, exist_ok=True)
        print(f"docs pictures: frame {index} ({why})")
        for src, name in pairs:
            print("  " + save_small(src, os.path.join(args.out, name), args.max_bytes))
    except (OSError, ValueError) as e:
        print(f"docs_pictures.py: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"docs_pictures.py: {sys.executable} cannot import PIL ({e})", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
