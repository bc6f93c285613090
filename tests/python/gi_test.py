#!/usr/bin/python3
"""The GstCcl-1.0 typelib from Python (PyGObject): every field of the meta and its
components read directly (track fields and 64-bit track ids included), derived
quantities, track lookup, and metas read from a running pipeline (pad probe and
appsink) equal to what the element posts, with tracking on and off; the blobs
(GstCclBlob) of a pipeline with blob-properties and blob filters, every field read
and equal to the element's message. Prints TAP.

The environment points GI_TYPELIB_PATH, LD_LIBRARY_PATH and GST_PLUGIN_PATH into
the build folder (tests/python/meson.build sets them)."""
import math
import sys

from tap import Tap

try:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstCcl", "1.0")
    from gi.repository import Gst, GstCcl
except (ImportError, ValueError) as e:
    Tap.skip_all(f"no PyGObject or no GstCcl-1.0 typelib: {e}")

tap = Tap()
Gst.init(None)

TRACK_FIELDS = ["track_id", "parent_id", "track_age", "frames_unseen", "velocity_x",
                "velocity_y", "predicted_x", "predicted_y", "predicted_width",
                "predicted_height"]
COMPONENT_FIELDS = ["label", "x", "y", "width", "height", "area", "sum_x", "sum_y",
                    "sum_xx", "sum_xy", "sum_yy", "centroid_x", "centroid_y"] + TRACK_FIELDS
# Above 2^32, so that a binding narrowing the 64-bit ids shows.
BIG_ID = 2**40 + 7


def component(label, pixels):
    """A GstCcl.Component built in Python from its pixels."""
    c = GstCcl.Component()
    xs, ys = [p[0] for p in pixels], [p[1] for p in pixels]
    c.label = label
    c.x, c.y = min(xs), min(ys)
    c.width, c.height = max(xs) - c.x + 1, max(ys) - c.y + 1
    c.area = len(pixels)
    c.sum_x, c.sum_y = sum(xs), sum(ys)
    c.sum_xx = sum(x * x for x in xs)
    c.sum_xy = sum(x * y for x, y in pixels)
    c.sum_yy = sum(y * y for y in ys)
    c.centroid_x, c.centroid_y = c.sum_x / c.area, c.sum_y / c.area
    return c


def with_track(c, track_id, parent_id=0):
    """c with a track whose fields all differ from 0 and from each other."""
    c.track_id, c.parent_id = track_id, parent_id
    c.track_age, c.frames_unseen = 12, 3
    c.velocity_x, c.velocity_y = 2.5, -0.75
    c.predicted_x, c.predicted_y = c.x - 3, c.y + 1
    c.predicted_width, c.predicted_height = c.width + 1, c.height + 2
    return c


# GstCclBlob's gdouble fields but color_mean, in the struct's order, and the message
# arrays that carry each (docs/METADATA.md, "Blobs").
BLOB_FIELDS = ["intensity_mean", "intensity_std", "intensity_min", "intensity_max",
               "perimeter", "circularity", "orientation", "axis_major_length",
               "axis_minor_length", "eccentricity"]
BLOB_GROUP_FIELDS = {"INTENSITY": BLOB_FIELDS[:4], "PERIMETER": ["perimeter", "circularity"]}
ALL_BLOB_PROPERTIES = (GstCcl.BlobProperties.INTENSITY | GstCcl.BlobProperties.COLOR |
                       GstCcl.BlobProperties.PERIMETER | GstCcl.BlobProperties.EULER)

L_SHAPE = [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2)]
BAR = [(x, y) for y in range(5, 7) for x in range(10, 16)]


def fields(c):
    return [getattr(c, f) for f in COMPONENT_FIELDS]


def test_no_meta():
    assert GstCcl.buffer_get_meta(Gst.Buffer.new()) is None


