#!/usr/bin/python3
"""cudaccl's tracking on a real clip, and pipelines/tracking/plot_tracks.py. Prints TAP.

    tracking_clip_test.py LIB_SH PLOT_TRACKS BUILD_DIR

The clip is retroMars2018.avi of Debian's python3-mecavideo (lib.sh's ccl_clip
fetches it once into the build's cache; the clip's cases are skipped when it
cannot), or the raw I420 frames named by CCL_VIDEO_RAW (+ CCL_VIDEO_RAW_CAPS,
WIDTHxHEIGHT@FPS) on hosts without decoders. It runs through gst-launch-1.0 ... !
cudaccl tracking=true post-messages=true ! fakesink with backend CCL_TEST_BACKEND
(cpu by default).

In all 25 frames of the clip five planets orbit a fixed Sun, each a round component
(about pi/4 of its box filled) of 470 to 3600 pixels; after the title frame everything
else is caption text under 120 pixels (the title frame adds a logo and a rule, large
but not round, and a round mark of 341 pixels). Each planet must keep one track id
through every frame, with no swap between planets, and the ids' ages, parents and
velocities must agree. Mercury is the hard one: it circles the Sun in about 6 frames,
some 100 pixels (four of its diameters) a frame. plot_tracks.py is then run on the
clip's messages and on a small log made here, whose tracks are known."""
import importlib.util
import math
import os
import re
import subprocess
import sys
import tempfile

from tap import Tap

