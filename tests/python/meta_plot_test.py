#!/usr/bin/python3
"""pipelines/examples/ccl_meta_plot.py on a real clip with the CPU backend, its numbers
checked against the reference labeler. Prints TAP, one case per frame.

    meta_plot_test.py EXAMPLE LIB_SH CCL_LABEL BUILD_DIR [CLIP]

The clip (retroMars2018.avi of Debian's python3-mecavideo) comes from lib.sh's
ccl_clip, which fetches it once into the build's cache; without it the test is
skipped. The same frames are decoded again here, their Y planes (the luma the
element labels in I420) written as PGM and labeled by ccl-label --backend cpu; every
frame's total count, reported components (min-area applied), features, derived
shape and mean area must equal what the example read through the typelib. The track
columns are checked against the documented contract of track ids (where the element
tracks: its default), and a short run with --no-tracking must carry no track."""
import csv
import math
import os
import struct
import subprocess
import sys
import tempfile

from tap import Tap

THRESHOLD, MIN_AREA, CONNECTIVITY = 40, 10, 8
FEATURES = ["label", "x", "y", "width", "height", "area", "sum_x", "sum_y", "sum_xx",
            "sum_xy", "sum_yy"]
TRACK_INTS = ["track_id", "parent_id", "track_age", "frames_unseen", "predicted_x",
              "predicted_y", "predicted_width", "predicted_height"]
TRACK_FLOATS = ["velocity_x", "velocity_y"]


def fetch_clip(lib_sh, build, name):
    """The clip's path from ccl_clip; skips the whole test when it cannot be fetched
    (ccl_clip exits 77), fails it on any other error."""
    env = dict(os.environ, CCL_BUILD_DIR=build, CCL_CLIP_MISSING_EXIT="77")
    r = subprocess.run(["bash", "-c", 'source "$1" && ccl_clip "$2"', "fetch", lib_sh, name],
                       env=env, capture_output=True, text=True)
    why = " ".join(r.stderr.split())
    if r.returncode == 77:
        Tap.skip_all(f"no clip {name}: {why}")
    if r.returncode != 0 or not os.path.isfile(r.stdout.strip()):
        tap = Tap()
        tap.case(f"the clip {name} is fetched", False, f"exit {r.returncode}: {why}")
        sys.exit(tap.finish())
    return r.stdout.strip()


def decode_luma(clip, out_dir):
    """Decodes the clip as the example does and writes each frame's Y plane as PGM."""
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstVideo", "1.0")
    from gi.repository import Gst, GstVideo
    Gst.init(None)
    pipeline = Gst.parse_launch("filesrc name=src ! decodebin ! videoconvert "
                                "! video/x-raw,format=I420 ! appsink name=sink sync=false")
    pipeline.get_by_name("src").set_property("location", clip)
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    paths = []
    while True:
        sample = sink.emit("pull-sample")
        if sample is None:
            break
        buf = sample.get_buffer()
        info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
        vmeta = GstVideo.buffer_get_video_meta(buf)
        stride, offset = (vmeta.stride[0], vmeta.offset[0]) if vmeta else \
            (info.stride[0], info.offset[0])
        ok, mapped = buf.map(Gst.MapFlags.READ)
        assert ok, "cannot map a decoded frame"
        data = bytes(mapped.data)
        buf.unmap(mapped)
        rows = b"".join(data[offset + y * stride: offset + y * stride + info.width]
                        for y in range(info.height))
        path = os.path.join(out_dir, f"frame-{len(paths):04d}.pgm")
        with open(path, "wb") as f:
            f.write(b"P5\n%d %d\n255\n" % (info.width, info.height) + rows)
        paths.append(path)
    msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if msg is not None:
        err = msg.parse_error()[0].message
        if not paths:
            Tap.skip_all(f"cannot decode the clip here: {err}")
        raise RuntimeError(err)
    return paths


def reference(ccl_label, pgm):
    """(total count, component rows) of ccl-label --backend cpu on one frame."""
    prefix = pgm[:-len(".pgm")]
    r = subprocess.run([ccl_label, "--backend", "cpu", "--threshold", str(THRESHOLD),
                        "--mode", "above", "--connectivity", str(CONNECTIVITY),
                        "--output", prefix, pgm], capture_output=True, text=True, check=True)
    total = next(int(line.split()[0]) for line in r.stdout.splitlines()
                 if line.endswith(")") and " components, threshold " in line)
    with open(prefix + "-components.csv") as f:
        rows = list(csv.DictReader(f))
    return total, rows


def shape(row):
    """Orientation (degrees) and axis lengths from a row's raw moments, done here
    independently of the library."""
    n = int(row["area"])
    sx, sy = int(row["sum_x"]), int(row["sum_y"])
    mu20 = (n * int(row["sum_xx"]) - sx * sx) / (n * n)
    mu11 = (n * int(row["sum_xy"]) - sx * sy) / (n * n)
    mu02 = (n * int(row["sum_yy"]) - sy * sy) / (n * n)
    angle = 0.0 if mu11 == 0 and mu20 == mu02 else 0.5 * math.atan2(2 * mu11, mu20 - mu02)
    spread = math.sqrt(0.25 * (mu20 - mu02) ** 2 + mu11 ** 2)
    mean = 0.5 * (mu20 + mu02)
    return (math.degrees(angle), 4 * math.sqrt(max(mean + spread, 0)),
            4 * math.sqrt(max(mean - spread, 0)))