def test_add_and_read_every_field():
    buf = Gst.Buffer.new()
    comps = [component(1, L_SHAPE), component(2, BAR)]
    meta = GstCcl.Meta.add(buf, 64, 48, 5, comps)
    meta.threshold = 77
    meta.algorithm = GstCcl.Algorithm.KOMURA
    meta.connectivity = 4
    meta.gpu_time = 1500
    m = GstCcl.buffer_get_meta(buf)
    assert (m.width, m.height, m.total_count, m.n_components) == (64, 48, 5, 2)
    assert (m.threshold, m.algorithm, m.connectivity, m.gpu_time) == \
        (77, GstCcl.Algorithm.KOMURA, 4, 1500)
    got = m.get_components()
    assert [fields(c) for c in got] == [fields(c) for c in comps], [fields(c) for c in got]
    assert fields(m.get_component(1)) == fields(comps[1])
    assert m.get_component(2) is None


def test_defaults():
    buf = Gst.Buffer.new()
    GstCcl.Meta.add(buf, 3, 2, 0, [])
    m = GstCcl.buffer_get_meta(buf)
    assert m.get_components() == []
    assert (m.threshold, m.algorithm, m.connectivity) == (0, GstCcl.Algorithm.HA4, 8)
    assert m.gpu_time == Gst.CLOCK_TIME_NONE
    assert m.tracking is False
    assert [getattr(GstCcl.Component(), f) for f in TRACK_FIELDS] == [0] * len(TRACK_FIELDS)


def test_track_fields():
    buf = Gst.Buffer.new_allocate(None, 16, None)
    comps = [with_track(component(1, L_SHAPE), 5), with_track(component(2, BAR), BIG_ID, 5)]
    GstCcl.Meta.add(buf, 64, 48, 2, comps).tracking = True
    m = GstCcl.buffer_get_meta(buf)
    assert m.tracking is True
    got = m.get_component(1)
    assert (got.track_id, got.parent_id) == (BIG_ID, 5), (got.track_id, got.parent_id)
    assert (got.track_age, got.frames_unseen) == (12, 3)
    assert (got.velocity_x, got.velocity_y) == (2.5, -0.75)
    assert (got.predicted_x, got.predicted_y, got.predicted_width, got.predicted_height) == \
        (7, 6, 7, 4), (got.predicted_x, got.predicted_y)
    copied = GstCcl.buffer_get_meta(buf.copy())
    assert copied.tracking is True
    assert [fields(c) for c in copied.get_components()] == [fields(c) for c in comps]


def test_find_track():
    buf = Gst.Buffer.new()
    comps = [with_track(component(1, L_SHAPE), 5), with_track(component(2, BAR), BIG_ID, 5)]
    m = GstCcl.Meta.add(buf, 64, 48, 2, comps)
    m.tracking = True
    found = m.find_track(BIG_ID)
    assert found is not None and found.label == 2 and found.parent_id == 5
    assert m.find_track(5).label == 1
    # 7 is BIG_ID's low 32 bits; 0 is no track's id.
    for missing in [0, 7, 6, BIG_ID + 1]:
        assert m.find_track(missing) is None, missing


def test_derived_by_hand():
    # The L of five pixels: means (0.6, 1.4), mu20 = mu02 = 0.64, mu11 = 0.36, so the
    # major axis is the diagonal and the eigenvalues are 1.0 and 0.28.
    c = component(1, L_SHAPE)
    cx, cy = c.get_centroid()
    assert math.isclose(cx, 0.6) and math.isclose(cy, 1.4), (cx, cy)
    mu20, mu11, mu02 = c.get_central_moments()
    assert all(math.isclose(a, b, abs_tol=1e-12)
               for a, b in [(mu20, 0.64), (mu11, 0.36), (mu02, 0.64)]), (mu20, mu11, mu02)
    assert math.isclose(c.get_orientation(), math.pi / 4)
    major, minor = c.get_axis_lengths()
    assert math.isclose(major, 4.0) and math.isclose(minor, 4 * math.sqrt(0.28)), (major, minor)


