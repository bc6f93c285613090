#!/usr/bin/python3
"""Runs cudaccl over a video and reads its GstCclMeta from Python.

    ccl_meta_plot.py [options] [FILE]

Each frame's metadata is read in a pad probe through the GstCcl typelib (GObject
introspection: no string parsing), printed, and written to CSV, every component with
its track (id, parent, age, velocity, predicted box) while the element tracks; at the
end a PNG plot shows the component count and the mean component area over time.
Without FILE the source is videotestsrc's bouncing ball.

Uninstalled, run it inside `meson devenv -C BUILD` (which points GI_TYPELIB_PATH,
LD_LIBRARY_PATH and GST_PLUGIN_PATH into the build folder).
"""
import argparse
import csv
import math
import os
import sys

import gi

gi.require_version("Gst", "1.0")
try:
    gi.require_version("GstCcl", "1.0")
except ValueError:
    sys.exit("ccl_meta_plot.py: no GstCcl-1.0 typelib: install cudaccl, or run inside "
             "'meson devenv -C BUILD' (or set GI_TYPELIB_PATH and LD_LIBRARY_PATH to "
             "BUILD/plugin/meta)")
from gi.repository import Gst, GstCcl  # noqa: E402

FRAME_FIELDS = ["frame", "pts_ns", "width", "height", "total_components",
                "reported_components", "threshold", "mean_area", "tracking"]
# The track columns are 0 in frames where tracking is 0 (0 is no track's id).
TRACK_FIELDS = ["track_id", "parent_id", "track_age", "frames_unseen", "velocity_x",
                "velocity_y", "predicted_x", "predicted_y", "predicted_width",
                "predicted_height"]
COMPONENT_FIELDS = ["frame", "label", "x", "y", "width", "height", "area", "sum_x", "sum_y",
                    "sum_xx", "sum_xy", "sum_yy", "centroid_x", "centroid_y",
                    "orientation_deg", "major_axis", "minor_axis"] + TRACK_FIELDS


def algorithm_nicks():
    """The element's algorithms, as the typelib's GstCclAlgorithm lists them (the
    engine's registry, in its order)."""
    return [v.value_nick for _, v in sorted(GstCcl.Algorithm.__enum_values__.items())]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file", nargs="?", help="video file (default: videotestsrc)")
    p.add_argument("--backend", default="auto", choices=["auto", "cuda", "cpu"])
    p.add_argument("--threshold", type=int, default=40)
    p.add_argument("--threshold-mode", default="above", choices=["above", "below", "otsu"])
    p.add_argument("--min-area", type=int, default=10)
    p.add_argument("--connectivity", type=int, default=8, choices=[4, 8])
    p.add_argument("--algorithm", default="union-find", choices=algorithm_nicks(),
                   help="labeling algorithm on the GPU (default union-find, as the element)")
    p.add_argument("--frames", type=int, default=100,
                   help="frames of videotestsrc (default 100); ignored with FILE")
    p.add_argument("--out-dir", default="out/meta-plot",
                   help="where frames.csv, components.csv and components.png go")
    p.add_argument("--no-tracking", action="store_true",
                   help="turn the element's tracking off (no track ids)")
    p.add_argument("--quiet", action="store_true", help="one line per frame, no components")
    return p.parse_args(argv)


def build_pipeline(args):
    if args.file:
        source = "filesrc name=src ! decodebin ! videoconvert ! video/x-raw,format=I420"
    else:
        source = ("videotestsrc name=src pattern=ball ! "
                  "video/x-raw,format=I420,width=320,height=240,framerate=30/1")
    pipeline = Gst.parse_launch(source + " ! cudaccl name=ccl ! fakesink sync=false")
    src = pipeline.get_by_name("src")
    if args.file:
        src.set_property("location", args.file)
    else:
        src.set_property("num-buffers", args.frames)
    ccl = pipeline.get_by_name("ccl")
    for name, value in [("backend", args.backend), ("threshold", args.threshold),
                        ("threshold-mode", args.threshold_mode),
                        ("min-area", args.min_area), ("connectivity", args.connectivity),
                        ("algorithm", args.algorithm)]:
        Gst.util_set_object_arg(ccl, name, str(value))
    # Only when asked: the default is the element's own (tracking on).
    if args.no_tracking:
        ccl.set_property("tracking", False)
    return pipeline, ccl


def track_text(c):
    """A component's track as printed: id, parent when it split off from one, velocity."""
    parent = f" (from {c.parent_id})" if c.parent_id else ""
    return (f"  track {c.track_id}{parent}  velocity ({c.velocity_x:+.1f}, "
            f"{c.velocity_y:+.1f}) px/frame")


