#!/usr/bin/python3
"""The meta's event counts (since 0.4) through the GstCcl-1.0 typelib (PyGObject):
the typelib's layout of the meta (event_counts in the padding's second slot) and of
GstCclEvent, the GstCclEventKind enum, setting the counts from Python and reading
them back with every getter, the bounds, the boxed copies, and a buffer copy.
Prints TAP, one case per check.

The environment points GI_TYPELIB_PATH and LD_LIBRARY_PATH at the build folder's
plugin/meta (tests/meta/meson.build sets them)."""
import sys
import traceback

try:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstCcl", "1.0")
    from gi.repository import Gst, GstCcl
except (ImportError, ValueError) as e:
    print(f"1..0 # SKIP no PyGObject or no GstCcl-1.0 typelib: {e}")
    sys.exit(0)

Gst.init(None)
BIG = 2**40 + 3  # above 2^32: a binding narrowing the 64-bit counts shows


def typelib_fields(name):
    """(name, type tag nick) of each field of GstCcl.<name> as the typelib has it."""
    # PyGObject 3.52 and newer run on girepository 3.0 and refuse the old 2.0.
    try:
        gi.require_version("GIRepository", "3.0")
        from gi.repository import GIRepository
        info = GIRepository.Repository.dup_default().find_by_name("GstCcl", name)
        # girepository 3.0's TypeTag is a Python enum: its name, not a nick.
        tags = [info.get_field(i).get_type_info().get_tag() for i in range(info.get_n_fields())]
        return [(info.get_field(i).get_name(),
                 getattr(tags[i], "value_nick", None) or tags[i].name.lower())
                for i in range(info.get_n_fields())]
    except (ValueError, AttributeError, TypeError):
        pass
    gi.require_version("GIRepository", "2.0")
    from gi.repository import GIRepository
    info = GIRepository.Repository.get_default().find_by_name("GstCcl", name)
    out = []
    for i in range(GIRepository.struct_info_get_n_fields(info)):
        f = GIRepository.struct_info_get_field(info, i)
        tag = GIRepository.type_info_get_tag(GIRepository.field_info_get_type(f))
        out.append((GIRepository.BaseInfo.get_name(f), tag.value_nick))
    return out


def event(kind, index, track_id=0, count=0, x=0.0, y=0.0, frame=0, running_time=0,
          entry_time=Gst.CLOCK_TIME_NONE):
    e = GstCcl.Event()
    e.kind, e.index, e.track_id, e.count = kind, index, track_id, count
    e.x, e.y, e.frame, e.running_time, e.entry_time = x, y, frame, running_time, entry_time
    return e


K = GstCcl.EventKind
FORWARD, BACKWARD = [BIG, 7], [3, BIG + 1]
ZONE_COUNT, ENTRIES, EXITS = [2, 0, 4], [11, BIG + 12, 13], [9, 10, BIG + 11]
T = 5 * Gst.SECOND + 17
EVENTS = [(K.LINE_FORWARD, 1, 42, 0, 10.5, 12.25, 120, T, Gst.CLOCK_TIME_NONE),
          (K.LINE_BACKWARD, 0, 43, 0, 20.0, 4.75, 120, T, Gst.CLOCK_TIME_NONE),
          (K.ZONE_ENTER, 2, 42, 1, 10.5, 12.25, 120, T, T),
          (K.ZONE_EXIT, 0, 2**32 - 1, 37, 1.0, 20.5, BIG, T, T - 37 * Gst.MSECOND),
          (K.ZONE_MAX, 2, 0, 4, 0.0, 0.0, 120, T, Gst.CLOCK_TIME_NONE)]


def as_tuple(e):
    return (e.kind, e.index, e.track_id, e.count, e.x, e.y, e.frame, e.running_time,
            e.entry_time)


def meta_with_counts():
    buf = Gst.Buffer.new()
    meta = GstCcl.Meta.add(buf, 32, 24, 0, [])
    assert meta.set_event_counts(FORWARD, BACKWARD, ZONE_COUNT, ENTRIES, EXITS,
                                 [event(*e) for e in EVENTS])
    return buf, meta


