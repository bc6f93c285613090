#!/usr/bin/env python3
"""Plots bench/multistream.sh's CSV: aggregate frames per second against the number
of streams, per frame size, for N pipelines in one process and for N processes, each
against the ideal of N times its one-stream rate.

    plot_multistream.py multistream.csv out.png [--title TEXT]
        [--mps MPS.csv] [--engine ENGINE.csv]

--mps: the same script's CSV of a run whose processes shared one MPS daemon (its
processes curve is drawn too). --engine: bench/engine_streams' CSV; its run with
graphs and without a label image (the element's configuration) is drawn as what CUDA
allows N threads of engines in one process, without GStreamer.
"""
import argparse
import csv
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    runs = defaultdict(list)  # (size, mode) -> [(streams, fps)]
    with open(path, newline="") as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            runs[(row["size"], row["mode"])].append((int(row["streams"]), float(row["fps_aggregate"])))
    for points in runs.values():
        points.sort()
    return runs


def read_engine(path):
    """engine_streams' CSV blocks: -> {size: [(threads, fps)]} of the block with graphs
    on and no label image (or the last block when none says so)."""
    blocks, current, tags = [], None, {}
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
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--title", default="cudaccl, many streams on one GPU")
    ap.add_argument("--mps")
    ap.add_argument("--engine")
    args = ap.parse_args()
    runs = read(args.csv)
    mps = read(args.mps) if args.mps else {}
    engine = read_engine(args.engine) if args.engine else {}
    sizes = sorted({size for size, _ in runs}, key=lambda s: int(s.split("x")[0]))
    fig, axes = plt.subplots(1, len(sizes), figsize=(6 * len(sizes), 4.5), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        for mode, one_name, color in (("pipelines", "pipeline", "tab:blue"),
                                      ("processes", "process", "tab:orange")):
            points = runs.get((size, mode))
            if not points:
                continue
            n = [p[0] for p in points]
            fps = [p[1] for p in points]
            one = dict(points).get(1)
            ax.plot(n, fps, "o-", color=color, label=f"N {mode}")
            if one:
                ax.plot(n, [k * one for k in n], ":", color=color, label=f"N x one {one_name}")
                ax.plot(n, [0.8 * k * one for k in n], "--", color=color, alpha=0.4,
                        label=f"0.8 x N x one {one_name}")
        points = mps.get((size, "processes"))
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], "s-", color="tab:green",
                    label="N processes, MPS")
        points = sorted(engine.get(size, []))
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], "^-", color="tab:gray",
                    label="N engine threads, no GStreamer")
        ax.set_xscale("log", base=2)
        ax.set_xticks([p[0] for p in runs.get((size, "pipelines"), [])] or [1])
        ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_xlabel("streams")
        ax.set_ylabel("aggregate frames / s")
        ax.set_title(size)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)
    print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