CLIP = "retroMars2018.avi"
FRAMES = 25
PLANETS = 5
THRESHOLD, MIN_AREA = 40, 10
# Below Mercury (470) and above everything else that is round (the title frame's mark,
# 341); the caption letters stay far below it, and the title frame's logo (90x32) and
# rule (249x8) fail the roundness.
PLANET_MIN_AREA = 400
PLANET_FILL = (0.70, 0.88)
# By area, which keeps them apart in every frame.
PLANET_NAMES = ["Sun", "Earth", "Venus", "Mars", "Mercury"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def load_plot_tracks(path):
    spec = importlib.util.spec_from_file_location("plot_tracks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def clip_source(lib_sh, build):
    """(gst-launch-1.0 arguments of the source, description), or (None, why) when
    the clip cannot be fetched (ccl_clip exits 77) or CCL_VIDEO_RAW is unusable."""
    raw = os.environ.get("CCL_VIDEO_RAW")
    if raw:
        geometry = os.environ.get("CCL_VIDEO_RAW_CAPS", "1024x768@10")
        m = re.fullmatch(r"(\d+)x(\d+)@(\d+)", geometry)
        if not m or not os.path.isfile(raw):
            raise RuntimeError(f"CCL_VIDEO_RAW={raw} CCL_VIDEO_RAW_CAPS={geometry}: "
                               "no such file, or caps not WIDTHxHEIGHT@FPS")
        w, h, fps = m.groups()
        return (["filesrc", f"location={raw}", "!", "rawvideoparse", "format=i420",
                 f"width={w}", f"height={h}", f"framerate={fps}/1"],
                f"raw frames {raw}")
    env = dict(os.environ, CCL_BUILD_DIR=build, CCL_CLIP_MISSING_EXIT="77")
    r = subprocess.run(["bash", "-c", 'source "$1" && ccl_clip "$2"', "fetch", lib_sh, CLIP],
                       env=env, capture_output=True, text=True)
    why = " ".join(r.stderr.split())
    if r.returncode == 77:
        return None, f"no clip {CLIP}: {why}"
    if r.returncode != 0 or not os.path.isfile(r.stdout.strip()):
        raise RuntimeError(f"fetching {CLIP} failed (exit {r.returncode}): {why}")
    path = r.stdout.strip()
    return ["filesrc", f"location={path}", "!", "decodebin", "!", "videoconvert"], path


def run_clip(source, backend, log_path):
    """Runs the clip through cudaccl; writes its messages to log_path as ccl_launch's
    metadata.log has them. Returns (exit status, whole output)."""
    cmd = ["gst-launch-1.0", "-m", *source, "!", "video/x-raw,format=I420", "!",
           "cudaccl", "name=ccl", f"backend={backend}", "post-messages=true",
           "tracking=true", f"threshold={THRESHOLD}", "threshold-mode=above",
           f"min-area={MIN_AREA}", "connectivity=8", "!", "fakesink"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    prefix = re.compile(r'^Got message #\d+ from element "ccl" \(element\): ')
    with open(log_path, "w") as f:
        for line in r.stdout.splitlines():
            if prefix.match(line):
                f.write(prefix.sub("", line) + "\n")
    return r.returncode, r.stdout + r.stderr


def is_planet(c):
    fill = c["area"] / (c["bbox-width"] * c["bbox-height"])
    return (c["area"] >= PLANET_MIN_AREA and abs(c["bbox-width"] - c["bbox-height"]) <= 2
            and PLANET_FILL[0] <= fill <= PLANET_FILL[1])


def runs(seq):
    """"34 in frames 0-3, 31 in 4, 22 in 5-24" for [34, 34, 34, 34, 31, 22, ...]."""
    parts, start = [], 0
    for k in range(1, len(seq) + 1):
        if k == len(seq) or seq[k] != seq[start]:
            span = f"{start}" if k - 1 == start else f"{start}-{k - 1}"
            parts.append(f"{seq[start]} in {'frame' if k - 1 == start else 'frames'} {span}")
            start = k
    return ", ".join(parts)


def check_clip(tap, frames, name):
    """The tracking cases on the clip's messages."""
    tap.case(f"{name}: {FRAMES} frames labeled", len(frames) == FRAMES,
             f"{len(frames)} messages")
    if not frames:
        return
    untracked = [i for i, f in enumerate(frames)
                 if f.get("tracking") is not True or not isinstance(f.get("track-id"), list)]
    tap.case("every message says tracking=true and carries track-id, parent-id, track-age, "
             "velocity-x, velocity-y aligned with label",
             not untracked and all(all(k in c for k in ("parent-id", "track-age", "velocity-x",
                                                        "velocity-y"))
                                   for f in frames for c in f["components"]),
             f"frames without tracking arrays: {untracked[:10]}")
    if untracked:
        return

    doubled = [i for i, f in enumerate(frames)
               if len({c["track-id"] for c in f["components"]}) != len(f["components"])]
    tap.case("no track id is given to two components of one frame", not doubled,
             f"frames {doubled[:10]}")
    zero = [i for i, f in enumerate(frames) if any(c["track-id"] == 0 for c in f["components"])]
    tap.case("every reported component has a track id (none is 0)", not zero,
             f"frames {zero[:10]}")

    planets = [[c for c in f["components"] if is_planet(c)] for f in frames]
    counts = [len(p) for p in planets]
    tap.case(f"every frame has {PLANETS} planets (round, at least {PLANET_MIN_AREA} pixels)",
             all(n == PLANETS for n in counts), f"planets per frame: {counts}")

    ids = sorted({c["track-id"] for p in planets for c in p})
    per_id = {i: [next((c for c in p if c["track-id"] == i), None) for p in planets]
              for i in ids}
    missing = {i: [k for k, c in enumerate(cs) if c is None] for i, cs in per_id.items()}
    # Each planet by its place in the frame's order of areas (they never come close).
    by_planet = {name: [sorted(p, key=lambda c: -c["area"])[rank]["track-id"]
                        if len(p) == PLANETS else None for p in planets]
                 for rank, name in enumerate(PLANET_NAMES)}
    story = "; ".join(f"{name}: {runs(seq)}" for name, seq in by_planet.items())
    tap.case(f"the planets carry {PLANETS} track ids in all, each one in all {len(frames)} "
             "frames", len(ids) == PLANETS and not any(missing.values()),
             f"ids {ids}; frames missing per id: "
             + ", ".join(f"{i}: {m}" for i, m in missing.items() if m) + f"\n{story}")
    changed = [name for name, seq in by_planet.items() if len(set(seq)) != 1]
    tap.case("each planet keeps one id (no planet takes another's id or a new one)",
             not changed, story)

    ages = []
    for i, cs in per_id.items():
        seen = [(k, c) for k, c in enumerate(cs) if c]
        if not seen:
            continue
        first = seen[0][0]
        bad = [(k, c["track-age"]) for k, c in seen if c["track-age"] != k - first + 1]
        if bad or any(c["parent-id"] != 0 for _, c in seen):
            ages.append(f"id {i}: (frame, age) {bad[:5]}, parents "
                        f"{sorted({c['parent-id'] for _, c in seen})}")
    tap.case("a planet's track-age counts its frames (1 in the first) and it has no parent",
             not ages, "; ".join(ages))

    nonfinite = [k for k, f in enumerate(frames) for c in f["components"]
                 if not (math.isfinite(c["velocity-x"]) and math.isfinite(c["velocity-y"]))]
    # The largest planet of each frame; the one that stays put whatever its id.
    sun = [max(p, key=lambda c: c["area"]) for p in planets if p]
    moving = [(k, c["track-id"], round(c["velocity-x"], 2), round(c["velocity-y"], 2))
              for k, c in enumerate(sun) if math.hypot(c["velocity-x"], c["velocity-y"]) > 0.5]
    tap.case("velocities are finite, and the Sun (which stays put) moves under 0.5 pixel "
             "per frame", not nonfinite and not moving,
             f"non-finite in frames {nonfinite[:10]}; Sun (frame, id, vx, vy): {moving[:5]}")


def message(frame, comps, width=64, height=48, tracking=True):
    """One message line as gst-launch-1.0 -m prints the element's structure."""
    def array(kind, values, fmt=str):
        return f"({kind})<{' ' + ', '.join(fmt(v) for v in values) + ' ' if values else '  '}>"
    fields = [f"timestamp=(guint64){frame * 100000000}", f"width=(int){width}",
              f"height=(int){height}", f"total-components=(uint){len(comps)}",
              f"reported-components=(uint){len(comps)}", "threshold=(uint)40",
              f"tracking=(boolean){'true' if tracking else 'false'}"]
    columns = [("label", "uint", 0, str), ("bbox-x", "int", 1, str), ("bbox-y", "int", 2, str),
               ("bbox-width", "int", None, lambda v: "4"), ("bbox-height", "int", None,
                                                            lambda v: "4"),
               ("area", "guint64", None, lambda v: "16"),
               ("centroid-x", "double", 1, lambda v: repr(v + 1.5)),
               ("centroid-y", "double", 2, lambda v: repr(v + 1.5))]
    if tracking:
        columns += [("track-id", "guint64", 3, str), ("parent-id", "guint64", 4, str),
                    ("track-age", "uint", 5, str), ("velocity-x", "double", None,
                                                    lambda v: "1.0000000000000002"),
                    ("velocity-y", "double", None, lambda v: "-0.5")]
    for name, kind, index, fmt in columns:
        values = [c[index] if index is not None else None for c in comps]
        fields.append(f"{name}={array(kind, values, fmt)}")
    return "cudaccl, " + ", ".join(fields) + ";"


def small_log(path, tracking=True):
    """A log with known tracks: 1 in frames 0-5; 2 in 0-2; 4 split off 2 in 3-5;
    7 in 0, 1 and 4 (a gap of two frames); frame 6 reports nothing. Returns
    {id: frames}, {id: parent} and the number of component rows."""
    spans = {1: [0, 1, 2, 3, 4, 5], 2: [0, 1, 2], 4: [3, 4, 5], 7: [0, 1, 4]}
    parents = {1: 0, 2: 0, 4: 2, 7: 0}
    rows = 0
    with open(path, "w") as f:
        f.write("Setting pipeline to PAUSED ...\n")
        for frame in range(7):
            comps = []
            for n, (i, frames) in enumerate(sorted(spans.items())):
                if frame in frames:
                    # (label, x, y, id, parent, age)
                    comps.append((n + 1, 3 * frame + n, 10 * n, i, parents[i],
                                  frame - frames[0] + 1))
            rows += len(comps)
            line = message(frame, comps, tracking=tracking)
            if frame == 2:
                line = 'Got message #40 from element "ccl" (element): ' + line
            f.write(line + "\n")
    return spans, parents, rows


def summary_table(stdout):
    """{id: (frames, gaps, parent)} from plot_tracks.py's table."""
    table = {}
    for line in stdout.splitlines():
        m = re.fullmatch(r"\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+[\d.]+", line)
        if m:
            parent = 0 if m.group(6) == "-" else int(m.group(6))
            table[int(m.group(1))] = (int(m.group(2)), int(m.group(5)), parent)
    return table


def png_ok(path):
    if not os.path.isfile(path):
        return False
    with open(path, "rb") as f:
        return f.read(8) == PNG_SIGNATURE and os.path.getsize(path) > 1000


def check_plot_tracks(tap, plot_tracks, tmp, have_matplotlib):
    log = os.path.join(tmp, "small.log")
    spans, parents, rows = small_log(log)
    png, table_csv = os.path.join(tmp, "small.png"), os.path.join(tmp, "small.csv")
    r = subprocess.run([sys.executable, plot_tracks, log, png, "--csv", table_csv],
                       capture_output=True, text=True)
    tap.case("plot_tracks.py runs on a small log made here", r.returncode == 0,
             r.stdout[-1500:] + r.stderr[-1500:])
    tap.case("its summary counts 7 frames (64x48) and 4 tracks",
             "small.log: 7 frames (64x48), 4 tracks" in r.stdout, r.stdout[-1500:])
    want = {i: (len(fr), 1 if i == 7 else 0, parents[i]) for i, fr in spans.items()}
    got = summary_table(r.stdout)
    tap.case("it lists each track's frames, gaps and parent "
             "(1: 6, 2: 3, 4: 3 split off 2, 7: 3 with a gap)", got == want,
             f"got {got}, want {want}")
    tap.case("it gives frames per track (min 3, median 3, max 6) and no track in every "
             "frame (the last one is empty)",
             "min 3, median 3, max 6; 0 tracks in every frame" in r.stdout, r.stdout[-800:])
    if os.path.isfile(table_csv):
        with open(table_csv) as f:
            n_rows = sum(1 for _ in f) - 1
    else:
        n_rows = -1
    tap.case(f"its CSV has one row per tracked component ({rows})", n_rows == rows,
             f"{n_rows} rows")
    if have_matplotlib:
        tap.case("it writes the trajectory plot as a PNG", png_ok(png), f"no PNG at {png}")
    else:
        tap.skip("it writes the trajectory plot as a PNG", f"{sys.executable} has no matplotlib")

    plain = os.path.join(tmp, "untracked.log")
    small_log(plain, tracking=False)
    r = subprocess.run([sys.executable, plot_tracks, plain, os.path.join(tmp, "u.png")],
                       capture_output=True, text=True)
    tap.case("it exits 2 with a reason on messages without track ids",
             r.returncode == 2 and "no track ids" in r.stderr,
             f"exit {r.returncode}: {r.stderr[-500:]}")

    module = load_plot_tracks(plot_tracks)
    frames = module.read_frames(log)
    tap.case("read_frames() parses empty arrays and the gst-launch-1.0 prefix",
             len(frames) == 7 and frames[6]["components"] == []
             and frames[2]["components"][0]["track-id"] == 1
             and frames[0]["components"][0]["velocity-x"] == 1.0000000000000002,
             f"{len(frames)} frames")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    lib_sh, plot_tracks, build = argv[:3]
    backend = os.environ.get("CCL_TEST_BACKEND", "cpu")
    try:
        import matplotlib  # noqa: F401
        have_matplotlib = True
    except ImportError:
        have_matplotlib = False

    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="ccl-tracking-clip.") as tmp:
        check_plot_tracks(tap, plot_tracks, tmp, have_matplotlib)

        try:
            source, desc = clip_source(lib_sh, build)
        except RuntimeError as e:
            tap.case(f"the clip {CLIP} is at hand", False, str(e))
            return tap.finish()
        if source is None:
            # The plot cases above need no clip; only the clip's are skipped.
            print(f"# {desc}", flush=True)
            tap.skip(f"tracking on {CLIP}", desc)
            return tap.finish()
        log = os.path.join(tmp, "metadata.log")
        rc, output = run_clip(source, backend, log)
        if rc != 0 and not os.environ.get("CCL_VIDEO_RAW") and \
                re.search(r"missing a plug-in|no element \"decodebin\"|No decoder", output):
            tap.skip(f"tracking on {CLIP}", "cannot decode it here (set CCL_VIDEO_RAW): "
                     + " ".join(output.split())[-300:])
            return tap.finish()
        tap.case(f"gst-launch-1.0 ... ! cudaccl backend={backend} tracking=true runs on "
                 f"{desc}", rc == 0, output[-2000:])
        module = load_plot_tracks(plot_tracks)
        try:
            frames = module.read_frames(log)
        except ValueError as e:
            tap.case("the messages' arrays are aligned", False, str(e))
            return tap.finish()
        check_clip(tap, frames, os.path.basename(desc))

        png = os.path.join(tmp, "clip.png")
        r = subprocess.run([sys.executable, plot_tracks, log, png, "--min-area", "200"],
                           capture_output=True, text=True)
        ids = {c["track-id"] for f in frames for c in f["components"] if "track-id" in c}
        tap.case(f"plot_tracks.py summarizes the clip: {len(frames)} frames, {len(ids)} tracks",
                 r.returncode == 0 and f"{len(frames)} frames (1024x768), {len(ids)} tracks"
                 in r.stdout, r.stdout[-1500:] + r.stderr[-1500:])
        if have_matplotlib:
            tap.case("and plots it", png_ok(png), f"no PNG at {png}")
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
