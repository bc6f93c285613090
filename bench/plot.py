#!/usr/bin/python3
"""Plots ccl_bench's CSV: labeling time against density, one panel per image size and
granularity, one line per algorithm/connectivity, with the anchors table's references.

    /usr/bin/python3 bench/plot.py results.csv -o docs/perf-h200.png [--mode labels]
"""
import argparse
import collections

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import csvdata  # noqa: E402

OURS = {  # (algorithm, connectivity): colour, marker
    ("ha4", 8): ("tab:blue", "o"),
    ("komura", 8): ("tab:cyan", "s"),
    ("ha4", 4): ("tab:red", "o"),
    ("komura", 4): ("tab:orange", "s"),
}
REFERENCES = [  # label, function of an anchors row, style
    ("BKE (8-conn ref.)", lambda a: a["bke"], dict(color="black", ls="--")),
    ("goal 8-conn", lambda a: a["goal8"], dict(color="black", ls=":")),
    ("min(KE4, HA4) (4-conn ref.)", lambda a: min(a["ke4"], a["ha4"]), dict(color="grey", ls="--")),
    ("goal 4-conn", lambda a: a["goal4"], dict(color="grey", ls=":")),
]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv")
    p.add_argument("-o", "--output", default="perf.png")
    p.add_argument("--mode", default="labels", choices=["labels", "features"])
    p.add_argument("--anchors", default=csvdata.ANCHORS)
    args = p.parse_args()

    header, rows = csvdata.read_results(args.csv)
    rows = [r for r in rows if r["granularity"] and r["mode"] == args.mode and csvdata.reportable(r)]
    anchors = csvdata.read_anchors(args.anchors)

    sizes = sorted({(int(r["width"]), int(r["height"])) for r in rows} |
                   {(int(a["width"]), int(a["height"])) for a in anchors}, key=lambda s: s[0] * s[1])
    grans = sorted({int(r["granularity"]) for r in rows} | {int(a["granularity"]) for a in anchors})

    fig, axes = plt.subplots(len(sizes), len(grans), figsize=(4.2 * len(grans), 3.0 * len(sizes)),
                             squeeze=False, sharex=True)
    for i, (w, h) in enumerate(sizes):
        for j, g in enumerate(grans):
            ax = axes[i][j]
            series = collections.defaultdict(list)
            for r in rows:
                if (int(r["width"]), int(r["height"]), int(r["granularity"])) == (w, h, g):
                    series[(r["algorithm"], int(r["connectivity"]))].append((r["density"], r["labeling_med_us"]))
            for (algo, conn), points in sorted(series.items()):
                colour, marker = OURS.get((algo, conn), (None, "x"))
                points.sort()
                name = {"ha4": f"HA{conn}", "komura": f"KE{conn if conn == 4 else ''}"}.get(algo, algo)
                ax.plot(*zip(*points), color=colour, marker=marker, ms=4, lw=1.5,
                        label=f"ours {name} ({conn}-conn)")
            refs = sorted((a for a in anchors if (a["width"], a["height"], a["granularity"]) == (w, h, g)),
                          key=lambda a: a["density"])
            for label, value, style in REFERENCES:
                if refs:
                    ax.plot([a["density"] for a in refs], [value(a) for a in refs], lw=1, label=label, **style)
            ax.set_title(f"{w}x{h}, g={g}", fontsize=9)
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
            if j == 0:
                ax.set_ylabel("µs (median)")
            if i == len(sizes) - 1:
                ax.set_xlabel("density")
    handles, labels = axes[0][0].get_legend_handles_labels()
    for row in axes:
        for ax in row:
            for hnd, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in labels:
                    handles.append(hnd)
                    labels.append(lab)
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
    what = "labels + features + consecutive labels" if args.mode == "labels" else "features only (no label image)"
    fig.suptitle(f"cudaccl {what}, {header.get('device', 'unknown device')}", fontsize=10)
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
