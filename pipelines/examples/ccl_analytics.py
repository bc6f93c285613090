#!/usr/bin/env python3
"""Reads cudaccl's components the way any GStreamer analytics application does: from
GStreamer's analytics metadata (GstAnalyticsRelationMeta, GStreamer 1.24 and newer),
one object-detection entry per component and, with tracking, the tracking entry
related to it. Prints one line per frame and one per entry.

    ccl_analytics.py [--frames N] [--backend auto|cuda|cpu] [--check]

The source is videotestsrc's bouncing ball. --check also reads the GstCclMeta (through
the GstCcl-1.0 typelib) and exits 1 unless every entry holds the same box and track
id as the component it stands for.
"""
import argparse
import sys

import gi

gi.require_version("Gst", "1.0")
try:
    gi.require_version("GstAnalytics", "1.0")
except ValueError:
    sys.exit("ccl_analytics.py: GStreamer's GstAnalytics-1.0 typelib (1.24 or newer, "
             "gir1.2-gst-plugins-bad-1.0) is not installed")
from gi.repository import GLib, Gst, GstAnalytics  # noqa: E402


def entries(buf):
    """(box, track or None) per object-detection entry, in the order they were added,
    and the tracking entries related to no box (tracks unseen in this frame)."""
    rmeta = GstAnalytics.buffer_get_analytics_relation_meta(buf)
    if rmeta is None:
        return [], []
    mtds = list(rmeta)
    ods = [m for m in mtds if isinstance(m, GstAnalytics.ODMtd)]
    tracks = [m for m in mtds if isinstance(m, GstAnalytics.TrackingMtd)]
    related = lambda a, b: rmeta.get_relation(a.id, b.id) & GstAnalytics.RelTypes.RELATE_TO
    out, matched = [], set()
    for od in ods:
        _, x, y, w, h, conf = od.get_location()
        track = None
        for t in tracks:
            if related(od, t):
                _, tid, first, last, lost = t.get_info()
                track = (tid, first, last, lost)
                matched.add(t.id)
        out.append((GLib.quark_to_string(od.get_obj_type()), (x, y, w, h), conf, track))
    unseen = []
    for t in tracks:
        if t.id not in matched:
            _, tid, first, last, lost = t.get_info()
            unseen.append((tid, first, last, lost))
    return out, unseen


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--backend", default="auto", choices=["auto", "cuda", "cpu"])
    ap.add_argument("--check", action="store_true",
                    help="compare every entry with the GstCclMeta (needs GstCcl-1.0)")
    args = ap.parse_args()

    Gst.init(None)
    if Gst.ElementFactory.find("cudaccl") is None:
        sys.exit("ccl_analytics.py: no cudaccl element (GST_PLUGIN_PATH=BUILD/plugin)")
    ccl_meta = None
    if args.check:
        gi.require_version("GstCcl", "1.0")
        from gi.repository import GstCcl
        ccl_meta = GstCcl.buffer_get_meta

    pipeline = Gst.parse_launch(
        f"videotestsrc pattern=ball num-buffers={args.frames} ! "
        "video/x-raw,format=GRAY8,width=320,height=240,framerate=25/1 ! "
        f"cudaccl name=ccl backend={args.backend} threshold=40 min-area=10 ! fakesink")
    problems = []
    frames = [0]

    def on_buffer(pad, info):
        buf = info.get_buffer()
        found, unseen = entries(buf)
        print(f"frame {frames[0]} {len(found)} detections, {len(unseen)} unseen tracks")
        for kind, (x, y, w, h), conf, track in found:
            line = f"    {kind} box {x},{y} {w}x{h} confidence {conf:.2f}"
            if track:
                line += f" track {track[0]} first seen {track[1]} last seen {track[2]}"
            print(line)
        for tid, first, last, lost in unseen:
            print(f"    unseen track {tid} last seen {last}{' lost' if lost else ''}")
        if ccl_meta:
            meta = ccl_meta(buf)
            comps = meta.get_components() if meta else []
            want = [((c.x, c.y, c.width, c.height), c.track_id if meta.tracking else None)
                    for c in comps]
            got = [(box, track[0] if track else None) for _, box, _, track in found]
            if want != got or not want:
                problems.append(f"frame {frames[0]}: meta {want} analytics {got}")
        frames[0] += 1
        return Gst.PadProbeReturn.OK

    pipeline.get_by_name("ccl").get_static_pad("src").add_probe(
        Gst.PadProbeType.BUFFER, on_buffer)
    pipeline.set_state(Gst.State.PLAYING)
    msg = pipeline.get_bus().timed_pop_filtered(
        Gst.CLOCK_TIME_NONE, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if msg.type == Gst.MessageType.ERROR:
        sys.exit(f"ccl_analytics.py: {msg.parse_error()[0].message}")
    for p in problems:
        print("MISMATCH", p)
    print(f"{frames[0]} frames")
    return 1 if problems or frames[0] == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
