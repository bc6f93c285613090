"""Counting lines and zones for the Labeler: the settings checked, one ccl_events
counter (ccl/ccl.h) per Labeler, and what a frame's table gains (docs/EVENTS.md)."""
import collections
import ctypes
import numbers

import numpy as np

from . import _arrays, _lib, _table
from ._errors import UnsupportedError

Event = collections.namedtuple(
    "Event", "kind index track_id count x y frame running_time entry_time")
Event.__doc__ = """One event of a frame (docs/EVENTS.md): kind is "line-forward",
"line-backward", "zone-enter", "zone-exit" or "zone-max"; index the line's or the zone's;
track_id the track's (modulo 2^32; 0 for zone-max); count the zone's count (zone-max),
1 (zone-enter) or the frames the track stayed (zone-exit); x, y its centroid (column,
row); frame and running_time the update's; entry_time the running time it entered at."""

Dwell = collections.namedtuple("Dwell", "frames entry_frame entry_time")

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


class EventTable(_table.LazyTable):
    """A Labeler's table with the frame's counts and events as attributes: they belong
    to this object (dict(table), a copy or a pickle holds the columns only)."""
    __slots__ = ("line_forward", "line_backward", "zone_count", "zone_entries",
                 "zone_exits", "events")


def _numbers(value, what):
    try:
        return np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must hold numbers, not {value!r}") from None


def parse_lines(lines):
    """(n, 4) float64: x1, y1, x2, y2 of each line."""
    if lines is None or isinstance(lines, (str, bytes)):
        if lines is None:
            return np.zeros((0, 4))
        raise ValueError(f"lines must be a sequence of (x1, y1, x2, y2), not {lines!r}")
    a = _numbers(lines, "lines")
    if a.size == 0:
        return np.zeros((0, 4))
    if a.ndim != 2 or a.shape[1] != 4:
        raise ValueError("lines must be a sequence of (x1, y1, x2, y2), one per line "
                         f"(a single line too: [(x1, y1, x2, y2)]); got shape {a.shape}")
    return np.ascontiguousarray(a)


def parse_zones(zones):
    """(points per zone as uint32, every zone's x, y back to back as float64)."""
    if zones is None:
        return np.zeros(0, np.uint32), np.zeros(0)
    if isinstance(zones, (str, bytes)) or not hasattr(zones, "__iter__"):
        raise ValueError(f"zones must be a sequence of polygons, not {zones!r}")
    counts, parts = [], []
    for i, zone in enumerate(zones):
        a = _numbers(zone, f"zone {i}")
        if a.ndim <= 1 and a.size <= 2:
            # A point where a zone was expected: most likely one zone not in a list.
            raise ValueError(f"zone {i} is {zone!r}, not a polygon: zones is a sequence "
                             "of zones, so a single zone is [[(x, y), ...]]")
        if a.ndim == 1 and a.size % 2 == 0:  # flat x1, y1, x2, y2, ...
            a = a.reshape(-1, 2)
        if a.ndim != 2 or a.shape[1] != 2:
            raise ValueError(f"zone {i}: a zone is a sequence of (x, y) points, or of x, y "
                             f"numbers, not shape {a.shape}")
        counts.append(len(a))
        parts.append(a.reshape(-1))
    xy = np.concatenate(parts) if parts else np.zeros(0)
    return np.array(counts, np.uint32), np.ascontiguousarray(xy)


def parse_zone_max(zone_max, n_zones):
    """uint32 per zone (0: no limit), or None."""
    if zone_max is None:
        return None
    if isinstance(zone_max, (str, bytes)) or not hasattr(zone_max, "__iter__"):
        raise TypeError(f"zone_max must be a sequence of integers, one per zone, not "
                        f"{zone_max!r}")
    limits = list(zone_max)
    if len(limits) > n_zones:
        raise ValueError(f"zone_max has {len(limits)} limits for {n_zones} zones")
    for i, m in enumerate(limits):
        if isinstance(m, bool) or not isinstance(m, numbers.Integral):
            raise TypeError(f"zone_max[{i}] must be an integer, not {type(m).__name__}")
        if not 0 <= m <= 0xFFFFFFFF:
            raise ValueError(f"zone_max[{i}] must be within 0..2^32-1 (0: no limit), not {m}")
    out = np.zeros(n_zones, np.uint32)
    out[:len(limits)] = limits
    return out


def _check_time(running_time):
    if isinstance(running_time, bool) or not isinstance(running_time, numbers.Integral):
        raise TypeError("running_time must be an integer (ns), not "
                        f"{type(running_time).__name__}")
    if not _INT64_MIN <= running_time <= _INT64_MAX:
        raise ValueError(f"running_time {running_time} does not fit 64 bits")
    return int(running_time)