def compare_frame(index, frame, example_rows, total, ref_rows):
    """A list of differences between the example's frame and the reference."""
    problems = []
    if int(frame["total_components"]) != total:
        problems.append(f"total {frame['total_components']} != reference {total}")
    if int(frame["threshold"]) != THRESHOLD:
        problems.append(f"threshold {frame['threshold']}")
    kept = [r for r in ref_rows if int(r["area"]) >= MIN_AREA]
    if int(frame["reported_components"]) != len(kept) or len(example_rows) != len(kept):
        problems.append(f"reported {frame['reported_components']} ({len(example_rows)} rows) "
                        f"!= reference {len(kept)} with area >= {MIN_AREA}")
        return problems
    for got, want in zip(example_rows, kept):
        diff = [f for f in FEATURES if int(got[f]) != int(want[f])]
        for f in ["centroid_x", "centroid_y"]:
            if abs(float(got[f]) - float(want[f])) > 1e-5:
                diff.append(f)
        angle, major, minor = shape(want)
        for f, v in [("orientation_deg", angle), ("major_axis", major), ("minor_axis", minor)]:
            if abs(float(got[f]) - v) > 1e-4:
                diff.append(f"{f} {got[f]} != {v:.6f}")
        if diff:
            problems.append(f"label {want['label']}: {', '.join(diff)}")
    mean = sum(int(r["area"]) for r in kept) / len(kept) if kept else 0.0
    if abs(float(frame["mean_area"]) - mean) > 1e-4:
        problems.append(f"mean area {frame['mean_area']} != {mean:.6f}")
    return problems


