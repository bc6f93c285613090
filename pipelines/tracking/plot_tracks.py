#!/usr/bin/python3
"""Trajectories of cudaccl's tracks, read from the element's per-frame messages.

    plot_tracks.py METADATA_LOG OUTPUT_PNG [--csv TRACKS_CSV] [--min-area A]
                   [--min-frames N] [--title TEXT] [--list N]

METADATA_LOG holds the messages "cudaccl" (post-messages=true) as gst-launch-1.0 -m
prints them, one per line: the metadata.log of pipelines/lib.sh's ccl_launch, or a
whole gst-launch-1.0 -m output. Each line is one frame; with tracking on it carries
track-id, parent-id, track-age, velocity-x and velocity-y beside the per-component
arrays (label, bbox-*, area, centroid-x, centroid-y).

The plot has one line per track, through its centroids, in frame pixels (y downwards),
colored as the overlay colors the track and labeled with its id. Frames in which a
track was unseen are bridged by a dotted line; a track split off another starts with
a thin dotted link to its parent. --min-area and --min-frames leave small or
short-lived tracks out of the plot (never out of the summary or the CSV).

Prints a summary: frames, tracks, and per track the frames it was seen in. Exit
status 2 when the log has no message or no track ids (tracking off)."""
import argparse
import csv
import os
import re
import statistics
import sys

MESSAGE = "cudaccl"
# One field of a serialized GstStructure: name=(type)value, the value being an array
# "< a, b >", a quoted string, or everything up to the next ", " or the closing ";".
FIELD = re.compile(r'([A-Za-z][A-Za-z0-9_+-]*)=\(([A-Za-z0-9_]+)\)'
                   r'(<[^<>]*>|"(?:[^"\\]|\\.)*"|[^,;]*)')
# Elements of an array may carry their own "(type)" when it differs from the field's.
ELEMENT_TYPE = re.compile(r'^\(([A-Za-z0-9_]+)\)')
INT_TYPES = {"int", "uint", "gint", "guint", "int64", "uint64", "gint64", "guint64",
             "long", "ulong", "glong", "gulong", "uchar", "gchar", "guchar"}
FLOAT_TYPES = {"double", "float", "gdouble", "gfloat"}
ARRAYS = ["label", "bbox-x", "bbox-y", "bbox-width", "bbox-height", "area",
          "centroid-x", "centroid-y", "track-id", "parent-id", "track-age",
          "velocity-x", "velocity-y"]



def text_table(lines):
    """Rows of strings (the first a header) as aligned text lines, a rule under the
    header, the first column left-aligned and the others right-aligned: the demos'
    summaries print their tables with it."""
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    out = []
    for k, line in enumerate(lines):
        out.append("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                             for i, (cell, w) in enumerate(zip(line, widths))))
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return out

def convert(kind, text):
    text = text.strip()
    m = ELEMENT_TYPE.match(text)
    if m:
        kind, text = m.group(1), text[m.end():].strip()
    if kind in INT_TYPES:
        return int(text)
    if kind in FLOAT_TYPES:
        return float(text)
    if kind in ("boolean", "gboolean", "bool"):
        return text.lower() in ("true", "1", "yes", "t")
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1].encode().decode("unicode_escape")
    return text


def parse_structure(text):
    """The fields of one serialized structure, arrays as lists."""
    fields = {}
    for name, kind, value in FIELD.findall(text):
        if value.startswith("<"):
            items = [v for v in value[1:-1].split(",") if v.strip()]
            fields[name] = [convert(kind, v) for v in items]
        else:
            fields[name] = convert(kind, value)
    return fields


def read_frames(path):
    """One dict per message line, in frame order: the structure's fields plus
    "components", a list of per-component dicts built from the aligned arrays."""
    frames = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            # gst-launch-1.0 -m prefixes "Got message #N from element "NAME" (element): ".
            if "(element): " in line:
                line = line.split("(element): ", 1)[1]
            if not line.startswith(MESSAGE + ","):
                continue
            fields = parse_structure(line[len(MESSAGE) + 1:])
            n = len(fields.get("label", []))
            present = [a for a in ARRAYS if isinstance(fields.get(a), list)]
            bad = [a for a in present if len(fields[a]) != n]
            if bad:
                raise ValueError(f"{path}: frame {len(frames)}: arrays {', '.join(bad)} "
                                 f"are not aligned with label ({n} components)")
            fields["components"] = [{a: fields[a][i] for a in present} for i in range(n)]
            frames.append(fields)
    return frames


