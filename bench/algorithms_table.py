#!/usr/bin/env python3
"""Every algorithm x connectivity of one ccl_bench run against YACCLAB's labels-only
kernels measured on an H100 (bench/anchors-h100.csv).

Ours: labeling_med_us (labels + features + consecutive labels, "labels" mode, the
random grid's cases). Two ratios per row, geometric means over the cases both have:
  - against the same paper's YACCLAB kernel, where YACCLAB has one for that
    connectivity (UF, OLE and STAVA exist 8-connected only);
  - against the fastest of YACCLAB's kernels for that connectivity, per case.
Prints a Markdown table.

usage: algorithms_table.py CCL_BENCH_CSV [ANCHORS_H100_CSV | PEER_BENCH_CSV...]

Peer CSVs are peer_bench's (YACCLAB's kernels run in the same device call as the
bench, before and after it): a kernel measured in several is taken at its mean.
"""
import csv
import math
import os
import sys

from csvdata import read_results

HERE = os.path.dirname(os.path.abspath(__file__))

# Our algorithm (registry nick) -> YACCLAB's kernel of the same paper, per connectivity.
SAME_PAPER = {
    "ha4": {8: "HA8", 4: "HA4"},
    "komura": {8: "KE", 4: "KE4"},
    "stava": {8: "STAVA"},
    "label-equivalence": {8: "OLE"},
    "union-find": {8: "UF"},
}
KERNELS = {8: ["BKE", "BUF", "KE", "HA8", "UF", "OLE", "STAVA"], 4: ["KE4", "HA4"]}


def read_h100_anchors(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    table = {}
    for r in rows:
        key = (int(r["width"]), int(r["height"]), round(float(r["density"]), 2),
               int(r["granularity"]))
        table[key] = {k[:-3]: float(v) for k, v in r.items() if k.endswith("_us") and v}
    return table


def read_peer_runs(paths):
    """peer_bench CSVs (algo, WxH, density, g, median_us, ...) as the anchors' table."""
    sums = {}
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                w, h = (int(v) for v in r["WxH"].split("x"))
                key = (w, h, round(float(r["density"]), 2), int(r["g"]))
                sums.setdefault(key, {}).setdefault(r["algo"], []).append(float(r["median_us"]))
    return {key: {a: sum(v) / len(v) for a, v in kernels.items()} for key, kernels in sums.items()}


def is_peer_csv(path):
    with open(path, newline="") as f:
        return f.readline().startswith("algo,WxH")


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    header, rows = read_results(sys.argv[1])
    extra = sys.argv[2:]
    if extra and is_peer_csv(extra[0]):
        anchors = read_peer_runs(extra)
        measured = "measured in the same run"
    else:
        anchors = read_h100_anchors(extra[0] if extra else os.path.join(HERE, "anchors-h100.csv"))
        measured = "H100"
    groups = {}
    order = []
    for r in rows:
        if r["granularity"] is None or r["mode"] != "labels" or r["labeling_med_us"] is None:
            continue
        key = (int(r["width"]), int(r["height"]), round(r["density"], 2), int(r["granularity"]))
        if key not in anchors:
            continue
        group = (r["algorithm"], int(r["connectivity"]))
        if group not in groups:
            groups[group] = []
            order.append(group)
        groups[group].append((key, r["labeling_med_us"]))

    print(f"Device: {header.get('device', '?')}. Ours: labels + features + consecutive "
          f"labels (median us); YACCLAB: labels only, {measured}. Ratio < 1: ours is faster.\n")
    print("| algorithm | conn | cases | ours geomean us | same paper (YACCLAB) | ratio | "
          "faster in | best YACCLAB per case | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for algorithm, conn in order:
        cases = groups[(algorithm, conn)]
        ours = geomean([us for _, us in cases])
        paper = SAME_PAPER.get(algorithm, {}).get(conn)
        if paper:
            ratios = [us / anchors[k][paper] for k, us in cases if paper in anchors[k]]
            same = (f"{paper} {geomean([anchors[k][paper] for k, _ in cases]):.1f} us",
                    f"**{geomean(ratios):.3f}**", f"{sum(x < 1 for x in ratios)}/{len(ratios)}")
        else:
            same = ("none", "-", "-")
        best = [us / min(anchors[k][n] for n in KERNELS[conn] if n in anchors[k])
                for k, us in cases]
        print(f"| {algorithm} | {conn} | {len(cases)} | {ours:.1f} | {same[0]} | {same[1]} | "
              f"{same[2]} | {', '.join(KERNELS[conn])} | {geomean(best):.3f} |")


if __name__ == "__main__":
    main()