def test_components_outlive_the_buffer():
    buf = Gst.Buffer.new()
    GstCcl.Meta.add(buf, 32, 32, 1, [component(9, BAR)])
    kept = GstCcl.buffer_get_meta(buf).get_components()
    del buf
    assert kept[0].label == 9 and kept[0].area == len(BAR)


def test_buffer_copy_keeps_meta():
    buf = Gst.Buffer.new_allocate(None, 16, None)
    GstCcl.Meta.add(buf, 4, 4, 1, [component(1, L_SHAPE)])
    copy = buf.copy()
    m = GstCcl.buffer_get_meta(copy)
    assert m is not None and fields(m.get_component(0)) == fields(component(1, L_SHAPE))


def test_types():
    assert GstCcl.meta_api_get_type().name == "GstCclMetaAPI"
    assert int(GstCcl.Algorithm.HA4) == 0 and int(GstCcl.Algorithm.KOMURA) == 1
    assert GstCcl.Algorithm.KOMURA.value_nick == "komura"
    assert GstCcl.Component.__gtype__.name == "GstCclComponent"


def typelib_fields(name):
    """(name, type tag) of each field of the typelib's struct GstCcl.<name>, in order."""
    gi.require_version("GIRepository", "2.0")
    from gi.repository import GIRepository
    info = GIRepository.Repository.get_default().find_by_name("GstCcl", name)
    out = []
    for i in range(GIRepository.struct_info_get_n_fields(info)):
        f = GIRepository.struct_info_get_field(info, i)
        tag = GIRepository.type_info_get_tag(GIRepository.field_info_get_type(f))
        out.append((GIRepository.BaseInfo.get_name(f), tag.value_nick))
    return out


def test_typelib_layout():
    # The typelib must describe the C layout, or bindings read the wrong bytes.
    comp = typelib_fields("Component")
    assert comp[12] == ("centroid_y", "double"), comp[12]
    assert comp[13:] == [("track_id", "uint64"), ("parent_id", "uint64"),
                         ("track_age", "uint32"), ("frames_unseen", "uint32"),
                         ("velocity_x", "double"), ("velocity_y", "double"),
                         ("predicted_x", "int32"), ("predicted_y", "int32"),
                         ("predicted_width", "int32"), ("predicted_height", "int32")], comp[13:]
    meta = [n for n, _ in typelib_fields("Meta")]
    assert meta[meta.index("gpu_time") + 1] == "tracking", meta
    # The blobs took the first padding slot, right after tracking, the event counts the
    # second (docs/METADATA.md).
    assert meta[meta.index("tracking") + 1:] == ["blobs", "event_counts", "_gst_reserved"], meta
    blob = typelib_fields("Blob")
    assert blob == [("properties", "interface"), ("euler_number", "int32")] + \
        [(f, "double") for f in BLOB_FIELDS[:4]] + [("color_mean", "array")] + \
        [(f, "double") for f in BLOB_FIELDS[4:]] + [("_gst_reserved", "array")], blob


def run_pipeline(launch, on_sample=None, probe=None):
    """Plays a pipeline ending in 'appsink name=sink'; returns its element messages."""
    pipeline = Gst.parse_launch(launch)
    if probe:
        pipeline.get_by_name("ccl").get_static_pad("src").add_probe(
            Gst.PadProbeType.BUFFER, probe)
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    frames = 0
    while True:
        sample = sink.emit("pull-sample")
        if sample is None:
            break
        if on_sample:
            on_sample(sample)
        frames += 1
    bus = pipeline.get_bus()
    messages = []
    while True:
        msg = bus.pop_filtered(Gst.MessageType.ELEMENT | Gst.MessageType.ERROR)
        if msg is None:
            break
        if msg.type == Gst.MessageType.ERROR:
            pipeline.set_state(Gst.State.NULL)
            raise AssertionError(msg.parse_error()[0].message)
        if msg.get_structure().get_name() == "cudaccl":
            messages.append(msg.get_structure())
    pipeline.set_state(Gst.State.NULL)
    assert frames > 0, "no frame reached the appsink"
    return messages


