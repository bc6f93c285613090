#!/usr/bin/python3
"""The GstCcl-1.0 typelib from Python (PyGObject): every field of the meta and its
components read directly, derived quantities, and metas read from a running
pipeline (pad probe and appsink) equal to what the element posts. Prints TAP.

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

COMPONENT_FIELDS = ["label", "x", "y", "width", "height", "area", "sum_x", "sum_y",
                    "sum_xx", "sum_xy", "sum_yy", "centroid_x", "centroid_y"]


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
        metas.append((m.total_count, m.threshold, m.get_components()))

    messages = run_pipeline(TESTSRC + "! appsink name=sink sync=false", on_sample)
    assert len(messages) == len(metas) == 6, (len(messages), len(metas))
    assert all(comps for _, _, comps in metas), "the ball was not found"

    for (total, threshold, comps), s in zip(metas, messages):
        assert total == s.get_value("total-components")
        assert threshold == s.get_value("threshold") == 100
        assert len(comps) == s.get_value("reported-components")
        for name, attr in [("label", "label"), ("bbox-x", "x"), ("bbox-y", "y"),
                           ("bbox-width", "width"), ("bbox-height", "height"),
                           ("area", "area"), ("centroid-x", "centroid_x"),
                           ("centroid-y", "centroid_y")]:
            assert list(s.get_value(name)) == [getattr(c, attr) for c in comps], name
        for c in comps:
            assert math.isclose(c.centroid_x * c.area, c.sum_x)
            assert c.x <= c.centroid_x <= c.x + c.width - 1


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
        pairs.append([fields(c) for c in m.get_components()])
        return Gst.PadProbeReturn.OK

    scaled = []

    def on_sample(sample):
        m = GstCcl.buffer_get_meta(sample.get_buffer())
        assert m is not None, "videoscale dropped the meta"
        assert (m.width, m.height) == (320, 240)
        scaled.append(m.get_components())

    run_pipeline(TESTSRC + "! videoscale ! video/x-raw,width=320,height=240 "
                 "! appsink name=sink sync=false", on_sample, probe)
    assert len(pairs) == len(scaled) == 6 and all(pairs), (len(pairs), len(scaled))
    for before, after in zip(pairs, scaled):
        assert len(before) == len(after)
        for b, a in zip(before, after):
            bx, by, bw, bh, barea = b[1], b[2], b[3], b[4], b[5]
            assert (a.x, a.y, a.width, a.height) == (2 * bx, 2 * by, 2 * bw, 2 * bh)
            assert a.area == 4 * barea


for name, fn in [
        ("a buffer without meta gives None", test_no_meta),
        ("Meta.add and every meta and component field read back", test_add_and_read_every_field),
        ("a new meta has the documented defaults", test_defaults),
        ("derived quantities of an L shape equal the hand-computed ones", test_derived_by_hand),
        ("components read from a meta outlive its buffer", test_components_outlive_the_buffer),
        ("a buffer copy keeps the meta", test_buffer_copy_keeps_meta),
        ("GTypes and the algorithm enum", test_types),
        ("appsink: cudaccl's meta equals its element message", test_appsink_meta_equals_element_message),
        ("pad probe: the meta is read on cudaccl's source pad", test_pad_probe_reads_meta),
        ("videoscale doubles boxes and quadruples areas", test_videoscale_scales_meta)]:
    tap.check(name, fn)
sys.exit(tap.finish())