def test_typelib_layout():
    meta = [n for n, _ in typelib_fields("Meta")]
    assert meta[meta.index("tracking") + 1:] == ["blobs", "event_counts", "_gst_reserved"], meta
    ev = typelib_fields("Event")
    assert ev == [("kind", "interface"), ("index", "uint32"), ("track_id", "uint32"),
                  ("count", "uint32"), ("x", "double"), ("y", "double"),
                  ("frame", "uint64"), ("running_time", "uint64"),
                  ("entry_time", "uint64"), ("_gst_reserved", "array")], ev
    counts = [n for n, _ in typelib_fields("EventCounts")]
    assert counts[:3] == ["n_lines", "n_zones", "n_events"], counts


def test_kind_enum():
    assert [(k.value_nick, int(k)) for k in (K.LINE_FORWARD, K.LINE_BACKWARD, K.ZONE_ENTER,
                                             K.ZONE_EXIT, K.ZONE_MAX)] == [
        ("line-forward", 0), ("line-backward", 1), ("zone-enter", 2), ("zone-exit", 3),
        ("zone-max", 4)]


def test_none_until_set():
    buf = Gst.Buffer.new()
    meta = GstCcl.Meta.add(buf, 8, 8, 0, [])
    assert meta.get_event_counts() is None
    assert (meta.get_n_lines(), meta.get_n_zones()) == (0, 0)
    assert tuple(meta.get_line_counts(0)) == (False, 0, 0)
    assert tuple(meta.get_zone_counts(0)) == (False, 0, 0, 0)
    assert meta.get_events() == [] and meta.get_event(0) is None


def test_set_and_read():
    buf, meta = meta_with_counts()
    assert (meta.get_n_lines(), meta.get_n_zones()) == (2, 3)
    for i in range(2):
        assert tuple(meta.get_line_counts(i)) == (True, FORWARD[i], BACKWARD[i]), i
    for i in range(3):
        assert tuple(meta.get_zone_counts(i)) == (True, ZONE_COUNT[i], ENTRIES[i], EXITS[i]), i
    assert [as_tuple(e) for e in meta.get_events()] == EVENTS
    assert [as_tuple(meta.get_event(i)) for i in range(5)] == EVENTS
    assert meta.get_event(3).kind.value_nick == "zone-exit"
    counts = meta.get_event_counts()
    assert (counts.n_lines, counts.n_zones, counts.n_events) == (2, 3, 5)


def test_bounds():
    buf, meta = meta_with_counts()
    assert tuple(meta.get_line_counts(2)) == (False, 0, 0)
    assert tuple(meta.get_line_counts(2**32 - 1)) == (False, 0, 0)
    assert tuple(meta.get_zone_counts(3)) == (False, 0, 0, 0)
    assert meta.get_event(5) is None and meta.get_event(2**32 - 1) is None


def test_copies_outlive_the_buffer():
    buf, meta = meta_with_counts()
    counts, events, copy = meta.get_event_counts(), meta.get_events(), buf.copy()
    del meta, buf
    assert counts.n_events == 5 and [as_tuple(e) for e in events] == EVENTS
    m = GstCcl.buffer_get_meta(copy)
    assert [as_tuple(e) for e in m.get_events()] == EVENTS
    assert tuple(m.get_zone_counts(1)) == (True, 0, BIG + 12, 10)


def test_replace_and_remove():
    buf, meta = meta_with_counts()
    assert meta.set_event_counts([5], [6], [], [], [], [event(K.LINE_BACKWARD, 0, 9)])
    assert (meta.get_n_lines(), meta.get_n_zones()) == (1, 0)
    assert tuple(meta.get_line_counts(0)) == (True, 5, 6)
    assert [e.track_id for e in meta.get_events()] == [9]
    assert meta.set_event_counts([], [], [], [], [], [])
    assert meta.get_event_counts() is None and meta.get_events() == []


def main():
    tests = [(n, f) for n, f in globals().items() if n.startswith("test_") and callable(f)]
    print(f"1..{len(tests)}")
    failed = 0
    for i, (name, f) in enumerate(tests, 1):
        try:
            f()
            print(f"ok {i} - {name}")
        except Exception:  # noqa: BLE001 - every failure is a not ok
            failed += 1
            print(f"not ok {i} - {name}")
            for line in traceback.format_exc().splitlines():
                print(f"# {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