class Track:
    def __init__(self, track_id):
        self.id = track_id
        self.parent = 0
        self.frames, self.x, self.y, self.area = [], [], [], []

    def add(self, frame, c):
        self.frames.append(frame)
        self.x.append(c["centroid-x"])
        self.y.append(c["centroid-y"])
        self.area.append(c["area"])
        if not self.parent and c.get("parent-id"):
            self.parent = c["parent-id"]

    def mean_area(self):
        return sum(self.area) / len(self.area)

    def runs(self):
        """Index ranges [a, b) of consecutive frames."""
        start = 0
        for i in range(1, len(self.frames) + 1):
            if i == len(self.frames) or self.frames[i] != self.frames[i - 1] + 1:
                yield start, i
                start = i


def build_tracks(frames):
    tracks = {}
    for index, fields in enumerate(frames):
        for c in fields["components"]:
            if "track-id" not in c:
                continue
            t = tracks.get(c["track-id"])
            if t is None:
                t = tracks[c["track-id"]] = Track(c["track-id"])
            t.add(index, c)
    return tracks


def key_color(track_id):
    """The overlay's color of a track (its id folded to 32 bits, then hashed), so
    that the plot's lines match the frames' marks."""
    key = (track_id ^ (track_id >> 32)) & 0xFFFFFFFF or 1
    h = (key * 0x9E3779B1) & 0xFFFFFFFF
    h ^= h >> 15
    h = (h * 0x85EBCA77) & 0xFFFFFFFF
    h ^= h >> 13
    return tuple((64 + (((h >> s) & 0xFF) * 191 >> 8)) / 255 for s in (0, 8, 16))


def summary(path, frames, tracks, listed):
    size = ""
    if frames and "width" in frames[0]:
        size = f" ({frames[0]['width']}x{frames[0]['height']})"
    lines = [f"{path}: {len(frames)} frames{size}, {len(tracks)} tracks"]
    if not tracks:
        return lines
    counts = sorted(len(t.frames) for t in tracks.values())
    everywhere = sum(1 for c in counts if c == len(frames))
    lines.append(f"frames per track: min {counts[0]}, median {statistics.median(counts):g}, "
                 f"max {counts[-1]}; {everywhere} tracks in every frame")
    shown = sorted(tracks.values(), key=lambda t: (-len(t.frames), t.id))
    if listed > 0:
        shown = shown[:listed]
    lines.append("track  frames  first  last  gaps  parent  mean area")
    for t in sorted(shown, key=lambda t: t.id):
        gaps = sum(1 for _ in t.runs()) - 1
        lines.append(f"{t.id:5d}  {len(t.frames):6d}  {t.frames[0]:5d}  {t.frames[-1]:4d}  "
                     f"{gaps:4d}  {t.parent if t.parent else '-':>6}  {t.mean_area():9.1f}")
    if len(shown) < len(tracks):
        listed_ids = {t.id for t in shown}
        rest = sorted(len(t.frames) for t in tracks.values() if t.id not in listed_ids)
        lines.append(f"... and {len(rest)} more tracks ({rest[0]}-{rest[-1]} frames each)")
    return lines


def write_csv(path, frames):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["frame", "timestamp_ns", "track_id", "parent_id", "track_age", "label",
                    "centroid_x", "centroid_y", "area", "velocity_x", "velocity_y"])
        for index, fields in enumerate(frames):
            for c in fields["components"]:
                w.writerow([index, fields.get("timestamp", ""), c.get("track-id", ""),
                            c.get("parent-id", ""), c.get("track-age", ""), c["label"],
                            f"{c['centroid-x']:.3f}", f"{c['centroid-y']:.3f}", c["area"],
                            f"{c.get('velocity-x', 0.0):.3f}", f"{c.get('velocity-y', 0.0):.3f}"])


