"""cudaccl.Labeler: the stateful path for video (engine, foreground model, tracker)."""
import ctypes

import numpy as np

from . import _arrays, _events, _label, _lib, _table, _track


class Labeler:
    """Labels the frames of one stream, each with the same settings, keeping what video
    needs between frames: its own engine, the background model (foreground="background")
    and a tracker (track=True), whose columns join each frame's table.

        lab = cudaccl.Labeler(foreground="background", min_area=20)
        for frame in clip:
            labels, table = lab(frame)        # table["track_id"], ...

    lines (a sequence of (x1, y1, x2, y2)) and zones (a sequence of polygons, each of at
    least 3 (x, y) points or the flat x, y numbers), in pixels (x the column, y the
    row), count the reported components by their centroids (docs/EVENTS.md); zone_max
    is each zone's most components before a "zone-max" event (0: no limit). Each table
    then has the attributes line_forward, line_backward, zone_count, zone_entries,
    zone_exits (NumPy arrays, one value per line or zone) and events (a list of
    cudaccl.Event). Crossings, entries and exits follow tracks: with track=False only
    zone_count and zone-max events happen.

    The backend is chosen at the first frame (auto: CUDA when usable) and so is the
    device (a device frame's own); later frames must live on the same device."""

    def __init__(self, connectivity=8, threshold=128, mode="above", algorithm=None,
                 min_area=0, max_components=None, return_labels=True, backend="auto",
                 foreground="threshold", history=500, learning_rate=-1.0,
                 variance_threshold=16.0, detect_shadows=True, block_size=31, offset=10.0,
                 color_low=(0, 0, 0), color_high=(179, 255, 255), open_radius=0,
                 close_radius=0, track=True, max_lost=15, compensate_light=True,
                 group_gap=-1, properties=None, min_circularity=0.0, max_circularity=0.0,
                 min_intensity=0.0, max_intensity=0.0, min_eccentricity=0.0,
                 max_eccentricity=0.0, lines=None, zones=None, zone_max=None):
        self._engine = self._foreground = self._tracker = self._events = None
        self._blob_names = _label.parse_properties(properties)[1]
        self._options = _label.make_options(
            connectivity, threshold, mode, algorithm, min_area, max_components, return_labels,
            foreground, history=history, learning_rate=learning_rate,
            variance_threshold=variance_threshold, detect_shadows=detect_shadows,
            block_size=block_size, offset=offset, color_low=color_low, color_high=color_high,
            open_radius=open_radius, close_radius=close_radius,
            compensate_light=compensate_light, group_gap=group_gap,
            properties=self._blob_names, min_circularity=min_circularity,
            max_circularity=max_circularity, min_intensity=min_intensity,
            max_intensity=max_intensity, min_eccentricity=min_eccentricity,
            max_eccentricity=max_eccentricity)
        self._options_at = ctypes.addressof(self._options)
        _label.choose_backend(backend, _lib.MEMORY_HOST, -1)  # the name, checked now
        self._backend_name = backend
        self._return_labels = bool(return_labels)
        self._needs_model = foreground == "background"
        self._tracker = _track.create_tracker(max_lost) if track else None
        if lines is not None or zones is not None or zone_max is not None:
            self._events = _events.Counter(lines, zones, zone_max)
        if self._events is not None:
            self._table_kind = _events.EventTable
        else:
            self._table_kind = _table.LazyTable if self._tracker is not None else dict
        self._state = _label._ThreadState()
        self._bound = None  # (backend, device) of the first frame

    def _bind(self, x):
        if self._bound is None:
            backend = _label.choose_backend(self._backend_name, x.memory, x.device)
            device = x.device if backend == _lib.BACKEND_CUDA else -1
            self._engine = _label.create_engine(backend, device)
            if self._needs_model:
                handle = ctypes.c_void_p()
                _lib.check(_lib.lib.ccl_foreground_create(self._engine, ctypes.byref(handle)))
                self._foreground = handle.value
            self._bound = (backend, device)
            return
        backend, device = self._bound
        if x.memory == _lib.MEMORY_DEVICE:
            if backend == _lib.BACKEND_CPU:
                _label.choose_backend("cpu", x.memory, x.device)  # raises TypeError
            if x.device != device:
                raise ValueError(f"this Labeler runs on CUDA device {device}, the frame is on "
                                 f"device {x.device}: use one Labeler per device")

    def __call__(self, frame, running_time=0):
        """(labels, table) of the next frame; the table has the blob columns asked for
        (properties) and the track columns when the Labeler tracks, and with lines or
        zones the frame's counts and events as attributes. running_time: the frame's
        time in ns on any clock (passed on to the events and dwells)."""
        if self._options is None:
            raise ValueError("the Labeler is closed")
        x = _arrays.adapt(frame)
        if self._events is not None:
            running_time = self._events.begin(x.width, x.height, running_time)
        self._bind(x)
        labels, n = _label.run(self._engine, self._foreground, x, self._options_at,
                               self._return_labels, self._state)
        if self._bound[1] == -1 and self._bound[0] == _lib.BACKEND_CUDA:
            self._bound = (self._bound[0], self._state.result.device)  # "current" resolved
        table = _table.engine_table(self._engine, n, self._state.pool, self._blob_names,
                                    self._table_kind)
        tracks = None
        if self._tracker is not None:
            tracks = np.zeros(n, _track.TRACK_DTYPE)
            _lib.check(_lib.lib.ccl_tracker_update_engine(
                self._tracker, self._engine, _arrays.data_pointer(tracks)))
            _table.add_tracks(table, tracks)
        if self._events is not None:
            self._events.update(self._engine, table, tracks, running_time)
        return labels, table

    def reset(self):
        """A new stream: the background model forgets, tracks end and ids restart at 1,
        the line and zone counts are zeroed (no exit events) and frames count from 0."""
        if self._foreground is not None:
            _lib.check(_lib.lib.ccl_foreground_reset(self._foreground))
        if self._tracker is not None:
            _lib.check(_lib.lib.ccl_tracker_reset(self._tracker, 1))
        if self._events is not None:
            self._events.reset()

    def dwell(self, track_id, zone):
        """How long track `track_id` has been inside zone `zone`: (frames, entry_frame,
        entry_time), or None when it is not inside. Needs zones."""
        if self._events is None:
            raise ValueError("the Labeler has no zones")
        return self._events.dwell(track_id, zone)

    @property
    def backend(self):
        """'cuda' or 'cpu' once a frame was labeled, else None."""
        if self._bound is None:
            return None
        return "cuda" if self._bound[0] == _lib.BACKEND_CUDA else "cpu"

    def close(self):
        if self._foreground is not None:
            _lib.lib.ccl_foreground_destroy(self._foreground)
        if self._engine is not None:
            _lib.lib.ccl_engine_destroy(self._engine)
        if self._tracker is not None:
            _lib.lib.ccl_tracker_destroy(self._tracker)
        if self._events is not None:
            self._events.close()
        self._engine = self._foreground = self._tracker = self._events = None
        self._options = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()
