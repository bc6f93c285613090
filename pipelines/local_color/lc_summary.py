#!/usr/bin/python3
"""Summarizes runs of cudaccl from their metadata logs: per run, the components of its
frames and how much of the frame the largest one covers.

    lc_summary.py NAME=METADATA_LOG [NAME=METADATA_LOG ...] [--csv FILE]
                  [--check-local LOCAL,GLOBAL] [--check-color NAME]

METADATA_LOG is a metadata.log of pipelines/lib.sh's ccl_launch (one "cudaccl"
message per frame). The table has one row per run: frames, components per frame (all
of them, and those reported), frames with at least one reported component, and the
largest reported component's share of the frame (mean and max over the frames).

--check-local L,G asserts what the still image is meant to show (exit 1 otherwise):
  run L (foreground=local) finds many small components (at least 100, the letters) and
  none of them covers 1 % of the frame, while run G (one global level) has a component
  of more than 10 % of the frame (the part of the page the light leaves dim).
--check-color C asserts what the clip is meant to show: run C (foreground=color)
  reports a component in at least 80 % of the frames (the ball) and never one of more
  than 1 % of the frame.
--csv writes the per-frame figures (run, frame, total, reported, largest area, share)."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tracking"))
from plot_tracks import read_frames, text_table  # noqa: E402  (the element's messages)


class Run:
    def __init__(self, name, path):
        self.name, self.path = name, path
        frames = read_frames(path)
        if not frames:
            raise ValueError(f"no 'cudaccl' message in {path}")
        self.size = frames[0].get("width", 0) * frames[0].get("height", 0)
        self.rows = []
        for index, f in enumerate(frames):
            size = f.get("width", 0) * f.get("height", 0)
            areas = [c["area"] for c in f["components"]]
            largest = max(areas, default=0)
            reported = f.get("reported-components", len(areas))
            total = f.get("total-components", reported)
            self.rows.append((index, total, reported, largest, largest / size if size else 0.0))

    def stats(self):
        n = len(self.rows)
        return dict(frames=n,
                    total=sum(r[1] for r in self.rows) / n,
                    reported=sum(r[2] for r in self.rows) / n,
                    found=sum(1 for r in self.rows if r[2] > 0),
                    mean_share=sum(r[4] for r in self.rows) / n,
                    max_share=max(r[4] for r in self.rows))


def table(runs):
    head = ("run", "frames", "components", "reported", "frames with >= 1",
            "largest: mean share", "largest: max share")
    lines = [head]
    for run in runs:
        s = run.stats()
        lines.append((run.name, str(s["frames"]), f"{s['total']:.1f}", f"{s['reported']:.1f}",
                      str(s["found"]), f"{100 * s['mean_share']:.2f} %",
                      f"{100 * s['max_share']:.2f} %"))
    return text_table(lines)


def check_local(by_name, names):
    try:
        lname, gname = names.split(",")
        local, glob = by_name[lname], by_name[gname]
    except (ValueError, KeyError):
        return [f"--check-local {names}: want two run names of {', '.join(by_name)}"]
    problems = []
    sl, sg = local.stats(), glob.stats()
    if sl["reported"] < 100:
        problems.append(f"{lname}: only {sl['reported']:.0f} components (expected the letters, "
                        "100 or more)")
    if sl["max_share"] >= 0.01:
        problems.append(f"{lname}: a component covers {100 * sl['max_share']:.1f} % of the "
                        "frame (expected letters only, each under 1 %)")
    if sg["max_share"] <= 0.10:
        problems.append(f"{gname}: its largest component covers only "
                        f"{100 * sg['max_share']:.1f} % of the frame (expected the dim part "
                        "of the page, over 10 %)")
    return problems


def check_color(by_name, name):
    if name not in by_name:
        return [f"--check-color {name}: not a run name of {', '.join(by_name)}"]
    s = by_name[name].stats()
    problems = []
    if s["found"] < 0.8 * s["frames"]:
        problems.append(f"{name}: only {s['found']} of {s['frames']} frames report a "
                        "component (the ball should be found in most)")
    if s["max_share"] >= 0.01:
        problems.append(f"{name}: a component covers {100 * s['max_share']:.2f} % of the "
                        "frame (expected the ball only, under 1 %)")
    return problems


def main(argv):
    ap = argparse.ArgumentParser(description="Summarizes cudaccl runs from their metadata logs.")
    ap.add_argument("runs", nargs="+", metavar="NAME=LOG")
    ap.add_argument("--csv", help="write the per-frame figures here")
    ap.add_argument("--check-local", metavar="LOCAL,GLOBAL",
                    help="assert the still image's claims for these two runs (exit 1 if not)")
    ap.add_argument("--check-color", metavar="NAME",
                    help="assert the clip's claims for this run (exit 1 if not)")
    args = ap.parse_args(argv)

    runs = []
    for spec in args.runs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            ap.error(f"'{spec}': want NAME=METADATA_LOG")
        try:
            runs.append(Run(name, path))
        except (OSError, ValueError) as e:
            print(f"lc_summary.py: {e}", file=sys.stderr)
            return 2
    print("\n".join(table(runs)))

    if args.csv:
        with open(args.csv, "w") as f:
            f.write("run,frame,total_components,reported_components,largest_area,largest_share\n")
            for run in runs:
                for index, total, reported, largest, share in run.rows:
                    f.write(f"{run.name},{index},{total},{reported},{largest},{share:.6f}\n")
        print(f"per-frame figures: {args.csv}")

    by_name = {r.name: r for r in runs}
    problems = []
    if args.check_local:
        problems += check_local(by_name, args.check_local)
    if args.check_color:
        problems += check_color(by_name, args.check_color)
    if problems:
        print("\n".join("CHECK FAILED: " + p for p in problems))
        return 1
    if args.check_local or args.check_color:
        print("check passed: " + "; ".join(
            ([f"{args.check_local.split(',')[0]} finds the letters, "
              f"{args.check_local.split(',')[1]} a blob over 10 % of the page"]
             if args.check_local else []) +
            ([f"{args.check_color} finds the ball in most frames, nothing over 1 %"]
             if args.check_color else [])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
