#!/usr/bin/python3
"""Draws the picture of docs/BLOBS.md: scikit-image's coins, labeled by cudaccl through
its Python package with blob properties, each component colored by its circularity
(left; outlined when min_circularity=0.8 keeps it) and by its mean intensity (right).

    PYTHONPATH=build/python /usr/bin/python3 scripts/plot-blobs.py \
        [-o docs/blobs-circularity.png] [--backend cpu|cuda|auto]

Needs the cudaccl package of a build (PYTHONPATH=BUILD/python), NumPy, scikit-image
(only for its sample image) and matplotlib. The values do not depend on the backend
(the CPU and the GPU compute the same integer sums). Fails when the PNG is 300 KB or
more."""
import argparse
import os
import sys

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import skimage.data  # noqa: E402

import cudaccl  # noqa: E402

THRESHOLD = 110       # the coins are brighter than this, the background darker
MIN_AREA = 100        # leaves the specks of noise out
MIN_CIRCULARITY = 0.8  # the filter the left panel outlines
PROPERTIES = ["circularity", "perimeter", "intensity_mean", "euler_number"]


def colored(labels, table, column, cmap, vmin, vmax):
    """An RGBA image: each reported component in its value's color, the rest clear."""
    lut = np.full(int(labels.max()) + 1, np.nan)
    lut[table["label"]] = table[column]
    values = lut[labels]
    rgba = cmap(np.clip((values - vmin) / (vmax - vmin), 0, 1))
    rgba[..., 3] = np.where(np.isnan(values), 0.0, 0.75)
    return rgba


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output",
                        default=os.path.normpath(os.path.join(here, "..", "docs", "blobs-circularity.png")))
    parser.add_argument("--backend", default="cpu", choices=["cpu", "cuda", "auto"])
    args = parser.parse_args(argv)

    coins = skimage.data.coins()
    labels, table = cudaccl.label(coins, threshold=THRESHOLD, min_area=MIN_AREA,
                                  properties=PROPERTIES, backend=args.backend)
    # The same call with the filter: the rows it keeps are those of the unfiltered
    # table whose circularity is at least the bound.
    _, kept = cudaccl.label(coins, threshold=THRESHOLD, min_area=MIN_AREA,
                            min_circularity=MIN_CIRCULARITY, return_labels=False,
                            backend=args.backend)
    assert set(kept["label"]) == set(table["label"][table["circularity"] >= MIN_CIRCULARITY])

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.6))
    panels = [
        (left, "circularity", plt.get_cmap("viridis"), 0.0, 1.0,
         f"circularity = 4\u03c0 area / perimeter\u00b2\n"
         f"outlined: kept by min_circularity={MIN_CIRCULARITY} "
         f"({len(kept['label'])} of {len(table['label'])})", "{:.2f}"),
        (right, "intensity_mean", plt.get_cmap("magma"), 100.0, 200.0,
         "intensity_mean (luma 0..255)", "{:.0f}"),
    ]
    for ax, column, cmap, vmin, vmax, title, fmt in panels:
        ax.imshow(coins, cmap="gray", vmin=0, vmax=255)
        ax.imshow(colored(labels, table, column, cmap, vmin, vmax), interpolation="nearest")
        for i in range(len(table["label"])):
            ax.annotate(fmt.format(table[column][i]),
                        (table["centroid-1"][i], table["centroid-0"][i]),
                        ha="center", va="center", fontsize=7, color="white",
                        fontweight="bold")
        ax.set_title(title, fontsize=9)
        ax.set_axis_off()
        mappable = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(vmin, vmax))
        fig.colorbar(mappable, ax=ax, fraction=0.035, pad=0.02)
    for i in np.flatnonzero(np.isin(table["label"], kept["label"])):
        r0, c0, r1, c1 = (table[f"bbox-{k}"][i] for k in range(4))
        left.add_patch(plt.Rectangle((c0 - 0.5, r0 - 0.5), c1 - c0, r1 - r0, fill=False,
                                     color="white", linewidth=1))
    fig.suptitle(f"cudaccl.label(coins, threshold={THRESHOLD}, min_area={MIN_AREA}, "
                 f"properties={PROPERTIES})", fontsize=9)
    fig.tight_layout()
    fig.savefig(args.output, dpi=80)
    size = os.path.getsize(args.output)
    print(f"{args.output}: {len(table['label'])} components, {len(kept['label'])} kept, "
          f"{size // 1024} KB")
    return 0 if size < 300 * 1024 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
