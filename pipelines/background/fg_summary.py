#!/usr/bin/python3
"""Compares runs of cudaccl on one clip from their metadata logs: per run, how many
components each frame reported and how much of the frame the largest one covered.

    fg_summary.py NAME=METADATA_LOG [NAME=METADATA_LOG ...] [--skip N] [--csv FILE]
                  [--check BACKGROUND_NAME,THRESHOLD_NAME] [--max-share PERCENT]

METADATA_LOG is a metadata.log of pipelines/lib.sh's ccl_launch (or a whole
gst-launch-1.0 -m output): one "cudaccl" message per frame. The first N frames
(--skip, 10) are left out of the table: the background model takes its first frame
as the background and settles over the next few, and the thrown ball is still in the
hand; the same frames are left out of every run so that the rows compare.

The table has one row per run: frames counted, mean reported components per frame,
frames with at least one reported component, the largest reported component's share
of the frame (mean and max over the frames), and the frames in which that share
exceeded --max-share (5 %).

--check B,T asserts what the demo is meant to show, and exits with status 1 when it
does not hold:
  - run B (foreground=background) found something in most frames (at least 80 % of
    the counted frames report a component: the ball in flight), and its largest
    component never covers more than --max-share of the frame;
  - run T (a global threshold, e.g. Otsu's level) has a component larger than
    --max-share of the frame in most counted frames (the lit wall and ceiling).
--csv writes the per-frame figures (run, frame, reported, largest area, share)."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tracking"))
from plot_tracks import read_frames, text_table  # noqa: E402  (the element's messages)


class Run:
    def __init__(self, name, path, skip):
        self.name, self.path = name, path
        self.frames = read_frames(path)
        if not self.frames:
            raise ValueError(f"no 'cudaccl' message in {path}")
        self.skip = min(skip, len(self.frames))
        self.rows = []
        for index, f in enumerate(self.frames):
            size = f.get("width", 0) * f.get("height", 0)
            areas = [c["area"] for c in f["components"]]
            largest = max(areas, default=0)
            reported = f.get("reported-components", len(areas))
            self.rows.append((index, reported, largest, largest / size if size else 0.0))

    def counted(self):
        return self.rows[self.skip:]

    def stats(self, max_share):
        rows = self.counted()
        n = len(rows)
        if n == 0:
            return dict(frames=0, mean_reported=0.0, found=0, mean_share=0.0,
                        max_share=0.0, over=0)
        return dict(frames=n,
                    mean_reported=sum(r[1] for r in rows) / n,
                    found=sum(1 for r in rows if r[1] > 0),
                    mean_share=sum(r[3] for r in rows) / n,
                    max_share=max(r[3] for r in rows),
                    over=sum(1 for r in rows if r[3] > max_share))


def table(runs, max_share):
    head = ("run", "frames", "mean reported", "frames with >= 1",
            "largest: mean share", "largest: max share", f"frames > {max_share:.0%}")
    lines = [head]
    for run in runs:
        s = run.stats(max_share)
        lines.append((run.name, str(s["frames"]), f"{s['mean_reported']:.2f}",
                      f"{s['found']}", f"{100 * s['mean_share']:.2f} %",
                      f"{100 * s['max_share']:.2f} %", str(s["over"])))
    return text_table(lines)


def check(runs, names, max_share):
    by_name = {r.name: r for r in runs}
    try:
        bname, tname = names.split(",")
        b, t = by_name[bname], by_name[tname]
    except (ValueError, KeyError):
        return [f"--check {names}: want two run names of {', '.join(by_name)}"]
    problems = []
    sb, st = b.stats(max_share), t.stats(max_share)
    if sb["frames"] == 0 or st["frames"] == 0:
        return [f"no frame after the first {b.skip} to compare"]
    if sb["found"] < 0.8 * sb["frames"]:
        problems.append(f"{bname}: only {sb['found']} of {sb['frames']} frames report a "
                        "component (the ball should be found in most)")
    if sb["over"]:
        worst = max(b.counted(), key=lambda r: r[3])
        problems.append(f"{bname}: the largest component covers more than {max_share:.0%} "
                        f"of the frame in {sb['over']} frames (worst: frame {worst[0]}, "
                        f"{100 * worst[3]:.1f} %)")
    if st["over"] <= st["frames"] / 2:
        problems.append(f"{tname}: the largest component covers more than {max_share:.0%} of "
                        f"the frame in only {st['over']} of {st['frames']} frames (expected "
                        "the lit wall in most)")
    return problems


def main(argv):
    ap = argparse.ArgumentParser(description="Compares cudaccl runs from their metadata logs.")
    ap.add_argument("runs", nargs="+", metavar="NAME=LOG")
    ap.add_argument("--skip", type=int, default=10,
                    help="frames left out at the start of every run (10)")
    ap.add_argument("--max-share", type=float, default=5.0,
                    help="share of the frame, in percent, a found object stays under (5)")
    ap.add_argument("--csv", help="write the per-frame figures here")
    ap.add_argument("--check", metavar="BACKGROUND,THRESHOLD",
                    help="assert the demo's claims for these two runs (exit 1 if not)")
    args = ap.parse_args(argv)
    max_share = args.max_share / 100

    runs = []
    for spec in args.runs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            ap.error(f"'{spec}': want NAME=METADATA_LOG")
        try:
            runs.append(Run(name, path, args.skip))
        except (OSError, ValueError) as e:
            print(f"fg_summary.py: {e}", file=sys.stderr)
            return 2

    total = len(runs[0].frames)
    if any(len(r.frames) != total for r in runs):
        print("fg_summary.py: the runs have different numbers of frames: "
              + ", ".join(f"{r.name} {len(r.frames)}" for r in runs), file=sys.stderr)
    f0 = runs[0].frames[0]
    print(f"{total} frames of {f0.get('width')}x{f0.get('height')}; the first "
          f"{runs[0].skip} left out, every figure below is over the "
          f"{total - runs[0].skip} others")
    print("\n".join(table(runs, max_share)))

    if args.csv:
        with open(args.csv, "w") as f:
            f.write("run,frame,reported_components,largest_area,largest_share\n")
            for run in runs:
                for index, reported, largest, share in run.rows:
                    f.write(f"{run.name},{index},{reported},{largest},{share:.6f}\n")
        print(f"per-frame figures: {args.csv}")

    if args.check:
        problems = check(runs, args.check, max_share)
        if problems:
            print("\n".join("CHECK FAILED: " + p for p in problems))
            return 1
        b, t = args.check.split(",")
        print(f"check passed: {b} finds the ball in most frames and nothing larger than "
              f"{max_share:.0%} of the frame; {t}'s largest component is larger in most frames")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