def track_problems(frames, by_frame):
    """Differences between the track columns and what docs/METADATA.md promises: ids
    1, 2, ... in order of birth from the stream's start, never reused, one component
    per track and frame, a parent born before its child, and ages and unseen counts
    that agree with the frames a track was reported in."""
    problems = []
    seen = {}  # track id -> (frame, age) of its latest report
    highest = 0
    for index, frame in enumerate(frames):
        rows = by_frame.get(index, [])
        try:
            tracks = [{f: int(r[f]) for f in TRACK_INTS} | {f: float(r[f]) for f in TRACK_FLOATS}
                      for r in rows]
        except (KeyError, ValueError) as e:
            return [f"frame {index}: track columns missing or not numbers: {e}"]
        if frame.get("tracking") not in ("0", "1"):
            return [f"frame {index}: tracking column is {frame.get('tracking')!r}"]
        if frame["tracking"] == "0":
            if any(t[f] != 0 for t in tracks for f in TRACK_INTS + TRACK_FLOATS):
                problems.append(f"frame {index}: track fields without tracking")
            continue
        ids = [t["track_id"] for t in tracks]
        if len(set(ids)) != len(ids) or any(i < 1 for i in ids):
            problems.append(f"frame {index}: ids {ids} not unique and positive")
            continue
        born = sorted(t["track_id"] for t in tracks if t["track_age"] == 1)
        if born and (born[0] <= highest or born != list(range(born[0], born[0] + len(born)))):
            problems.append(f"frame {index}: new ids {born} do not follow {highest}")
        for t in tracks:
            tid, age, unseen = t["track_id"], t["track_age"], t["frames_unseen"]
            if t["parent_id"] and not 0 < t["parent_id"] < tid:
                problems.append(f"frame {index}: track {tid} has parent {t['parent_id']}")
            if age == 1:
                if unseen != 0 or tid in seen:
                    problems.append(f"frame {index}: new track {tid} unseen {unseen} "
                                    f"or seen before")
            elif seen.get(tid) != (index - 1 - unseen, age - 1 - unseen):
                problems.append(f"frame {index}: track {tid} age {age} unseen {unseen}, "
                                f"last reported (frame, age) {seen.get(tid)}")
        for t in tracks:
            seen[t["track_id"]] = (index, t["track_age"])
        highest = max([highest] + ids)
    if frames and frames[0].get("tracking") == "1":
        first = sorted(int(r["track_id"]) for r in by_frame.get(0, []))
        if first != list(range(1, len(first) + 1)):
            problems.append(f"the first frame's ids {first} are not 1..{len(first)}")
    return problems


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    example, lib_sh, ccl_label, build = argv[:4]
    clip_name = argv[4] if len(argv) > 4 else "retroMars2018.avi"
    try:
        import gi  # noqa: F401
        import matplotlib  # noqa: F401
    except ImportError as e:
        Tap.skip_all(f"{sys.executable} lacks a module the example needs: {e}")
    clip = fetch_clip(lib_sh, build, clip_name)
    tap = Tap()

    with tempfile.TemporaryDirectory(prefix="ccl-meta-plot.") as tmp:
        out = os.path.join(tmp, "example")
        r = subprocess.run([sys.executable, example, clip, "--backend", "cpu",
                            "--threshold", str(THRESHOLD), "--threshold-mode", "above",
                            "--min-area", str(MIN_AREA), "--connectivity", str(CONNECTIVITY),
                            "--out-dir", out], capture_output=True, text=True)
        tap.case(f"ccl_meta_plot.py runs on {clip_name} with the CPU backend", r.returncode == 0,
                 (r.stdout[-1500:] + r.stderr[-1500:]))
        if r.returncode != 0:
            return tap.finish()

        with open(os.path.join(out, "frames.csv")) as f:
            frames = list(csv.DictReader(f))
        with open(os.path.join(out, "components.csv")) as f:
            by_frame = {}
            for row in csv.DictReader(f):
                by_frame.setdefault(int(row["frame"]), []).append(row)

        printed = [line for line in r.stdout.splitlines() if line.startswith("frame ")]
        component_lines = [line for line in r.stdout.splitlines() if line.startswith("    #")]
        tap.case("it prints one line per frame and one per reported component",
                 len(printed) == len(frames) and
                 len(component_lines) == sum(len(v) for v in by_frame.values()),
                 f"{len(printed)} frame lines for {len(frames)} frames, "
                 f"{len(component_lines)} component lines")

        pgms = decode_luma(clip, tmp)
        tap.case(f"it labeled every decoded frame ({len(pgms)})",
                 len(frames) == len(pgms) and len(pgms) > 0,
                 f"{len(frames)} frames in frames.csv, {len(pgms)} decoded")

        for index, (frame, pgm) in enumerate(zip(frames, pgms)):
            total, ref_rows = reference(ccl_label, pgm)
            problems = compare_frame(index, frame, by_frame.get(index, []), total, ref_rows)
            tap.case(f"frame {index}: {total} components, {frame['reported_components']} "
                     f"reported, equal to the reference labeler", not problems,
                     "\n".join(problems[:10]))

        size = png_size(os.path.join(out, "components.png"))
        tap.case("components.png is a 900x600 PNG", size == (900, 600), f"size {size}")

        tracking = [f.get("tracking") for f in frames]
        if "1" not in tracking:
            tap.skip("track columns follow the track id contract",
                     f"the element did not track (tracking column {sorted(set(tracking))})")
        else:
            problems = track_problems(frames, by_frame)
            tap.case(f"track columns follow the track id contract "
                     f"({len({r['track_id'] for rows in by_frame.values() for r in rows})} tracks)",
                     not problems, "\n".join(problems[:10]))
        printed_ids = [line.split(" track ")[1].split()[0] if " track " in line else None
                       for line in component_lines]
        csv_ids = [r["track_id"] if frames[i].get("tracking") == "1" else None
                   for i in sorted(by_frame) for r in by_frame[i]]
        tap.case("each printed component names the track id of its CSV row",
                 printed_ids == csv_ids,
                 f"printed {printed_ids[:8]}..., CSV {csv_ids[:8]}...")

        off = os.path.join(tmp, "no-tracking")
        r = subprocess.run([sys.executable, example, "--backend", "cpu", "--frames", "5",
                            "--no-tracking", "--out-dir", off], capture_output=True, text=True)
        rows, off_frames = [], []
        if r.returncode == 0:
            with open(os.path.join(off, "frames.csv")) as f:
                off_frames = list(csv.DictReader(f))
            with open(os.path.join(off, "components.csv")) as f:
                rows = list(csv.DictReader(f))
        tap.case("--no-tracking: no track in the CSV files or the output",
                 r.returncode == 0 and len(off_frames) == 5 and rows and
                 all(f["tracking"] == "0" for f in off_frames) and
                 all(float(row[c]) == 0 for row in rows for c in TRACK_INTS + TRACK_FLOATS) and
                 " track " not in r.stdout,
                 f"exit {r.returncode}\n{r.stdout[-800:]}{r.stderr[-800:]}")

        # --algorithm takes every value of the typelib's GstCclAlgorithm (the engine's
        # registry); the CPU backend labels alike whatever it is.
        import gi
        gi.require_version("GstCcl", "1.0")
        from gi.repository import GstCcl
        nicks = [v.value_nick for _, v in sorted(GstCcl.Algorithm.__enum_values__.items())]
        for nick in nicks:
            algo_out = os.path.join(tmp, "algorithm-" + nick)
            r = subprocess.run([sys.executable, example, "--backend", "cpu", "--frames", "2",
                                "--algorithm", nick, "--quiet", "--out-dir", algo_out],
                               capture_output=True, text=True)
            tap.case(f"--algorithm {nick} runs", r.returncode == 0 and
                     os.path.isfile(os.path.join(algo_out, "frames.csv")),
                     f"exit {r.returncode}\n{r.stdout[-800:]}{r.stderr[-800:]}")
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
