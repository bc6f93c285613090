#!/usr/bin/env python3
"""Plots bench/multistream.sh's CSV: frames per second against the number of streams,
one panel per configuration (foreground model, memory, frame size), one color per mode
(N pipelines in one process, N processes, N processes under MPS): the aggregate (solid),
the per-stream median with its min-max range (dashed), N x the one-stream rate of the
mode (dotted), and the case's copy bound (red) where the CSV has one.

    plot_multistream.py multistream.csv [more.csv ...] out.png [--title TEXT]
        [--engine ENGINE.csv]

Several CSVs (e.g. one run per memory) are drawn together; a configuration and mode
measured in more than one keeps the rows of the last.

--engine: bench/engine_streams' CSV; its run with graphs and without a label image is
drawn on the threshold panels of its frame sizes, as what N engine threads in one
process reach without GStreamer (its own frame: GRAY8, one disc).
"""
import argparse
import csv
import math
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

MODES = (("pipelines", "N pipelines, one process", "tab:blue"),
         ("processes", "N processes", "tab:orange"),
         ("mps", "N processes, MPS", "tab:green"))


def num(text):
    return float(text) if text not in ("", None) else None


def read(path):
    """-> ({config: {mode: [(n, min, median, max, aggregate)]}}, {config: bound_fps},
    {config: (foreground, memory, size)}, comment lines)"""
    runs = defaultdict(lambda: defaultdict(list))
    bounds, meta, notes = {}, {}, []
    with open(path, newline="") as f:
        lines = []
        for line in f:
            if line.startswith("#"):
                notes.append(line[1:].strip())
            else:
                lines.append(line)
    rows = list(csv.DictReader(lines))
    if rows and "config" not in rows[0]:
        sys.exit(f"{path}: not the CSV of the current bench/multistream.sh (no config column)")
    for row in rows:
        config = row["config"]
        meta[config] = (row["foreground"], row["memory"], row["size"])
        if num(row["bound_fps"]):
            bounds[config] = num(row["bound_fps"])
        if num(row["fps_aggregate"]) is None:
            continue  # a failed run
        runs[config][row["mode"]].append((int(row["streams"]), num(row["fps_min"]),
                                          num(row["fps_median"]), num(row["fps_max"]),
                                          num(row["fps_aggregate"])))
    for modes in runs.values():
        for points in modes.values():
            points.sort()
    return runs, bounds, meta, notes


def read_engine(path):
    """engine_streams' CSV blocks: -> {size: [(threads, fps)]} of the block with graphs
    on and no label image (or the last block when none says so)."""
    blocks, current = [], None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# device"):
                current = {"tags": {}, "rows": defaultdict(list)}
                blocks.append(current)
            elif line.startswith("#") and current is not None:
                key, _, value = line[1:].partition(":")
                current["tags"][key.strip()] = value.strip()
            elif line and not line.startswith("size,") and current is not None:
                size, threads, _, fps, _ = line.split(",")
                current["rows"][size].append((int(threads), float(fps)))
    if not blocks:
        return {}
    for b in blocks:
        if b["tags"].get("graphs") == "on" and b["tags"].get("label image") == "not written":
            return b["rows"]
    return blocks[-1]["rows"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", metavar="CSV... PNG")
    ap.add_argument("--title", default="cudaccl, many streams on one GPU")
    ap.add_argument("--engine")
    args = ap.parse_args()
    if len(args.paths) < 2:
        ap.error("give one or more CSVs and the PNG to write")
    *csvs, png = args.paths
    runs, bounds, meta, notes = defaultdict(dict), {}, {}, []
    for path in csvs:
        r, b, m, n = read(path)
        for config, modes in r.items():
            runs[config].update(modes)
        bounds.update(b)
        meta.update(m)
        notes += n
    if not runs:
        sys.exit(f"{', '.join(csvs)}: no measured rows")
    engine = read_engine(args.engine) if args.engine else {}
    configs = sorted(runs, key=lambda c: (int(meta[c][2].split("x")[0]), meta[c][0], meta[c][1]))
    cols = min(3, len(configs))
    rows = math.ceil(len(configs) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.5 * cols, 4.3 * rows), squeeze=False)
    for ax in axes.flat[len(configs):]:
        ax.set_visible(False)
    for ax, config in zip(axes.flat, configs):
        counts = set()
        for mode, label, color in MODES:
            points = runs[config].get(mode)
            if not points:
                continue
            n = [p[0] for p in points]
            counts.update(n)
            ax.plot(n, [p[4] for p in points], "o-", color=color, label=f"{label}: aggregate")
            med = [p[2] for p in points]
            ax.errorbar(n, med, yerr=[[p[2] - p[1] for p in points], [p[3] - p[2] for p in points]],
                        fmt="s--", color=color, alpha=0.6, markersize=4, capsize=3,
                        label=f"{label}: per stream (median, min-max)")
            one = dict((p[0], p[4]) for p in points).get(1)
            if one:
                ax.plot(n, [k * one for k in n], ":", color=color, alpha=0.5)
        if config in bounds:
            ax.axhline(bounds[config], color="tab:red", lw=1.2,
                       label=f"copy bound {bounds[config]:,.0f} fps")
        fg, memory, size = meta[config]
        points = sorted(engine.get(size, [])) if fg == "threshold" else []
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], "^-", color="tab:gray",
                    label="N engine threads, no GStreamer")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(sorted(counts) or [1])
        ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_xlabel("streams N")
        ax.set_ylabel("frames / s")
        ax.set_title(f"{fg}, {memory} memory, {size}", fontsize=10)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7)
    device = next((t.split(":", 1)[1].strip() for t in notes if t.startswith("device:")), "")
    fig.suptitle(args.title + (f" ({device})" if device and device != "unknown" else "")
                 + "; dotted: N x one stream")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


if __name__ == "__main__":
    main()