class Counter:
    """One stream's ccl_events: configured from the Labeler's settings (checked now),
    and against the frame's size at the first frame after creation or reset()."""

    def __init__(self, lines, zones, zone_max):
        if not hasattr(_lib.lib, "ccl_events_create"):
            raise UnsupportedError(f"{_lib.path} has no counting lines and zones "
                                   "(ccl_events_create): a libccl older than this package")
        self._handle = None
        self._lines = parse_lines(lines)
        self._zone_points, self._zone_xy = parse_zones(zones)
        self._zone_max = parse_zone_max(zone_max, len(self._zone_points))
        handle = ctypes.c_void_p()
        _lib.check(_lib.lib.ccl_events_create(ctypes.byref(handle)))
        self._handle = handle.value
        self._config = _lib.EventsConfig()
        _lib.lib.ccl_events_config_init(ctypes.addressof(self._config))
        c = self._config
        c.n_lines, c.n_zones = len(self._lines), len(self._zone_points)
        c.lines = _arrays.data_pointer(self._lines) if c.n_lines else None
        c.zone_points = _arrays.data_pointer(self._zone_points) if c.n_zones else None
        c.zone_xy = _arrays.data_pointer(self._zone_xy) if c.n_zones else None
        c.zone_max = (_arrays.data_pointer(self._zone_max)
                      if self._zone_max is not None and c.n_zones else None)
        try:
            self._configure(0, 0)  # every fault but the frame's size, raised now
        except BaseException:
            self.close()
            raise
        self._sized = False
        self._frame = 0  # frames since the last reset, as the element numbers them
        self._events_at = ctypes.c_void_p()
        self._n_events = ctypes.c_uint32()

    def _configure(self, width, height):
        self._config.width, self._config.height = width, height
        _lib.check(_lib.lib.ccl_events_configure(self._handle,
                                                 ctypes.addressof(self._config)))

    def begin(self, width, height, running_time):
        """Checks a frame before it is labeled, so that a fault leaves the Labeler as it
        was: its running time, and at the stream's first frame the lines and zones
        against its size. Returns the running time as an int."""
        running_time = _check_time(running_time)
        if not self._sized:
            # Nothing counted yet: configuring again loses nothing.
            self._configure(width, height)
            self._sized = True
        return running_time

    def update(self, engine, table, tracks, running_time):
        """Counts the engine's frame (its reported components' centroids, and with
        `tracks`, the ccl_track array of the frame, their ids) and gives `table` (an
        EventTable) the counts and events."""
        lib = _lib.lib
        _lib.check(lib.ccl_events_update_engine(
            self._handle, engine, _arrays.data_pointer(tracks) if tracks is not None else None,
            self._frame, running_time))
        self._frame += 1
        n_lines, n_zones = self._config.n_lines, self._config.n_zones
        table.line_forward = np.zeros(n_lines, np.uint64)
        table.line_backward = np.zeros(n_lines, np.uint64)
        table.zone_count = np.zeros(n_zones, np.uint32)
        table.zone_entries = np.zeros(n_zones, np.uint64)
        table.zone_exits = np.zeros(n_zones, np.uint64)
        if n_lines:
            _lib.check(lib.ccl_events_line_counts(
                self._handle, _arrays.data_pointer(table.line_forward),
                _arrays.data_pointer(table.line_backward)))
        if n_zones:
            _lib.check(lib.ccl_events_zone_counts(
                self._handle, _arrays.data_pointer(table.zone_count),
                _arrays.data_pointer(table.zone_entries),
                _arrays.data_pointer(table.zone_exits)))
        table.events = self._events()

    def _events(self):
        _lib.check(_lib.lib.ccl_events_events(self._handle, ctypes.byref(self._events_at),
                                              ctypes.byref(self._n_events)))
        n = self._n_events.value
        if not n:
            return []
        kinds = _lib.EVENT_KINDS
        return [Event(kinds[e.kind], e.index, e.track_id, e.count, e.x, e.y, e.frame,
                      e.running_time, e.entry_time)
                for e in (_lib.Event * n).from_address(self._events_at.value)]

    def dwell(self, track_id, zone):
        if isinstance(track_id, bool) or not isinstance(track_id, numbers.Integral):
            raise TypeError(f"track_id must be an integer, not {type(track_id).__name__}")
        if isinstance(zone, bool) or not isinstance(zone, numbers.Integral) or zone < 0:
            raise ValueError(f"zone must be a zone's index, not {zone!r}")
        d = _lib.ZoneDwell(size=ctypes.sizeof(_lib.ZoneDwell))
        _lib.check(_lib.lib.ccl_events_dwell(self._handle, int(track_id) & 0xFFFFFFFF,
                                             min(int(zone), 0xFFFFFFFF), ctypes.addressof(d)))
        return Dwell(d.frames, d.entry_frame, d.entry_time) if d.frames else None

    def reset(self):
        _lib.check(_lib.lib.ccl_events_reset(self._handle))
        self._frame = 0
        self._sized = False  # a new stream may have another size

    def close(self):
        if self._handle is not None:
            _lib.lib.ccl_events_destroy(self._handle)
            self._handle = None

    def __del__(self):
        self.close()
