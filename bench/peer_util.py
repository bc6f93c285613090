"""What the OpenCV peers of bench/foreground_bench share (mog2_peer.py,
opencv_threshold_peer.py): the dump's MANIFEST, the bench's frame order, the host's CPU
and the bench's CSV rows. Beside them, so that it travels where they do."""
import csv
import platform
from pathlib import Path


def read_manifest(folder):
    """The dump's MANIFEST: (fields, color ranges by name as ((h, s, v), (h, s, v)))."""
    fields, ranges = {}, {}
    for line in (Path(folder) / "MANIFEST").read_text().splitlines():
        key, _, value = line.partition(" ")
        if key.startswith("color_range_"):
            low, high = value.split()
            ranges[key[len("color_range_"):]] = (tuple(int(v) for v in low.split(",")),
                                                 tuple(int(v) for v in high.split(",")))
        elif key:
            fields[key] = value.strip()
    return fields, ranges


def playback(i, distinct):
    """The bench's order: forward, then back, and again."""
    if distinct < 2:
        return 0
    period = 2 * (distinct - 1)
    p = i % period
    return p if p < distinct else period - p


def cpu_name():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def bench_rows(path):
    """The rows of foreground_bench's CSV (its '#' lines left out), as dicts."""
    with open(path, newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    return list(csv.DictReader(lines))