TESTSRC = ("videotestsrc num-buffers=6 pattern=ball "
           "! video/x-raw,format=GRAY8,width=160,height=120 "
           "! cudaccl name=ccl backend=cpu post-messages=true threshold=100 ")


def test_appsink_meta_equals_element_message():
    metas = []

    def on_sample(sample):
        m = GstCcl.buffer_get_meta(sample.get_buffer())
        assert m is not None, "a buffer without GstCclMeta"
        caps = sample.get_caps().get_structure(0)
        assert (m.width, m.height) == (caps.get_value("width"), caps.get_value("height"))
        metas.append((m.total_count, m.threshold, m.tracking, m.get_components()))

    messages = run_pipeline(TESTSRC + "! appsink name=sink sync=false", on_sample)
    assert len(messages) == len(metas) == 6, (len(messages), len(metas))
    assert all(comps for _, _, _, comps in metas), "the ball was not found"

    for (total, threshold, tracking, comps), s in zip(metas, messages):
        assert total == s.get_value("total-components")
        assert threshold == s.get_value("threshold") == 100
        assert len(comps) == s.get_value("reported-components")
        arrays = [("label", "label"), ("bbox-x", "x"), ("bbox-y", "y"),
                  ("bbox-width", "width"), ("bbox-height", "height"),
                  ("area", "area"), ("centroid-x", "centroid_x"),
                  ("centroid-y", "centroid_y")]
        assert s.get_value("tracking") == tracking, (s.get_value("tracking"), tracking)
        if tracking:
            arrays += [("track-id", "track_id"), ("parent-id", "parent_id"),
                       ("track-age", "track_age"), ("velocity-x", "velocity_x"),
                       ("velocity-y", "velocity_y")]
            ids = [c.track_id for c in comps]
            assert all(i > 0 for i in ids) and len(set(ids)) == len(ids), ids
            assert all(c.track_age >= 1 and c.parent_id != c.track_id for c in comps)
        for name, attr in arrays:
            assert list(s.get_value(name)) == [getattr(c, attr) for c in comps], name
        for c in comps:
            assert math.isclose(c.centroid_x * c.area, c.sum_x)
            assert c.x <= c.centroid_x <= c.x + c.width - 1


def test_tracking_off():
    metas = []

    def on_sample(sample):
        m = GstCcl.buffer_get_meta(sample.get_buffer())
        metas.append((m.tracking, [[getattr(c, f) for f in TRACK_FIELDS]
                                   for c in m.get_components()]))

    messages = run_pipeline(TESTSRC.replace("cudaccl ", "cudaccl tracking=false ")
                            + "! appsink name=sink sync=false", on_sample)
    assert len(metas) == len(messages) == 6 and all(comps for _, comps in metas)
    for (tracking, comps), s in zip(metas, messages):
        assert tracking is False
        assert all(c == [0] * len(TRACK_FIELDS) for c in comps), comps
        assert s.get_value("tracking") is False and not s.has_field("track-id")


def test_pad_probe_reads_meta():
    seen = []

    def probe(pad, info):
        m = GstCcl.buffer_get_meta(info.get_buffer())
        seen.append(None if m is None else (m.n_components, m.connectivity, m.algorithm))
        return Gst.PadProbeReturn.OK

    run_pipeline(TESTSRC.replace("cudaccl ", "cudaccl connectivity=4 algorithm=komura ")
                 + "! appsink name=sink sync=false", probe=probe)
    assert len(seen) == 6 and all(s is not None for s in seen), seen
    assert all(s[1:] == (4, GstCcl.Algorithm.KOMURA) for s in seen), seen


