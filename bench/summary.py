#!/usr/bin/python3
"""Markdown tables for docs/PERFORMANCE.md from ccl_bench's CSV: every random case
against the anchors table, the geometric mean and worst ratio per connectivity, the stage
split and the real images.

    /usr/bin/python3 bench/summary.py results.csv [--mode labels]
"""
import argparse
import collections
import math

import csvdata


def fmt(v, d=1):
    return "-" if v is None else f"{v:.{d}f}"


def ratio_table(rows):
    """rows: labels-mode random rows. Returns markdown lines and per-group ratios."""
    by_case = collections.defaultdict(dict)
    for r in rows:
        by_case[csvdata.case_key(r)][(r["algorithm"], int(r["connectivity"]))] = r
    groups = collections.defaultdict(list)  # (algo or 'best', conn) -> [(ratio, met, case)]
    out = ["| image | d | g | BKE | ours HA 8 | ours KE 8 | best/BKE | goal 8 | min(KE4,HA4) | ours HA 4 | ours KE 4 | best/ref | goal 4 |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(by_case, key=lambda k: (k[0] * k[1], k[2], k[3])):
        w, h, d, g = key
        cells = [f"{w}x{h}", f"{d:g}", str(g)]
        for conn in (8, 4):
            best = None
            ref = goal = None
            ours = []
            for algo in ("ha4", "komura"):
                r = by_case[key].get((algo, conn))
                if r is None or r["ratio"] is None:
                    ours.append("-")
                    continue
                ref, goal = r["reference_us"], r["goal_us"]
                met = r["labeling_med_us"] <= goal
                groups[(algo, conn)].append((r["ratio"], met, key))
                ours.append(fmt(r["labeling_med_us"]) + ("" if met else "*"))
                if best is None or r["ratio"] < best[0]:
                    best = (r["ratio"], met)
            if best:
                groups[("best", conn)].append((best[0], best[1], key))
            cells += [fmt(ref, 2)] + ours + [fmt(best and best[0], 3), fmt(goal)]
        out.append("| " + " | ".join(cells) + " |")
    return out, groups


def group_table(groups):
    out = ["| algorithm | connectivity | cases | geomean ratio | worst ratio | worst case | goal met |",
           "|---|---|---|---|---|---|---|"]
    for (algo, conn) in sorted(groups, key=lambda k: (-k[1], k[0])):
        items = groups[(algo, conn)]
        geo = math.exp(sum(math.log(x[0]) for x in items) / len(items))
        worst = max(items, key=lambda x: x[0])
        w, h, d, g = worst[2]
        out.append(f"| {algo} | {conn} | {len(items)} | {geo:.3f} | {worst[0]:.3f} | "
                   f"{w}x{h} d={d:g} g={g} | {sum(x[1] for x in items)}/{len(items)} |")
    return out


def stage_table(rows):
    out = ["| image | d | g | algo | conn | threshold | local | merge | analysis | labeling | table copy | total (no stage events) | Gpx/s | eff. GB/s | of copy BW |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (r["width"] * r["height"], r["density"], r["granularity"],
                                         r["algorithm"], -r["connectivity"])):
        if r["density"] != 0.5 or r["granularity"] != 4:
            continue
        out.append(f"| {int(r['width'])}x{int(r['height'])} | {r['density']:g} | {int(r['granularity'])} | "
                   f"{r['algorithm']} | {int(r['connectivity'])} | {fmt(r['threshold_med_us'])} | "
                   f"{fmt(r['local_med_us'])} | {fmt(r['merge_med_us'])} | {fmt(r['analysis_med_us'])} | "
                   f"{fmt(r['labeling_med_us'])} | {fmt(r['copy_med_us'])} | {fmt(r['total_med_us'])} | "
                   f"{fmt(r['gpx_per_s'], 2)} | {fmt(r['effective_GBps'], 0)} | {fmt(r['fraction_of_copy_bw'], 2)} |")
    return out


def real_table(rows):
    """One line per real image: labeling median per algorithm and connectivity."""
    out = ["| image | size | components (8 / 4) | HA8 | KE (8) | HA4 | KE4 | HA8 features only |",
           "|---|---|---|---|---|---|---|---|"]
    cells = collections.defaultdict(dict)
    order = []
    for r in rows:
        if r["image"] not in cells:
            order.append(r["image"])
        cells[r["image"]][(r["algorithm"], int(r["connectivity"]), r["mode"])] = r
    for name in order:
        c = cells[name]
        any_row = next(iter(c.values()))

        def t(algo, conn, mode="labels"):
            r = c.get((algo, conn, mode))
            return fmt(r and r["labeling_med_us"])

        def n(conn):
            r = c.get(("ha4", conn, "labels")) or c.get(("komura", conn, "labels"))
            return str(int(r["components"])) if r else "-"
        out.append(f"| {name} | {int(any_row['width'])}x{int(any_row['height'])} | {n(8)} / {n(4)} | "
                   f"{t('ha4', 8)} | {t('komura', 8)} | {t('ha4', 4)} | {t('komura', 4)} | "
                   f"{t('ha4', 8, 'features')} |")
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv")
    p.add_argument("--mode", default="labels", choices=["labels", "features"])
    args = p.parse_args()
    header, rows = csvdata.read_results(args.csv)
    bad = [r for r in rows if not csvdata.reportable(r)]
    good = [r for r in rows if csvdata.reportable(r)]
    random_rows = [r for r in good if r["granularity"]]
    print(f"Device: {header.get('device')}; copy bandwidth {header.get('copy_bandwidth_GBps')} GB/s.\n")
    lines, groups = ratio_table([r for r in random_rows if r["mode"] == args.mode])
    print(f"### Ratio against the anchors table ({args.mode} mode)\n")
    print("\n".join(group_table(groups)))
    print(f"\n### Every case ({args.mode} mode, median µs; * = goal not met)\n")
    print("\n".join(lines))
    print("\n### Stages at density 0.5, g=4 (labels mode, median µs)\n")
    print("\n".join(stage_table([r for r in random_rows if r["mode"] == "labels"])))
    real = [r for r in good if not r["granularity"]]
    if real:
        print("\n### Real images\n")
        print("\n".join(real_table(real)))
    if bad:
        print(f"\n{len(bad)} case(s) not reported:\n")
        for r in bad:
            print(f"- {r['image']} {int(r['width'])}x{int(r['height'])} {r['algorithm']} "
                  f"{int(r['connectivity'])}-conn {r['mode']}: {r['check']}")


if __name__ == "__main__":
    main()