class Recorder:
    """Reads every buffer's GstCclMeta on cudaccl's source pad."""

    def __init__(self, quiet, frames_csv, components_csv):
        self.quiet = quiet
        self.frames = frames_csv
        self.components = components_csv
        self.times = []
        self.counts = []
        self.mean_areas = []

    def probe(self, pad, info):
        buf = info.get_buffer()
        meta = GstCcl.buffer_get_meta(buf)
        if meta is None:
            return Gst.PadProbeReturn.OK
        index = len(self.times)
        components = meta.get_components()
        mean_area = (sum(c.area for c in components) / len(components)) if components else 0.0
        pts = buf.pts if buf.pts != Gst.CLOCK_TIME_NONE else 0
        self.times.append(pts / Gst.SECOND)
        self.counts.append((meta.total_count, meta.n_components))
        self.mean_areas.append(mean_area)

        print(f"frame {index:4d} {pts / Gst.SECOND:8.3f} s  {meta.width}x{meta.height}  "
              f"components {meta.total_count:4d}  reported {meta.n_components:4d}  "
              f"threshold {meta.threshold:3d}  mean area {mean_area:9.1f}")
        self.frames.writerow([index, pts, meta.width, meta.height, meta.total_count,
                              meta.n_components, meta.threshold, f"{mean_area:.6f}",
                              int(meta.tracking)])
        for c in components:
            major, minor = c.get_axis_lengths()
            angle = math.degrees(c.get_orientation())
            if not self.quiet:
                print(f"    #{c.label:<5d} box {c.x},{c.y} {c.width}x{c.height}  area {c.area:7d}"
                      f"  centroid ({c.centroid_x:.1f}, {c.centroid_y:.1f})  "
                      f"orientation {angle:6.1f} deg  axes {major:.1f} x {minor:.1f}"
                      + (track_text(c) if meta.tracking else ""))
            self.components.writerow([index, c.label, c.x, c.y, c.width, c.height, c.area,
                                      c.sum_x, c.sum_y, c.sum_xx, c.sum_xy, c.sum_yy,
                                      f"{c.centroid_x:.6f}", f"{c.centroid_y:.6f}",
                                      f"{angle:.6f}", f"{major:.6f}", f"{minor:.6f}",
                                      c.track_id, c.parent_id, c.track_age, c.frames_unseen,
                                      f"{c.velocity_x:.6f}", f"{c.velocity_y:.6f}",
                                      c.predicted_x, c.predicted_y, c.predicted_width,
                                      c.predicted_height])
        return Gst.PadProbeReturn.OK


def run(pipeline):
    """Plays the pipeline to its end; returns an error text or None."""
    pipeline.set_state(Gst.State.PLAYING)
    bus = pipeline.get_bus()
    msg = bus.timed_pop_filtered(Gst.CLOCK_TIME_NONE,
                                 Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if msg.type == Gst.MessageType.ERROR:
        err, debug = msg.parse_error()
        return f"{err.message} ({debug})"
    return None


def plot(recorder, title, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(9, 6))
    top.plot(recorder.times, [t for t, _ in recorder.counts], label="found")
    top.plot(recorder.times, [r for _, r in recorder.counts], label="reported (min-area)")
    top.set_ylabel("components")
    top.legend(loc="upper right")
    top.grid(alpha=0.3)
    bottom.plot(recorder.times, recorder.mean_areas, color="tab:green")
    bottom.set_ylabel("mean area of reported (px)")
    bottom.set_xlabel("time (s)")
    bottom.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv):
    args = parse_args(argv)
    Gst.init(None)
    if Gst.ElementFactory.find("cudaccl") is None:
        sys.exit("ccl_meta_plot.py: GStreamer has no cudaccl element: install cudaccl, or "
                 "run inside 'meson devenv -C BUILD' (or set GST_PLUGIN_PATH=BUILD/plugin)")
    if args.file and not os.path.isfile(args.file):
        sys.exit(f"ccl_meta_plot.py: no file {args.file}")
    os.makedirs(args.out_dir, exist_ok=True)

    pipeline, ccl = build_pipeline(args)
    with open(os.path.join(args.out_dir, "frames.csv"), "w", newline="") as ff, \
            open(os.path.join(args.out_dir, "components.csv"), "w", newline="") as cf:
        frames_csv, components_csv = csv.writer(ff), csv.writer(cf)
        frames_csv.writerow(FRAME_FIELDS)
        components_csv.writerow(COMPONENT_FIELDS)
        recorder = Recorder(args.quiet, frames_csv, components_csv)
        ccl.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, recorder.probe)
        error = run(pipeline)
    if error:
        sys.exit(f"ccl_meta_plot.py: pipeline failed: {error}")
    if not recorder.times:
        sys.exit("ccl_meta_plot.py: no frame carried a GstCclMeta")

    png = os.path.join(args.out_dir, "components.png")
    name = os.path.basename(args.file) if args.file else "videotestsrc ball"
    level = "Otsu threshold" if args.threshold_mode == "otsu" else \
        f"threshold {args.threshold_mode} {args.threshold}"
    plot(recorder, f"cudaccl on {name}: {level}, min-area {args.min_area}", png)
    totals = [t for t, _ in recorder.counts]
    print(f"{len(totals)} frames, components per frame: mean {sum(totals) / len(totals):.1f}, "
          f"max {max(totals)}")
    print(f"outputs: {args.out_dir}/frames.csv, components.csv, components.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