def test_videoscale_scales_meta():
    if Gst.ElementFactory.find("videoscale") is None:
        return  # gst-plugins-base always has it; nothing to check otherwise
    pairs = []

    def probe(pad, info):
        m = GstCcl.buffer_get_meta(info.get_buffer())
        pairs.append([dict(zip(COMPONENT_FIELDS, fields(c))) for c in m.get_components()])
        return Gst.PadProbeReturn.OK

    scaled = []

    def on_sample(sample):
        m = GstCcl.buffer_get_meta(sample.get_buffer())
        assert m is not None, "videoscale dropped the meta"
        assert (m.width, m.height) == (320, 240)
        scaled.append((m.tracking, m.get_components()))

    run_pipeline(TESTSRC + "! videoscale ! video/x-raw,width=320,height=240 "
                 "! appsink name=sink sync=false", on_sample, probe)
    assert len(pairs) == len(scaled) == 6 and all(pairs), (len(pairs), len(scaled))
    for before, (tracking, after) in zip(pairs, scaled):
        assert len(before) == len(after)
        for b, a in zip(before, after):
            assert (a.x, a.y, a.width, a.height) == \
                (2 * b["x"], 2 * b["y"], 2 * b["width"], 2 * b["height"])
            assert a.area == 4 * b["area"]
            # Ids stay, motion doubles; without tracking all of these are 0 anyway.
            assert (a.track_id, a.parent_id, a.track_age, a.frames_unseen) == \
                (b["track_id"], b["parent_id"], b["track_age"], b["frames_unseen"])
            assert (a.velocity_x, a.velocity_y) == (2 * b["velocity_x"], 2 * b["velocity_y"])
            if tracking:
                assert a.track_id > 0
                # Inside the frame a prediction maps exactly like a box; outside it
                # keeps its overhang, doubled too.
                assert (a.predicted_x, a.predicted_y, a.predicted_width,
                        a.predicted_height) == (2 * b["predicted_x"], 2 * b["predicted_y"],
                                                2 * b["predicted_width"],
                                                2 * b["predicted_height"]), (a, b)


def blob_run(settings):
    """Plays TESTSRC with `settings` on cudaccl; the (components, blobs) of every frame
    read through the typelib, and the element's messages."""
    frames = []

    def on_sample(sample):
        m = GstCcl.buffer_get_meta(sample.get_buffer())
        comps, blobs = m.get_components(), m.get_blobs()
        if blobs:
            assert len(blobs) == len(comps) == m.n_components, (len(blobs), len(comps))
            assert [b.properties for b in blobs] == [m.get_blob(i).properties
                                                     for i in range(len(blobs))]
        assert m.get_blob(len(comps)) is None
        frames.append((m.total_count, comps, blobs))

    messages = run_pipeline(TESTSRC.replace("cudaccl ", f"cudaccl {settings} ")
                            + "! appsink name=sink sync=false", on_sample)
    assert len(frames) == len(messages) == 6, (len(frames), len(messages))
    return frames, messages


def test_blobs_from_pipeline():
    # Every group: each field read, consistent with the component and equal to the
    # message's arrays.
    frames, messages = blob_run("blob-properties=intensity+color+perimeter+euler")
    assert all(comps for _, comps, _ in frames), "the ball was not found"
    for (_, comps, blobs), s in zip(frames, messages):
        assert s.get_value("blob-properties") == ALL_BLOB_PROPERTIES
        for f in BLOB_FIELDS:
            assert list(s.get_value(f.replace("_", "-"))) == [getattr(b, f) for b in blobs], f
        assert list(s.get_value("euler-number")) == [b.euler_number for b in blobs]
        for k in range(3):
            assert list(s.get_value(f"color-mean-{k}")) == [b.color_mean[k] for b in blobs]
        for c, b in zip(comps, blobs):
            assert b.properties == ALL_BLOB_PROPERTIES, b.properties
            # threshold=100 (above): every pixel's luma is over 100.
            assert 100 < b.intensity_min <= b.intensity_mean <= b.intensity_max <= 255
            assert 0 <= b.intensity_std <= (b.intensity_max - b.intensity_min) / 2
            assert list(b.color_mean) == [b.intensity_mean] * 3, list(b.color_mean)  # GRAY8
            assert b.euler_number == 1  # the ball has no hole
            assert b.perimeter > 0
            assert math.isclose(b.circularity, 4 * math.pi * c.area / b.perimeter ** 2,
                                rel_tol=1e-12)
            major, minor = c.get_axis_lengths()
            assert math.isclose(b.axis_major_length, major, rel_tol=1e-9), (b, major)
            assert math.isclose(b.axis_minor_length, minor, rel_tol=1e-9, abs_tol=1e-9)
            assert math.isclose(b.eccentricity, math.sqrt(max(0.0, 1 - (minor / major) ** 2)),
                                rel_tol=1e-6, abs_tol=1e-6), (b.eccentricity, major, minor)
            assert -math.pi / 2 <= b.orientation <= math.pi / 2