def plot(path, frames, tracks, chosen, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    width = frames[0].get("width") or max(max(t.x) for t in tracks.values()) + 1
    height = frames[0].get("height") or max(max(t.y) for t in tracks.values()) + 1
    fig_w = 10.0
    fig, ax = plt.subplots(figsize=(fig_w, fig_w * height / width + 0.9), dpi=100)
    # The overlay's colors are bright by design: a dark ground like the frames'.
    ax.set_facecolor("#101010")
    labeled = len(chosen) <= 60
    for t in chosen:
        color = key_color(t.id)
        for a, b in t.runs():
            ax.plot(t.x[a:b], t.y[a:b], "-", color=color, linewidth=1.6,
                    marker="." if b - a < 40 else None, markersize=4)
        for (_, b), (a2, _) in zip(list(t.runs())[:-1], list(t.runs())[1:]):
            ax.plot([t.x[b - 1], t.x[a2]], [t.y[b - 1], t.y[a2]], ":", color=color,
                    linewidth=1.2)
        ax.plot(t.x[0], t.y[0], "o", markerfacecolor="none", color=color, markersize=6)
        ax.plot(t.x[-1], t.y[-1], "o", color=color, markersize=5)
        parent = tracks.get(t.parent)
        before = [i for i, f in enumerate(parent.frames) if f <= t.frames[0]] if parent else []
        if before:
            i = before[-1]
            ax.plot([parent.x[i], t.x[0]], [parent.y[i], t.y[0]], ":", color="#bbbbbb",
                    linewidth=0.8)
        if labeled:
            ax.annotate(str(t.id), (t.x[-1], t.y[-1]), xytext=(4, -4),
                        textcoords="offset points", color=color, fontsize=8,
                        fontweight="bold")
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.set_aspect("equal")
    ax.set_xlabel("x (pixels)")
    ax.set_ylabel("y (pixels, downwards)")
    ax.grid(color="#333333", linewidth=0.5)
    left_out = len(tracks) - len(chosen)
    ax.set_title(f"{title}: {len(chosen)} tracks over {len(frames)} frames"
                 + (f" ({left_out} small or short ones left out)" if left_out else "")
                 + "\nhollow dot: first seen, filled dot: last seen, dotted: unseen"
                 " frames / link to the parent of a split", fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(
        description="Plots and summarizes cudaccl's tracks from its per-frame messages.")
    ap.add_argument("log", help="metadata.log (or a gst-launch-1.0 -m output)")
    ap.add_argument("png", help="the trajectory plot to write")
    ap.add_argument("--csv", help="also write one row per tracked component here")
    ap.add_argument("--min-area", type=float, default=0,
                    help="plot only tracks of at least this mean area (pixels)")
    ap.add_argument("--min-frames", type=int, default=1,
                    help="plot only tracks seen in at least this many frames")
    ap.add_argument("--title", help="plot title (default: the log's folder name)")
    ap.add_argument("--list", type=int, default=20,
                    help="tracks listed in the summary, the longest-lived (0: all)")
    args = ap.parse_args(argv)

    try:
        frames = read_frames(args.log)
    except (OSError, ValueError) as e:
        print(f"plot_tracks.py: {e}", file=sys.stderr)
        return 2
    if not frames:
        print(f"plot_tracks.py: no '{MESSAGE}' message in {args.log} "
              "(was post-messages=true set?)", file=sys.stderr)
        return 2
    if not any(f.get("tracking") or "track-id" in f for f in frames):
        print(f"plot_tracks.py: the messages in {args.log} carry no track ids "
              "(tracking=false, or an element without tracking)", file=sys.stderr)
        return 2

    tracks = build_tracks(frames)
    print("\n".join(summary(args.log, frames, tracks, args.list)))
    if args.csv:
        write_csv(args.csv, frames)
        print(f"per-component rows: {args.csv}")

    chosen = sorted((t for t in tracks.values()
                     if t.mean_area() >= args.min_area and len(t.frames) >= args.min_frames),
                    key=lambda t: t.id)
    title = args.title or os.path.basename(os.path.dirname(os.path.abspath(args.log)))
    try:
        plot(args.png, frames, tracks, chosen, title)
    except ImportError as e:
        print(f"no plot: {sys.executable} cannot import matplotlib ({e})", file=sys.stderr)
        return 0
    print(f"trajectory plot: {args.png} ({len(chosen)} tracks drawn)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