def test_blob_filters_from_pipeline():
    # A filter alone computes what it reads, and only that: the circularity filter the
    # perimeter group, the eccentricity filter nothing but the shape.
    for settings, groups in [("min-circularity=0.5", ["PERIMETER"]),
                             ("max-eccentricity=0.9", []),
                             ("blob-properties=euler min-intensity=120", ["INTENSITY", "EULER"])]:
        frames, messages = blob_run(settings)
        want = GstCcl.BlobProperties(0)
        for g in groups:
            want |= getattr(GstCcl.BlobProperties, g)
        assert all(comps for _, comps, _ in frames), f"{settings}: the ball was left out"
        for (_, comps, blobs), s in zip(frames, messages):
            assert s.get_value("blob-properties") == want, (settings, s.get_value("blob-properties"))
            for b in blobs:
                assert b.properties == want, (settings, b.properties)
                for group, fields_of in BLOB_GROUP_FIELDS.items():
                    filled = [getattr(b, f) != 0 for f in fields_of]
                    assert all(filled) if group in groups else not any(filled), (settings, group)
                assert list(b.color_mean) == [0.0] * 3
                assert (b.euler_number != 0) == ("EULER" in groups)
                assert b.axis_major_length > 0  # the shape is always there
    # A filter no component meets: counted, none reported, no blobs.
    frames, messages = blob_run("min-intensity=250")
    for (total, comps, blobs), s in zip(frames, messages):
        assert total >= 1 and comps == [] and blobs == [], (total, comps, blobs)
        assert s.get_value("total-components") == total
        assert s.get_value("reported-components") == 0
    # Neither properties nor filters: no blobs, and none in the message.
    frames, messages = blob_run("")
    assert all(comps and blobs == [] for _, comps, blobs in frames)
    assert not any(s.has_field("blob-properties") or s.has_field("circularity")
                   for s in messages)


for name, fn in [
        ("a buffer without meta gives None", test_no_meta),
        ("Meta.add and every meta and component field read back", test_add_and_read_every_field),
        ("a new meta has the documented defaults", test_defaults),
        ("track fields and tracking read back, 64-bit ids whole, through copies",
         test_track_fields),
        ("Meta.find_track finds a track's component, None otherwise", test_find_track),
        ("derived quantities of an L shape equal the hand-computed ones", test_derived_by_hand),
        ("components read from a meta outlive its buffer", test_components_outlive_the_buffer),
        ("a buffer copy keeps the meta", test_buffer_copy_keeps_meta),
        ("GTypes and the algorithm enum", test_types),
        ("the typelib's fields follow the C layout", test_typelib_layout),
        ("appsink: cudaccl's meta equals its element message", test_appsink_meta_equals_element_message),
        ("tracking=false: meta and message carry no track", test_tracking_off),
        ("pad probe: the meta is read on cudaccl's source pad", test_pad_probe_reads_meta),
        ("videoscale doubles boxes, predictions, velocities, quadruples areas, keeps ids",
         test_videoscale_scales_meta),
        ("blob-properties: every GstCclBlob field read, consistent, equal to the message",
         test_blobs_from_pipeline),
        ("blob filters: a filter computes what it reads; none met: no blobs; none set: none",
         test_blob_filters_from_pipeline)]:
    tap.check(name, fn)
sys.exit(tap.finish())
